/**
 * What every webhook handler of the bot gets and gives back. A handler is a function of (context, payload):
 * the payload is already signature-verified (it is GitHub's), but its shape is still checked with zod
 * before use ({@link MalformedPayloadError}); everything it does goes through the installation client.
 */
import type { z } from "zod";
import type { GateOctokit } from "../github/octokit.js";
import type { BotConfig } from "./config.js";

export interface HandlerContext {
  readonly config: BotConfig;
  /** The installation's client (`@octokit/app`: an installation token for `payload.installation.id`). */
  readonly octokit: GateOctokit;
  /** `X-GitHub-Delivery`. */
  readonly deliveryId: string;
  /** Waits `ms` × the configured backoff scale (tests shrink it; production waits the real time). */
  readonly sleep: (ms: number) => Promise<void>;
}

/** What a handler did, for the delivery's log line: `outcome` is one short word-phrase, `detail` one sentence. */
export interface HandlerResult {
  readonly outcome: string;
  readonly detail?: string;
}

/** A signed payload that lacks what the handler needs: answered 400, nothing is written. */
export class MalformedPayloadError extends Error {
  override readonly name = "MalformedPayloadError";
  readonly status = 400;
  constructor(
    readonly event: string,
    readonly issues: readonly string[],
  ) {
    super(`the ${event} payload cannot be read: ${issues.slice(0, 5).join("; ")}`);
  }
}

/** `schema.parse(payload)`, or {@link MalformedPayloadError} naming each field at fault. */
export function parsePayload<T>(event: string, schema: z.ZodType<T>, payload: unknown): T {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  throw new MalformedPayloadError(
    event,
    parsed.error.issues.map(
      (i) => `${i.path.length === 0 ? "(the payload)" : i.path.join(".")}: ${i.message}`,
    ),
  );
}

/**
 * The answer to a redelivery of a delivery that already finished (its `X-GitHub-Delivery` marks check run
 * `id`: `app-check-runs.ts`, de-duplication on completion): nothing is written or dispatched again.
 */
export function alreadyDone(run: { readonly id: number }): HandlerResult {
  return {
    outcome: "duplicate",
    detail: `check run ${run.id} records that this delivery already finished: nothing was done again`,
  };
}
