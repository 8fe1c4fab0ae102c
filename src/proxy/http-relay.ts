/**
 * The HTTP pieces of the key proxy's relay (key-proxy.ts): end-to-end headers, bounded body reads, and
 * error answers in each model API's own shape (Anthropic `{"type":"error","error":{…}}`, OpenAI
 * `{"error":{…}}`), so a CLI reports a refusal as an API error naming the proxy.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { ModelApi } from "./model-routes.js";

const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** `headers` without hop-by-hop headers (those listed in `connection` too) and without `drop`. */
export function endToEndHeaders(headers: IncomingHttpHeaders, drop: readonly string[]): OutgoingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A path for a log line: no query, no control characters, at most 200 characters. */
export function loggablePath(path: string): string {
  const clean = path.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** An error answer in the API's own shape, so the CLI reports it as an API error. */
export function sendApiError(response: ServerResponse, api: ModelApi, status: number, message: string): void {
  const text = `evidence-gate key proxy: ${message}`;
  const body =
    api === "anthropic"
      ? {
          type: "error",
          error: {
            type:
              status === 413 ? "request_too_large" : status >= 500 ? "api_error" : "invalid_request_error",
            message: text,
          },
        }
      : {
          error: {
            message: text,
            type: status >= 500 ? "server_error" : "invalid_request_error",
            code: null,
          },
        };
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { "content-type": "application/json", connection: "close" });
  response.end(JSON.stringify(body));
}

export type BodyRead = { readonly kind: "read"; readonly body: Buffer } | { readonly kind: "too-large" };

/** The request body, or `too-large` as soon as it passes `max` bytes (a `content-length` over it is not read). */
export function readBoundedBody(request: IncomingMessage, max: number): Promise<BodyRead> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > max) return Promise.resolve({ kind: "too-large" });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        request.off("data", onData);
        resolve({ kind: "too-large" });
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.on("end", () => resolve({ kind: "read", body: Buffer.concat(chunks) }));
    request.on("error", reject);
  });
}

/** Reads at most `max` bytes of `stream` (the rest is discarded). */
export function readCapped(stream: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      if (size >= max) return;
      chunks.push(chunk.subarray(0, max - size));
      size += chunk.length;
    });
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}
