/**
 * A scripted model server on loopback, for driving the real `claude` and `codex` CLIs offline
 * (docs/scripted-model-server.md; research/fake-model.md). Plain `node:http`, no dependencies: the
 * product demo starts it too. One server, one script, both wire APIs:
 *
 * - `POST /v1/messages` (any query string): the Anthropic Messages API (claude). The scripted turn is
 *   answered as SSE when the body says `stream: true`, else as one Message JSON (the CLI's non-streaming
 *   fallback).
 * - `POST /v1/responses`: the OpenAI Responses API (codex, through a custom model provider whose
 *   `base_url` is `<url>/v1`; see `codexConfigFor`). SSE when `stream: true` (codex always streams), else
 *   one Response JSON.
 * - `HEAD /api/hello` → 200 (claude's connectivity probe, sent unless
 *   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1); anything else → 404 with an Anthropic error body.
 *
 * A turn's `delay_ms` is awaited on a timer, never by blocking, so concurrent requests are delayed side
 * by side; a client that disconnects during the delay gets no answer and costs nothing else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { assistantMessage, errorBody, sseEvents } from "./anthropic-wire.js";
import { advertisedTools, selectResponsesTurn } from "./openai-select.js";
import { outputItems, responsesErrorBody, responsesSseEvents, scriptedResponse } from "./openai-wire.js";
import { type ModelScript, parseModelScript, type ScriptedError, type ScriptedTurn } from "./script.js";
import { selectTurn, type TurnSelection } from "./select.js";

/** Which wire API a request used: `anthropic` = `POST /v1/messages` (claude), `openai` = `POST /v1/responses` (codex). */
export type WireApi = "anthropic" | "openai";

/** One `POST /v1/messages` or `POST /v1/responses` the server answered, in arrival order. */
export interface RecordedRequest {
  /** Which route: `anthropic` (`/v1/messages`, claude) or `openai` (`/v1/responses`, codex). */
  readonly api: WireApi;
  /** The matched conversation's name (`#<index>` when unnamed), or null when none matched. */
  readonly conversation: string | null;
  /** Model turns after the opening prompt = index of the turn played; null without a prompt. */
  readonly step: number | null;
  /**
   * The CLI's session: the `x-claude-code-session-id` header (claude; equals its `session_id`) or the
   * `session-id` header (codex; equals the `thread_id` of `thread.started`); null when absent.
   */
  readonly sessionId: string | null;
  /** The opening prompt's real text (system reminders / injected context dropped), or null when none. */
  readonly promptText: string | null;
  /** Whether the request asked for SSE (`stream: true`). */
  readonly stream: boolean;
  /**
   * The request's headers, names lower-cased, repeated headers joined with `, ` (e.g. `x-api-key`,
   * `authorization`: what a key proxy in front of the server sent).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The HTTP status answered. */
  readonly status: number;
  /** The parsed request body (or the raw text when it was not JSON). */
  readonly body: unknown;
  /** When the request arrived (its handler started), epoch milliseconds (`Date.now()`). */
  readonly receivedAt: number;
  /**
   * When the server started writing the answer (after any `delay_ms`), epoch milliseconds; null while
   * the answer is still delayed, and for good when the client disconnected before it was written.
   */
  readonly answeredAt: number | null;
}

/** The recorded entry as the handler fills it in (`answeredAt` is set once the answer starts). */
type MutableRecordedRequest = { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] };

export interface ModelServer {
  /** `http://127.0.0.1:PORT`: `ANTHROPIC_BASE_URL` for claude; codex's provider `base_url` is `${url}/v1`. */
  readonly url: string;
  /**
   * Every `POST /v1/messages` and `POST /v1/responses`, in arrival order (probes such as
   * `HEAD /api/hello` are not recorded). A request is recorded as soon as its turn is selected, so a
   * delayed one shows up with `answeredAt: null`.
   */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /** Validated again at start (it may come from JSON); invalid → `ModelScriptError` listing every issue. */
  readonly script: ModelScript;
}

const PREFIX = "scripted model server:";

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  api: WireApi = "anthropic",
  extra: Pick<ScriptedError, "type" | "resets_at"> = {},
): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(
    api === "openai" ? responsesErrorBody(status, message, extra) : errorBody(status, message, extra.type),
  );
}

function headerValue(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function quotePrompt(promptText: string): string {
  const head = promptText.slice(0, 200);
  return JSON.stringify(promptText.length > 200 ? `${head}…` : head);
}

/** The HTTP status and message for a selection that plays no turn. */
function refusal(selection: Exclude<TurnSelection, { kind: "turn" }>): { status: number; message: string } {
  switch (selection.kind) {
    case "no_prompt":
      return { status: 400, message: `${PREFIX} the request has no user message with prompt text` };
    case "unmatched":
      return {
        status: 400,
        message: `${PREFIX} no conversation matched the prompt ${quotePrompt(selection.promptText)}`,
      };
    case "exhausted":
      return {
        status: 400,
        message: `${PREFIX} conversation "${selection.conversationName}" has ${selection.turnCount} turn(s) but the CLI asked for turn ${selection.step + 1} (step ${selection.step}) of the prompt ${quotePrompt(selection.promptText)}`,
      };
  }
}

/**
 * Resolves true once `Date.now()` has reached `deadline` (epoch ms), or false as soon as the response
 * closes first (the client went away). Timers only: the event loop keeps serving other requests. The
 * timer is re-armed until the deadline has really passed, since a timer may fire a millisecond early.
 */
function waitUntil(deadline: number, response: ServerResponse): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return Promise.resolve(false);
  if (Date.now() >= deadline) return Promise.resolve(true);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const arm = () => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        response.off("close", onClose);
        resolve(true);
        return;
      }
      timer = setTimeout(arm, remaining);
    };
    response.once("close", onClose);
    arm();
  });
}

/** How one wire API reads a request and writes a turn. */
interface WireAdapter {
  readonly api: WireApi;
  /** The header recorded as `sessionId`. */
  readonly sessionHeader: string;
  select(script: ModelScript, body: Record<string, unknown>): TurnSelection;
  /**
   * The answer to a (non-error) turn, or why the turn cannot be played against this request (answered
   * 400 at once, without the turn's delay).
   */
  prepare(
    turn: ScriptedTurn,
    body: Record<string, unknown>,
  ):
    | { readonly refused: { readonly callIndex: number; readonly message: string } }
    | { readonly write: (response: ServerResponse, stream: boolean) => void };
}

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === "string" ? body.model : "scripted-model";
}

/**
 * Writes one scripted answer with the API's request-id header: the answer as JSON, or, when the request
 * streams, its SSE events.
 */
function answerWriter(
  idHeader: Readonly<Record<string, string>>,
  answer: unknown,
  events: () => Iterable<string>,
): (response: ServerResponse, stream: boolean) => void {
  return (response, stream) => {
    if (!stream) {
      response.writeHead(200, { "content-type": "application/json", ...idHeader });
      response.end(JSON.stringify(answer));
      return;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...idHeader,
    });
    for (const event of events()) response.write(event);
    response.end();
  };
}

const ANTHROPIC: WireAdapter = {
  api: "anthropic",
  sessionHeader: "x-claude-code-session-id",
  select: (script, body) => selectTurn(script, body.messages),
  prepare: (turn, body) => {
    const message = assistantMessage(turn, modelOf(body));
    return { write: answerWriter({ "request-id": message.id }, message, () => sseEvents(message)) };
  },
};

const OPENAI: WireAdapter = {
  api: "openai",
  sessionHeader: "session-id",
  select: (script, body) => selectResponsesTurn(script, body.input),
  prepare: (turn, body) => {
    const output = outputItems(turn, advertisedTools(body));
    if (!Array.isArray(output)) return { refused: output };
    const answer = scriptedResponse(turn, modelOf(body), output);
    return { write: answerWriter({ "x-request-id": answer.id }, answer, () => responsesSseEvents(answer)) };
  },
};

async function handleScripted(
  adapter: WireAdapter,
  script: ModelScript,
  request: IncomingMessage,
  response: ServerResponse,
  requests: RecordedRequest[],
): Promise<void> {
  const receivedAt = Date.now();
  const raw = await readBody(request);
  const sessionId = headerValue(request, adapter.sessionHeader);
  const parsed = parseJson(raw);
  const body: Record<string, unknown> =
    parsed.ok && typeof parsed.value === "object" && parsed.value !== null
      ? (parsed.value as Record<string, unknown>)
      : {};
  const stream = body.stream === true;
  const record = (
    fields: Pick<RecordedRequest, "conversation" | "step" | "promptText" | "status">,
  ): MutableRecordedRequest => {
    const entry: MutableRecordedRequest = {
      api: adapter.api,
      ...fields,
      sessionId,
      stream,
      headers: headersOf(request),
      body: parsed.ok ? parsed.value : raw,
      receivedAt,
      answeredAt: null,
    };
    requests.push(entry);
    return entry;
  };
  const refuse = (entry: MutableRecordedRequest, message: string) => {
    entry.answeredAt = Date.now();
    sendError(response, entry.status, message, adapter.api);
  };

  if (!parsed.ok) {
    const entry = record({ conversation: null, step: null, promptText: null, status: 400 });
    refuse(entry, `${PREFIX} the request body is not JSON`);
    return;
  }
  const selection = adapter.select(script, body);
  if (selection.kind !== "turn") {
    const { status, message } = refusal(selection);
    const entry = record({
      conversation: selection.kind === "exhausted" ? selection.conversationName : null,
      step: selection.kind === "no_prompt" ? null : selection.step,
      promptText: selection.kind === "no_prompt" ? null : selection.promptText,
      status,
    });
    refuse(entry, message);
    return;
  }
  const { turn } = selection;
  const prepared = turn.error === undefined ? adapter.prepare(turn, body) : null;
  const fields = {
    conversation: selection.conversationName,
    step: selection.step,
    promptText: selection.promptText,
  };
  if (prepared !== null && "refused" in prepared) {
    const entry = record({ ...fields, status: 400 });
    const at = `conversations[${script.conversations.indexOf(selection.conversation)}].turns[${selection.step}].tool_calls[${prepared.refused.callIndex}]`;
    refuse(
      entry,
      `${PREFIX} ${at} (conversation "${selection.conversationName}", step ${selection.step}) ${prepared.refused.message}`,
    );
    return;
  }
  const entry = record({ ...fields, status: turn.error?.status ?? 200 });
  if (turn.delay_ms !== undefined && turn.delay_ms > 0) {
    const stillThere = await waitUntil(receivedAt + turn.delay_ms, response);
    if (!stillThere) return; // the client disconnected during the delay: nobody to answer
  }
  entry.answeredAt = Date.now();
  if (prepared === null) {
    const error = turn.error;
    if (error !== undefined) sendError(response, error.status, error.message, adapter.api, error);
    return;
  }
  prepared.write(response, stream);
}

/**
 * Starts the server on `127.0.0.1` with an ephemeral port. The script is validated first; an invalid
 * one rejects with a `ModelScriptError` listing every issue.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const script = parseModelScript(options.script);
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    const adapter =
      request.method !== "POST"
        ? undefined
        : path === "/v1/messages"
          ? ANTHROPIC
          : path === "/v1/responses"
            ? OPENAI
            : undefined;
    if (adapter !== undefined) {
      handleScripted(adapter, script, request, response, requests).catch((error: unknown) => {
        if (!response.headersSent) {
          sendError(response, 500, `${PREFIX} internal error: ${String(error)}`, adapter.api);
        } else response.destroy();
      });
      return;
    }
    if ((request.method === "HEAD" || request.method === "GET") && path === "/api/hello") {
      response.writeHead(200).end();
      return;
    }
    request.resume();
    sendError(response, 404, `${PREFIX} no route for ${request.method} ${path}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
