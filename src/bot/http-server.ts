/**
 * The bot's HTTP edge (node:http): `GET /healthz`, and webhook deliveries `POST /` (or
 * `/api/github/webhooks`, `@octokit/webhooks`' default path). Each delivery is answered within a second —
 * GitHub cuts a delivery off after 10 s
 * (https://docs.github.com/webhooks/using-webhooks/best-practices-for-using-webhooks#respond-within-10-seconds)
 * — and its work runs after the answer ({@link DeliveryWork}). In order, reading the body only when it may
 * be wanted:
 *
 * 1. no `X-GitHub-Event` / `X-GitHub-Delivery` → 400; no `X-Hub-Signature-256` of the form `sha256=<64 hex>`
 *    → 401 — both before a byte of the body is read;
 * 2. a declared `Content-Length` over {@link MAX_PAYLOAD_BYTES} (GitHub caps payloads at 25 MB:
 *    https://docs.github.com/webhooks/webhook-events-and-payloads#payload-cap) → 413 before reading; a body
 *    that streams past the cap → 413, read no further;
 * 3. more than {@link MAX_UNVERIFIED_BODIES} bodies being read before their signature is checked → 503 with
 *    `Retry-After` (bounds the memory unsigned bodies can take: at most that many × 25 MB);
 * 4. the signature, checked by `@octokit/webhooks`' `verify` (HMAC-SHA256 of the raw body) → 401 if wrong;
 *    nothing else happens (no parse, no API call);
 * 5. a body that is not a JSON object → 400;
 * 6. an event no handler takes, or a payload without `installation.id` (no installation token can be
 *    made for it, so no API call is made) → 202 `ignored`;
 * 7. otherwise → 202 `accepted`, then the handler runs. A handler that fails after Octokit's retries is
 *    logged `error` and the App asks GitHub to redeliver that delivery (`onFailed`); a payload the handler
 *    cannot read is logged `malformed` and not redelivered.
 *
 * Why not `@octokit/webhooks`' `createNodeMiddleware`: docs/adr/0015-own-http-edge-around-octokit-verify.md.
 * One JSON log line per delivery (`delivery-log.ts`): a refused one when answered, an accepted one when its
 * work finished (`status` 202, `answeredMs`, `ms` to the end of the work). `/healthz` touches neither
 * GitHub nor the log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { BotApp } from "./bot-app.js";
import type { BotLog, DeliveryLine } from "./delivery-log.js";
import type { DeliveryWork } from "./delivery-work.js";
import { MalformedPayloadError } from "./handler.js";

/** GitHub's webhook payload cap: 25 MB. */
export const MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;
/** At most this many bodies are read at once before their signature is checked (503 beyond). */
export const MAX_UNVERIFIED_BODIES = 8;
/**
 * How long one body may take to arrive, in ms, before the request is cut off (408). GitHub sends a payload
 * in one go and gives up on the whole delivery after 10 s
 * (https://docs.github.com/webhooks/using-webhooks/best-practices-for-using-webhooks#respond-within-10-seconds),
 * so a body still trickling in after that is no delivery GitHub waits for: without this bound, eight slow
 * unsigned bodies would hold every reading slot and shut real deliveries out.
 */
export const BODY_READ_TIMEOUT_MS = 10_000;

const WEBHOOK_PATHS = new Set(["/", "/api/github/webhooks"]);
const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

class TooLarge extends Error {}
class TooSlow extends Error {}

function send(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  // A request cut off (a body that took too long) has no socket left to answer on.
  if (res.headersSent || res.destroyed || res.socket?.destroyed === true) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  let late = false;
  // Past the bound the request stops: the loop below ends, and the slot is free again.
  const timer = setTimeout(() => {
    late = true;
    req.destroy();
  }, timeoutMs);
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw new TooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (late) throw new TooSlow();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (late) throw new TooSlow();
  return Buffer.concat(chunks, size);
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return typeof v === "string" && v !== "" ? v : null;
}

/** A delivery that failed after it was answered (not a malformed payload): the App asks for it again. */
export interface FailedDelivery {
  readonly id: string;
  readonly name: string;
  readonly error: unknown;
}

export interface BotServerOptions {
  readonly bot: Pick<BotApp, "receive" | "verify" | "handles">;
  readonly log: BotLog;
  /** Where accepted deliveries' work runs. */
  readonly work: DeliveryWork;
  /** Called when an accepted delivery's handler failed (not for a malformed payload). */
  readonly onFailed?: (delivery: FailedDelivery) => void;
  /** Default {@link BODY_READ_TIMEOUT_MS} (tests lower it). */
  readonly bodyReadTimeoutMs?: number;
  /** Default {@link MAX_PAYLOAD_BYTES} (tests lower it). */
  readonly maxPayloadBytes?: number;
  /** Default {@link MAX_UNVERIFIED_BODIES}. */
  readonly maxUnverifiedBodies?: number;
}

/** The server, not yet listening. */
export function createBotServer(o: BotServerOptions): Server {
  const limit = o.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  const gate = { reading: 0, max: o.maxUnverifiedBodies ?? MAX_UNVERIFIED_BODIES };
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
    void handleDelivery(req, res, o, limit, gate);
  });
}

/**
 * Deliveries about one commit share a key (installation, repository, head SHA — from `pull_request.head`,
 * `workflow_run`, `check_run` or `check_suite`), so they are worked in arrival order; others run freely.
 */
function orderKey(installation: number, repository: string | null, payload: object): string | undefined {
  const p = payload as Record<string, { head_sha?: unknown; head?: { sha?: unknown } } | undefined>;
  const sha =
    p.pull_request?.head?.sha ?? p.workflow_run?.head_sha ?? p.check_run?.head_sha ?? p.check_suite?.head_sha;
  return typeof sha === "string" ? `${installation}:${repository ?? ""}:${sha.toLowerCase()}` : undefined;
}

type MutableLine = { -readonly [K in keyof DeliveryLine]: DeliveryLine[K] };

async function handleDelivery(
  req: IncomingMessage,
  res: ServerResponse,
  o: BotServerOptions,
  limit: number,
  gate: { reading: number; readonly max: number },
): Promise<void> {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  const delivery = header(req, "x-github-delivery");
  const event = header(req, "x-github-event");
  const line: MutableLine = { delivery, event, status: 500, outcome: "error", ms: 0 };
  /** Answers and logs a delivery that is refused or ignored (no work follows). */
  const refuse = (
    status: number,
    outcome: string,
    body: Record<string, unknown>,
    detail?: string,
    headers?: Record<string, string>,
  ): void => {
    line.status = status;
    line.outcome = outcome;
    if (detail !== undefined) line.detail = detail;
    send(res, status, body, headers);
    // A body not read is not wanted: close the connection once the answer is out.
    if (!req.readableEnded) res.once("finish", () => req.destroy());
    line.ms = elapsed();
    o.log.delivery(line);
  };
  try {
    if (delivery === null || event === null) {
      refuse(400, "missing-headers", { error: "X-GitHub-Event and X-GitHub-Delivery are required" });
      return;
    }
    const signature = header(req, "x-hub-signature-256");
    if (signature === null || !SIGNATURE.test(signature)) {
      refuse(401, "bad-signature", { error: "X-Hub-Signature-256 (sha256=<hex>) is required" });
      return;
    }
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      refuse(413, "too-large", { error: `payload over ${limit} bytes` });
      return;
    }
    if (gate.reading >= gate.max) {
      refuse(
        503,
        "busy",
        { error: `over ${gate.max} deliveries are being read at once; try again` },
        undefined,
        { "retry-after": "1" },
      );
      return;
    }
    let body: Buffer;
    gate.reading += 1;
    try {
      body = await readBody(req, limit, o.bodyReadTimeoutMs ?? BODY_READ_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof TooSlow) {
        const seconds = (o.bodyReadTimeoutMs ?? BODY_READ_TIMEOUT_MS) / 1000;
        refuse(408, "too-slow", { error: `the body did not arrive within ${seconds} s` });
        return;
      }
      if (!(error instanceof TooLarge)) throw error;
      refuse(413, "too-large", { error: `payload over ${limit} bytes` });
      return;
    } finally {
      gate.reading -= 1;
    }
    const text = body.toString("utf8");
    if (!(await o.bot.verify(text, signature).catch(() => false))) {
      refuse(401, "bad-signature", { error: "signature does not match the payload and the webhook secret" });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      refuse(400, "malformed", { error: "the body is not JSON" });
      return;
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      refuse(400, "malformed", { error: "the body is not a JSON object" });
      return;
    }
    const p = payload as {
      action?: unknown;
      repository?: { full_name?: unknown };
      installation?: { id?: unknown };
    };
    const action = typeof p.action === "string" ? p.action : null;
    line.action = action;
    line.repository = typeof p.repository?.full_name === "string" ? p.repository.full_name : null;
    if (!o.bot.handles(event, action)) {
      refuse(202, "ignored", { ok: true, outcome: "ignored" }, `no handler for ${event}`);
      return;
    }
    const installation = p.installation?.id;
    if (typeof installation !== "number" || !Number.isSafeInteger(installation) || installation <= 0) {
      refuse(
        202,
        "ignored",
        { ok: true, outcome: "ignored" },
        `the ${event} payload names no installation: no installation token, nothing to do`,
      );
      return;
    }
    send(res, 202, { ok: true, outcome: "accepted" });
    line.status = 202;
    line.answeredMs = elapsed();
    o.work.run(
      delivery,
      async () => {
        try {
          const result = await o.bot.receive({ id: delivery, name: event, payload });
          line.outcome = result?.outcome ?? "ignored";
          if (result?.detail !== undefined) line.detail = result.detail;
        } catch (error) {
          line.outcome = error instanceof MalformedPayloadError ? "malformed" : "error";
          line.detail = error instanceof Error ? error.message : String(error);
          if (!(error instanceof MalformedPayloadError)) o.onFailed?.({ id: delivery, name: event, error });
        } finally {
          line.ms = elapsed();
          o.log.delivery(line);
        }
      },
      orderKey(installation, line.repository ?? null, payload),
    );
  } catch (error) {
    refuse(
      500,
      "error",
      { error: "the delivery could not be read" },
      error instanceof Error ? error.message : String(error),
    );
  }
}
