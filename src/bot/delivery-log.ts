/**
 * The bot's log: one JSON line per webhook delivery (and one per start, stop or redelivery sweep), on
 * stdout. A line names the delivery, the event, the repository, the outcome and the time taken; it never
 * holds a token, the private key, the webhook secret or the payload body (docs/bot.md, "Logs"). Free text
 * that could echo a value (an error message) passes through the redactor of the bot's own secrets first.
 */
import { createRedactor } from "../core/redact.js";

/** One delivery's line. `ms` is wall time from the first byte read to the answer sent (refused, ignored) or to the end of the work (accepted). */
export interface DeliveryLine {
  /** `X-GitHub-Delivery` (a GUID), or `null` when the request had none. */
  readonly delivery: string | null;
  /** `X-GitHub-Event`, or `null`. */
  readonly event: string | null;
  /** The payload's `action`, once the signature was verified. */
  readonly action?: string | null;
  /** `OWNER/NAME` of the payload's repository, once the signature was verified. */
  readonly repository?: string | null;
  /** The HTTP status answered. */
  readonly status: number;
  /** What the bot did, e.g. `check-queued`, `completed:failure`, `ignored`, `bad-signature`. */
  readonly outcome: string;
  /**
   * Wall time from the first byte read to the answer, ms — for an accepted delivery, whose line is
   * written when its work finished; `ms` is then the time to the end of the work.
   */
  readonly answeredMs?: number;
  readonly ms: number;
  /** One sentence: why (a refusal, an ignored event, an error message — redacted). */
  readonly detail?: string;
}

export interface BotLog {
  delivery(line: DeliveryLine): void;
  /** A line that is not about one delivery (`start`, `stop`, `redeliver`, `reconcile`, Octokit's retry warnings). */
  note(kind: string, fields: Readonly<Record<string, string | number | boolean | null>>): void;
}

/**
 * A log writing JSON lines to `write` (default: stdout), with `secrets` (the webhook secret, the private
 * key) redacted from every string field.
 */
export function createBotLog(o: {
  readonly secrets: readonly string[];
  readonly write?: (line: string) => void;
  readonly now?: () => Date;
}): BotLog {
  // Each line of a PEM key is its own form: a key echoed in part is still caught.
  const redactor = createRedactor(o.secrets.flatMap((s) => [s, ...s.split("\n")]));
  const write = o.write ?? ((line: string) => void process.stdout.write(line));
  const now = o.now ?? (() => new Date());
  const emit = (fields: Record<string, unknown>): void => {
    const clean = Object.fromEntries(
      Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, typeof v === "string" ? redactor.text(v) : v]),
    );
    write(`${JSON.stringify({ time: now().toISOString(), ...clean })}\n`);
  };
  return {
    delivery: (line) => emit({ kind: "delivery", ...line }),
    note: (kind, fields) => emit({ kind, ...fields }),
  };
}
