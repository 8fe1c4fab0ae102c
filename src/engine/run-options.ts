/**
 * The options every engine driver (`runAuto`, `runHandWritten`, `runVerifyOnly`, `resumeRun`) takes alike:
 * where runs live, how model CLIs are found and spawned, what the children's environments start from, how
 * progress is told, and where the run reports. Each driver's own options extend these with what its mode
 * reads (a goal, a graph, a verify command, a run id). The run service (`src/run/`) fills them once from a
 * request and its ports. Times in ms.
 */
import type { RunId } from "../core/run-id.js";
import type { VerifyBaseSetting } from "../evidence/base-verify.js";
import type { IndexOverlay } from "../evidence/evidence-tree.js";
import type { ChildEcho } from "../proc/child-output.js";
import type { ModelCalls } from "../runtime/model-calls.js";
import type { RunHooks } from "./leg.js";
import type { PublishCommit } from "./run-frame.js";
import type { BeforeFirstModelCall, ModelEnvBuilder } from "./runtime-setup.js";

/**
 * Children's output echoed to the log, optionally fenced from the runner's workflow-command parser, at
 * most `limitBytes` of each child's output (input `output-log-limit`; `proc/child-output.ts` `ChildEcho`).
 */
export type RunEcho = ChildEcho;

/** The pull request a run gates (the action): its head, base and text. */
export interface PullRequestContext {
  readonly headSha: string;
  readonly baseRef: string;
  /** `pull_request.base.sha`: the base `verify-base` compares with (ADR 0017); absent outside a pull request. */
  readonly baseSha?: string;
  /** Title and body reach the planner only as sanitised, fenced data (SPEC §9). */
  readonly title?: string;
  readonly body?: string;
}

/** The model CLIs a run spawns: executables, the check before the first call, each call's environment. */
export interface ModelCliOptions {
  /** The `claude` executable (claude runs; required for the type's sake on codex runs, unused there). */
  readonly claudeExecutable: string;
  /** The `codex` executable (codex runs); default `codex`. */
  readonly codexExecutable?: string;
  /** Codex only: the `codex-config` pairs, `-c KEY=VALUE` on every codex call (see `RuntimeOptions`). */
  readonly codexConfig?: readonly string[];
  /** Builds one model call's child environment (`label` = node id or `planner`). */
  readonly modelEnv: ModelEnvBuilder;
  /**
   * Called once after every check that can refuse the run and before the first model call (the action
   * installs the CLI here, so a refused run installs nothing). Resolves to a usage-error message, or `null`.
   */
  readonly beforeFirstModelCall?: BeforeFirstModelCall;
  /**
   * The model calls every node, the planner and the assessor make (issue 24 item 2): the port the run
   * hands down. Absent: the real CLIs (`MODEL_CALLS`, `runtime/model-calls.ts`); the engine's tests hand a
   * scripted stand-in that spawns nothing (test/engine/scripted-calls.ts).
   */
  readonly modelCalls?: ModelCalls;
}

/** What every driver takes besides its mode's own fields. */
export interface EngineRunBase extends ModelCliOptions {
  /** Where run directories are made (`<runsDir>/<run id>/`). */
  readonly runsDir: string;
  /** Which surface the messages are worded for (`verify-cmd:` vs `--verify-cmd`). */
  readonly surface: "action" | "cli";
  /** Commit the nodes' changes when the run ends (CLI `--commit`, the action's `push`). */
  readonly commit: boolean;
  /**
   * With `commit`: publishes the commit (the action's `push`, SPEC §10). The commit is then made only when
   * the run would be `success` on it, and is the posted commit only once published (`finish-run.ts`).
   */
  readonly publish?: PublishCommit;
  /** The environment children start from (scrubbed by the exec seam). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Every known secret value: kept out of children's environments and redacted from what is written. */
  readonly knownSecrets: readonly string[];
  /**
   * Rewrites every working-tree snapshot (the verify's evidence tree, the final tree, `patch.diff`) before
   * its tree is written: the action's agent-configuration swap (SPEC §9, ADR 0006). Absent: snapshots are
   * the working tree as it is.
   */
  readonly indexOverlay?: IndexOverlay;
  readonly echo?: RunEcho;
  /** Abort to stop the running nodes (their process groups are killed); the run then ends `cancelled`. */
  readonly signal?: AbortSignal;
  readonly hooks?: RunHooks;
  /** Run id to use (the action mints it before creating the check run); default: minted by the driver. */
  readonly runId?: RunId;
  /**
   * `verify-repeat` (issue 25 item 5): every verify command runs this many times (2–10) on the same tree;
   * mixed results are flaky, never a pass (`evidence/verify.ts` `combineRepeats`). Absent: once. A resumed
   * leg keeps the first leg's.
   */
  readonly verifyRepeat?: number;
  /**
   * `verify-base` (issue 25 item 3; ADR 0017): each sink's verify also runs on this base, in a worktree of
   * its own, and the two results are classified together (`evidence/base-verify.ts`). Never a verdict.
   * Absent: off. A resumed leg does not compare (its first leg's rows keep their comparison).
   */
  readonly verifyBase?: VerifyBaseSetting;
  /**
   * Input `test-reports`, `--test-reports`: globs of the JUnit XML / TAP files the verify command writes
   * (relative to its folder), read for its test receipt, added to the policy's (issue 25 item 1).
   */
  readonly testReports?: readonly string[];
}
