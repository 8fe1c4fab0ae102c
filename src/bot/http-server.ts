/**
 * The bot's HTTP edge (node:http): `GET /healthz`, and webhook deliveries `POST /` (or
 * `/api/github/webhooks`, `@octokit/webhooks`' default path). Each delivery, in order:
 *
 * 1. a body over {@link MAX_PAYLOAD_BYTES} (GitHub caps payloads at 25 MB:
 *    https://docs.github.com/webhooks/webhook-events-and-payloads#payload-cap) → 413, read no further;
 * 2. no `X-GitHub-Event` / `X-GitHub-Delivery` → 400; no or a wrong `X-Hub-Signature-256` → 401, and
 *    nothing else happens (no parse, no API call);
 * 3. a body that is not a JSON object → 400;
 * 4. the handler runs; its answer is 200 with `{ok, outcome}`, or 202 for an event no handler takes; a
 *    payload the handler cannot read → 400; a handler that fails → 500 after logging (GitHub then shows the
 *    delivery failed, and `--redeliver-failed` sends it again).
 *
 * The answer is sent once the handler finished, so a failure can still be a 5xx. GitHub waits 10 s for it;
 * a slower delivery is marked failed and redelivered, which the idempotent handlers make harmless.
 * One JSON log line per delivery (`delivery-log.ts`); `/healthz` touches neither GitHub nor the log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { BotApp } from "./bot-app.js";
import type { BotLog, DeliveryLine } from "./delivery-log.js";
import { MalformedPayloadError } from "./handler.js";

/** GitHub's webhook payload cap: 25 MB. */
export const MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;

const WEBHOOK_PATHS = new Set(["/", "/api/github/webhooks"]);

class TooLarge extends Error {}

function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return typeof v === "string" && v !== "" ? v : null;
}

export interface BotServerOptions {
  readonly bot: Pick<BotApp, "receive" | "verify">;
  readonly log: BotLog;
  /** Default {@link MAX_PAYLOAD_BYTES} (tests lower it). */
  readonly maxPayloadBytes?: number;
}

/** The server, not yet listening. */
export function createBotServer(o: BotServerOptions): Server {
  const limit = o.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      send(res, 200, { ok: true });
      return;
    }
    if (!WEBHOOK_PATHS.has(path)) {
      send(res, 404, { error: "not found: deliveries go to POST /, health checks to GET /healthz" });
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, { error: "webhook deliveries are POST requests" });
      return;
    }
    void handleDelivery(req, res, o, limit);
  });
}

async function handleDelivery(
  req: IncomingMessage,
  res: ServerResponse,
  o: BotServerOptions,
  limit: number,
): Promise<void> {
  const started = performance.now();
  const delivery = header(req, "x-github-delivery");
  const event = header(req, "x-github-event");
  const line: { -readonly [K in keyof DeliveryLine]: DeliveryLine[K] } = {
    delivery,
    event,
    status: 500,
    outcome: "error",
    ms: 0,
  };
  const answer = (status: number, outcome: string, body: Record<string, unknown>, detail?: string): void => {
    line.status = status;
    line.outcome = outcome;
    if (detail !== undefined) line.detail = detail;
    send(res, status, body);
  };
  try {
    let body: Buffer;
    try {
      body = await readBody(req, limit);
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      answer(413, "too-large", { error: `payload over ${limit} bytes` });
      // Stop reading: the rest of the body is not wanted.
      res.once("finish", () => req.destroy());
      return;
    }
    if (delivery === null || event === null) {
      answer(400, "missing-headers", { error: "X-GitHub-Event and X-GitHub-Delivery are required" });
      return;
    }
    const signature = header(req, "x-hub-signature-256");
    const text = body.toString("utf8");
    if (signature === null || !(await o.bot.verify(text, signature).catch(() => false))) {
      answer(401, "bad-signature", { error: "signature does not match the payload and the webhook secret" });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      answer(400, "malformed", { error: "the body is not JSON" });
      return;
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      answer(400, "malformed", { error: "the body is not a JSON object" });
      return;
    }
    const p = payload as { action?: unknown; repository?: { full_name?: unknown } };
    line.action = typeof p.action === "string" ? p.action : null;
    line.repository = typeof p.repository?.full_name === "string" ? p.repository.full_name : null;
    try {
      const result = await o.bot.receive({ id: delivery, name: event, payload });
      if (result === null)
        answer(202, "ignored", { ok: true, outcome: "ignored" }, `no handler for ${event}`);
      else answer(200, result.outcome, { ok: true, outcome: result.outcome }, result.detail);
    } catch (error) {
      const status = error instanceof MalformedPayloadError ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      answer(
        status,
        status === 400 ? "malformed" : "error",
        { error: status === 400 ? message : "the handler failed" },
        message,
      );
    }
  } catch (error) {
    answer(
      500,
      "error",
      { error: "the delivery could not be read" },
      error instanceof Error ? error.message : String(error),
    );
  } finally {
    line.ms = Math.round((performance.now() - started) * 10) / 10;
    o.log.delivery(line);
  }
}
