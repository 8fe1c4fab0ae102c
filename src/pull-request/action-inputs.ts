/**
 * The action's inputs as the run service takes them (SPEC §10, §11): the mode and what only that mode
 * reads, and every other input, typed. `src/action/inputs.ts` reads them from the runner's `INPUT_*`
 * variables into this shape (or refuses them, every problem named).
 */

import { unreachable } from "../core/unreachable.js";
import type { Runtime } from "../engine/runtime-setup.js";
import type { IsolateSetting } from "../proc/isolate-user.js";
import type { SharedCache } from "../proc/run-home.js";

export type { IsolateSetting } from "../proc/isolate-user.js";

/** What a `mode: resume` leg does with the paused or failed run (SPEC §11: exactly one of three inputs). */
export type ResumeDecision =
  | { readonly kind: "approve"; readonly gate: string }
  | { readonly kind: "reject"; readonly gate: string }
  | { readonly kind: "retry-failed" };

/** The mode and the inputs only that mode reads. */
export type ModeInputs =
  | { readonly kind: "auto"; readonly goal: string }
  /** `graph` is a repository path (normalised, `/`-separated), read from the base ref. */
  | { readonly kind: "run"; readonly graph: string; readonly graphInputs: Readonly<Record<string, string>> }
  /** `graph` is a repository path, read from the workspace (the graph under review). */
  | { readonly kind: "lint"; readonly graph: string; readonly graphInputs: Readonly<Record<string, string>> }
  /** The engine runs the verify command once (`verify-cmd`, else the base policy's); no model (SPEC §10). */
  | { readonly kind: "verify" }
  /**
   * `approver`: the login that decided, when the evidence-gate App dispatched the resume for a writer's
   * click (`GITHUB_ACTOR` is then the App); absent: the dispatching user decided.
   */
  | {
      readonly kind: "resume";
      readonly runId: string;
      readonly decision: ResumeDecision;
      readonly approver?: string;
    }
  /** Posts the `<check-name>-ledger` artifact of the `workflow_run` event's run (SPEC §10). */
  | { readonly kind: "report" };

export interface ActionInputs {
  readonly mode: ModeInputs;
  readonly verifyCmd?: string;
  /** `verify-timeout`: the attached command's timeout in `auto`, the graph's verify ceiling in `run`. */
  readonly verifyTimeoutMs: number;
  /**
   * `timeout-minutes` (SPEC §6, §11): the whole run's bound in minutes (1..1440, default
   * {@link DEFAULT_TIMEOUT_MINUTES}); at it the engine stops the run and concludes `timed_out`.
   */
  readonly timeoutMinutes: number;
  readonly verifyEnv: readonly string[];
  /** Input `verify-repeat` (1–10): runs per verify command; absent = the policy's, else once. */
  readonly verifyRepeat?: number;
  /** Input `verify-base` (ADR 0017): compare each sink's verify with the pull request's base. */
  readonly verifyBase?: boolean;
  /** Input `test-reports`: report globs added to the policy's (issue 25 item 1). */
  readonly testReports?: readonly string[];
  readonly acceptNoBuildEvidence: boolean;
  /**
   * `runtime: claude|codex` (default `claude`): the CLI `auto` and `run` spawn. `resume` ignores it (the
   * run's own runtime is read from its `state.json`; the input always arrives, with its default).
   */
  readonly runtime: Runtime;
  /**
   * `accept-loaded-user-config` (SPEC §8, seed 001): mode auto only — planned nodes load the operator's
   * configuration (in the action: the base branch's project files, restored before any CLI starts, each CLI
   * having a fresh HOME / CODEX_HOME). Refused in every other mode.
   */
  readonly acceptLoadedUserConfig: boolean;
  /**
   * `repair-attempts` (SPEC §7, mode auto; default 0 = off): an integer 0..10; the attached verify command
   * becomes each sink's completion gate, a red build fed back to the sink's session this many times.
   */
  readonly repairAttempts: number;
  /** `max-cycles` (SPEC §7, mode auto; default 1 = one run): the goal loop's cycles, 1..5. */
  readonly maxCycles: number;
  /** `max-cost-usd` (SPEC §7, mode auto): the goal loop's soft ceiling in USD, checked between cycles. */
  readonly maxCostUsd?: number;
  readonly model?: string;
  readonly claudeVersion: string;
  /** `codex-version`: the `@openai/codex` version installed when `codex` is not on PATH. */
  readonly codexVersion: string;
  readonly anthropicApiKey?: string;
  readonly claudeCodeOauthToken?: string;
  /** `openai-api-key`: the codex CLI's credential (a codex run without it stops before any install). */
  readonly openaiApiKey?: string;
  /**
   * `codex-config`: its `key=value` lines (blank and `#` lines skipped, each trimmed), passed as
   * `-c key=value` on every codex call (SPEC §10). Checked against the runtime in `auto` and `run`; a
   * `resume` leg gives them to the engine, which checks them against the run's recorded runtime.
   */
  readonly codexConfig: readonly string[];
  /** Empty only in `lint`, which makes no API call. */
  readonly githubToken: string;
  readonly checkName: string;
  readonly workingDirectory?: string;
  /** Absent: 4 in `auto`, the graph's own in `run`, the first leg's in `resume`. */
  readonly concurrency?: number;
  readonly continueOnFail: boolean;
  /**
   * `push` (SPEC §10): commit the nodes' verified changes and push them to the PR branch (same-repository PRs;
   * `auto` and `run` only). The run starts from `pull_request.head.sha`, which the action checks out itself.
   */
  readonly push: boolean;
  /**
   * `push-token`: the token `push` pushes with (an App installation token or a PAT), because pushes made with
   * `GITHUB_TOKEN` start no other workflow. Absent: `github-token`. Masked; reaches that one `git push` only.
   */
  readonly pushToken?: string;
  /** Input `comment` (default true): keep one sticky PR comment with the ledger's short form (SPEC §11). */
  readonly comment: boolean;
  /** `allowed-bots`: bot logins (e.g. `renovate[bot]`) whose comment commands are accepted (SPEC §9). */
  readonly allowedBots: readonly string[];
  /** `allow-pull-request-target: true`: the loud opt-in to run on `pull_request_target` (SPEC §11). */
  readonly allowPullRequestTarget: boolean;
  /**
   * `isolate-user` (default `auto`): run the verify command and the model CLIs as a separate unprivileged
   * user where it can be set up (`proc/isolate-user.ts`); `true` refuses the run where it cannot, `false`
   * turns it off. Either way off is said once, loudly, in the log and the summary.
   */
  readonly isolateUser: IsolateSetting;
  /**
   * `pr-user-cache` (default none): shared caches (`npm`, `pip`) the separate user's builds keep between
   * runs (`proc/run-home.ts`); every other cache, its `HOME` and `TMPDIR` are fresh per run.
   */
  readonly prUserCache: readonly SharedCache[];
  /**
   * `output-log-limit` (bytes; default 2 MiB): the most of one child's output the step log shows, its first
   * and last half with a marker between (`proc/echo-budget.ts`).
   */
  readonly outputLogLimit: number;
  /** `pr`: the pull request a `workflow_dispatch` run gates (else the dispatch payload's `inputs.pr`). */
  readonly pr?: number;
  /**
   * `report-to` (issue 11, docs/bot.md): `check-run` (default) — this step posts the check run with
   * `github-token`; `bot` — the evidence-gate App owns it: no check-run or comment call at all, the ledger
   * artifact and the job summary only. `auto`, `run`, `verify` and `resume` only.
   */
  readonly reportTo: ReportTo;
}

/** Who posts the check run (input `report-to`). */
export type ReportTo = "check-run" | "bot";

export type InputsResult =
  | { readonly ok: true; readonly inputs: ActionInputs }
  | { readonly ok: false; readonly errors: readonly string[] };

/** The Claude Code version installed when `claude` is not on PATH (input `claude-version`). */
export const DEFAULT_CLAUDE_VERSION = "2.1.332";

/** The Codex CLI version installed when `codex` is not on PATH (input `codex-version`; SPEC §11). */
export const DEFAULT_CODEX_VERSION = "0.169.0";

/**
 * `timeout-minutes` when the input is not given: below GitHub's default job limit (360 minutes), so the
 * engine stops the run and completes its check run `timed_out` before the runner kills the step.
 */
export const DEFAULT_TIMEOUT_MINUTES = 340;

/** `concurrency` of an `auto` run when the input is not given. */
export const DEFAULT_AUTO_CONCURRENCY = 4;

/** The first line of what the run is about, for the check run's opening summary. */
export function describeMode(mode: ModeInputs): string {
  switch (mode.kind) {
    case "auto":
      return mode.goal.split("\n")[0] ?? "";
    case "run":
      return `run the graph ${mode.graph} from the base ref`;
    case "verify":
      return "run the verify command (mode verify: no model)";
    case "lint":
      return `lint ${mode.graph}`;
    case "resume":
      return `resume run ${mode.runId}: ${mode.decision.kind === "retry-failed" ? "retry the failed nodes" : `${mode.decision.kind} gate ${mode.decision.gate}`}`;
    case "report":
      return "post the ledger of a pull request's workflow run";
    default:
      return unreachable(mode);
  }
}
