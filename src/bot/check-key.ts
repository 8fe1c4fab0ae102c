/**
 * What the App's check run records in its `external_id` (SPEC §2.3: "re-runs the recorded workflow run"):
 * the pull request it was created for and the workflow run (id and attempt) that last wrote it. GitHub keeps
 * it with the check run, so the bot needs no store of its own: every handler reads it back from the check
 * run it finds by name and head SHA.
 *
 * Form: `evidence-gate-bot` then `:pr=<number>` when the pull request is known, then
 * `:run=<workflow run id>:attempt=<n>` once a workflow run wrote it, then `:resume=<run id>` while a
 * dispatched resume of that evidence-gate run is awaited (a writer clicked Approve / Reject), then `:verify` on a check run a Re-verify created, then `:next` once a
 * later check run on the same head took over from it (a Re-run, a Re-verify, a newer workflow run after it
 * completed: GitHub's "requesting a new check run", issue 23 item 1) — e.g.
 * `evidence-gate-bot:pr=42:run=30433642:attempt=1:resume=20261202-040000-a1b2c3`.
 */

/** One attempt of one workflow run (`workflow_run.id`, `workflow_run.run_attempt`). */
export interface RunAttempt {
  readonly id: number;
  readonly attempt: number;
}

export interface CheckKey {
  readonly pullRequest: number | null;
  readonly run: RunAttempt | null;
  /**
   * The evidence-gate run id whose resume workflow the bot dispatched and now waits for; absent or `null`:
   * none. The resume workflow's completion is matched by it (`resume-run-handler.ts`).
   */
  readonly resume?: string | null;
  /**
   * `true` on a check run a writer's Re-verify created (`reverify.ts`): it awaits the `workflow_dispatch` run
   * of the workflow in `mode: verify` that the click dispatched. Written `:verify`.
   */
  readonly verify?: boolean;
  /** `true` once a later check run on the same head took over: this one is history and is never written again. */
  readonly next?: boolean;
}

const PREFIX = "evidence-gate-bot";
const FORM =
  /^evidence-gate-bot(?::pr=([1-9]\d{0,9}))?(?::run=([1-9]\d{0,15}):attempt=([1-9]\d{0,4}))?(?::resume=(\d{8}-\d{6}-[0-9a-f]{6}))?(:verify)?(:next)?$/;

/** The `external_id` for `key`. */
export function formatCheckKey(key: CheckKey): string {
  const pr = key.pullRequest === null ? "" : `:pr=${key.pullRequest}`;
  const run = key.run === null ? "" : `:run=${key.run.id}:attempt=${key.run.attempt}`;
  const resume = key.resume === undefined || key.resume === null ? "" : `:resume=${key.resume}`;
  const verify = key.verify === true ? ":verify" : "";
  return `${PREFIX}${pr}${run}${resume}${verify}${key.next === true ? ":next" : ""}`;
}

/** The key an `external_id` holds, or `null` when it is not one the bot wrote. */
export function parseCheckKey(externalId: string | null | undefined): CheckKey | null {
  const m = FORM.exec(externalId ?? "");
  if (m === null) return null;
  return {
    pullRequest: m[1] === undefined ? null : Number(m[1]),
    run: m[2] === undefined ? null : { id: Number(m[2]), attempt: Number(m[3]) },
    ...(m[4] === undefined ? {} : { resume: m[4] }),
    ...(m[5] === undefined ? {} : { verify: true }),
    ...(m[6] === undefined ? {} : { next: true }),
  };
}

/**
 * How the event's run attempt compares with the one a check run records: a later workflow run (higher id:
 * GitHub's ids grow) or a later attempt of the same run is `newer`; the same attempt is `same`.
 * A check run that records no run yet makes any attempt `newer`.
 */
export function compareAttempt(event: RunAttempt, recorded: CheckKey | null): "newer" | "same" | "older" {
  const run = recorded?.run ?? null;
  if (run === null) return "newer";
  if (event.id !== run.id) return event.id > run.id ? "newer" : "older";
  if (event.attempt === run.attempt) return "same";
  return event.attempt > run.attempt ? "newer" : "older";
}
