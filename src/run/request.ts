/**
 * One run, as every surface asks for it (the CLI, the action, later the bot): the typed request the run
 * service takes (`startRun`), the ports a surface plugs in, and the outcome it gets back. The request holds
 * only decided values: the verify command was already chosen once (`chooseVerifyCommand`, with who declared
 * it), the policy file already read (from the working tree or the base ref), the flags or inputs already
 * parsed. The ports are how the run reaches the world: the model CLIs, the workspace around the engine
 * (the action's agent-configuration swap and push), progress, the interrupt, and what to do on a crash.
 */

import type { RunId } from "../core/run-id.js";
import type { AutoRunResult } from "../engine/auto-run.js";
import type { HandRunResult } from "../engine/hand-run.js";
import type { RunHooks } from "../engine/leg.js";
import type { ResumeAction, ResumeResult } from "../engine/resume-run.js";
import type { PublishCommit } from "../engine/run-frame.js";
import type { PullRequestContext, RunEcho } from "../engine/run-options.js";
import type { Runtime } from "../engine/runtime-setup.js";
import type { VerifyRunResult } from "../engine/verify-run.js";
import type { IndexOverlay } from "../evidence/evidence-tree.js";
import { type ChosenVerify, chooseVerifyCommand, type VerifyChoice } from "../evidence/verify-choice.js";
import type { FragmentSource } from "../graph/load.js";
import type { AgentSource } from "../policy/agent-definition.js";
import type { ModelCliPort } from "./model-cli.js";

/** What the mode reads (SPEC §10): a goal, a graph, a verify command, or a run to continue. */
export type RunModeRequest =
  | {
      readonly kind: "auto";
      readonly goal: string;
      /** The verify command as chosen once; `empty` is reported as a usage error before anything runs. */
      readonly verify: VerifyChoice;
      readonly acceptNoBuildEvidence: boolean;
      /** The operator's launch choice (SPEC §8, seed 001): never a plan's, a policy's or PR text's. */
      readonly acceptLoadedUserConfig: boolean;
      /** `repair-attempts` (SPEC §7; 0 = off): red builds fed back to each sink's session this many times. */
      readonly repairAttempts?: number;
      /** `max-cycles` (SPEC §7; absent or 1 = one run): the goal loop's cycles (`engine/goal-loop.ts`). */
      readonly maxCycles?: number;
      /** `max-cost-usd` (SPEC §7): the goal loop's soft ceiling in USD, checked between cycles. */
      readonly maxCostUsd?: number;
      readonly runtime: Runtime;
      readonly concurrency: number;
      readonly plannerTimeoutMs: number;
    }
  | {
      readonly kind: "run";
      readonly graphText: string;
      /** A path, or `base ref main: .github/graph.yml`: for messages and the ledger. */
      readonly graphSource: string;
      /** Where the graph's `use:` fragments are read; absent, a `use:` is refused (`graph/load.ts`). */
      readonly fragments?: FragmentSource;
      /**
       * Where `agent: NAME` definitions are read (the action: the base ref); absent: the repository's
       * committed HEAD (`engine/hand-agents.ts`).
       */
      readonly agents?: AgentSource;
      readonly inputs: Readonly<Record<string, string>>;
      readonly runtime: Runtime;
      readonly concurrency?: number;
      /** The largest `success_check.verify.timeout` the graph may declare (ms). */
      readonly verifyTimeoutCeilingMs?: number;
    }
  | { readonly kind: "verify"; readonly verify: ChosenVerify }
  | {
      readonly kind: "resume";
      readonly runId: string;
      readonly action: ResumeAction;
      /** The head SHA the decision is about; default the repository's HEAD. */
      readonly headSha?: string;
      /** Where the repository is now, when the run directory was moved (the action). */
      readonly repoDirOverride?: string;
      readonly concurrency?: number;
      /** The runtime the caller expects, if it named one (it must be the run's own). */
      readonly runtime?: Runtime;
    };

/** The maintainers' policy as a run applies it (SPEC §5, §11); the verify command is in the mode. */
export interface RunPolicy {
  readonly requireEvidence: boolean;
  /** `require-tests: true` (ADR 0016); absent: false. */
  readonly requireTests?: boolean;
  /** `test-reports` patterns: the report files the verify command writes (issue 25); absent: none. */
  readonly testReports?: readonly string[];
  /** Extra planned-node grants (`auto` only). */
  readonly plannedTools?: readonly string[];
  /** `verify-repeat` from the policy file: a floor for {@link RunRequest.verifyRepeat}. */
  readonly verifyRepeat?: number;
  /** `verify-base: true` in the policy file: every run compares with the base (a workflow cannot turn it off). */
  readonly verifyBase?: boolean;
  /** Where the file was read (`describePolicySource`), named in the ledger's plan section. */
  readonly source?: string;
}

/** One run, decided. Times in ms. */
export interface RunRequest {
  readonly mode: RunModeRequest;
  /** The run id (the action mints it before creating its check run); default: minted by the engine. */
  readonly runId?: RunId;
  /** The git working tree's root (absolute). */
  readonly repoDir: string;
  /** A sub-folder of it where nodes and verify commands run, and which the build-signal scan covers. */
  readonly workingDirectory?: string;
  readonly model?: string;
  /** Codex `-c KEY=VALUE` pairs (`codex-config`); the engine refuses them on a claude run. */
  readonly codexConfig: readonly string[];
  /** `on_fail: continue` for the run (`--continue-on-fail`); default halt. Not read by a resume. */
  readonly continueOnFail?: boolean;
  /** `auto`: the attached command's timeout; `verify`: the command's (default 10 min). */
  readonly verifyTimeoutMs?: number;
  /** Variable names passed through to verify commands (`verify-env`); default none. */
  readonly verifyEnv?: readonly string[];
  /**
   * `verify-repeat` (input, `--verify-repeat`): runs per verify command, 1–10; the policy's value is a
   * floor (the larger one applies). Absent: the policy's, else once.
   */
  readonly verifyRepeat?: number;
  /**
   * `verify-base` (input, `--verify-base`; issue 25 item 3, ADR 0017): each sink's verify also runs on the
   * base — the pull request's base (`pr.baseSha`), else the merge-base with {@link verifyBaseRef}, else the
   * start commit's first parent. The policy's `verify-base: true` turns it on too.
   */
  readonly verifyBase?: boolean;
  /** CLI `--base <ref>`: `verify-base` compares with the merge-base of the start commit and this ref. */
  readonly verifyBaseRef?: string;
  /** Input `test-reports`, `--test-reports`: report globs added to the policy's (issue 25 item 1). */
  readonly testReports?: readonly string[];
  readonly policy?: RunPolicy;
  /** Commit the nodes' changes when the run ends (CLI `--commit`, the action's `push`). */
  readonly commit: boolean;
  readonly pr?: PullRequestContext;
  /** CLI `--sha`: the head the check is posted on when HEAD is a merge of it. */
  readonly postedHeadSha?: string;
  readonly runsDir: string;
  readonly surface: "action" | "cli";
  readonly knownSecrets: readonly string[];
  /** The environment children start from (scrubbed by the exec seam). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * The whole run's time bound (the action's `timeout-minutes`, the CLI's `--timeout`): at `ms` after the
   * run starts the run is stopped and ends `timed-out` (SPEC §6, exit 124). `limit` is the bound as the
   * user gave it (`"2s"`, `"340 min"`), `setting` what set it (`"--timeout"`). Absent: no bound.
   */
  readonly timeout?: RunTimeout;
}

/** A run's time bound ({@link RunRequest.timeout}). */
export interface RunTimeout {
  /** Milliseconds from the run's start, at least 1. */
  readonly ms: number;
  readonly limit: string;
  readonly setting: string;
}

/** The workspace around the engine: the action's agent-configuration swap and push (SPEC §9, §10). */
export interface WorkspacePort {
  /** Before the first model call, ahead of the CLI install: a usage-error message, or `null`. */
  readonly beforeFirstModelCall?: () => Promise<string | null>;
  /** Rewrites every working-tree snapshot (ADR 0006). */
  readonly indexOverlay?: IndexOverlay;
  /** Publishes the run's commit (push mode). */
  readonly publish?: PublishCommit;
  /** Called once the engine returned or threw (puts the pull request's files back). Never throws. */
  readonly finish?: () => Promise<void>;
}

/** How the run reaches the world. */
export interface RunPorts {
  readonly modelCli: ModelCliPort;
  readonly workspace?: WorkspacePort;
  readonly hooks?: RunHooks;
  readonly echo?: RunEcho;
  readonly signal?: AbortSignal;
  /**
   * Told when the engine threw, before the error goes on: the surface completes its check run `failure`
   * (SPEC §6: a crashed run leaves the check failed, never green or stuck in progress).
   */
  readonly crashed?: (error: unknown) => Promise<void>;
}

/** What the engine answered, whichever mode ran. `finished` carries the ledger. */
export type RunOutcome = AutoRunResult | HandRunResult | VerifyRunResult | ResumeResult;

/** The engine's answer for a mode: a resume can have nothing to retry, a hand-written graph can fail to load. */
export type OutcomeOf<K extends RunModeRequest["kind"]> = K extends "auto"
  ? AutoRunResult
  : K extends "run"
    ? HandRunResult
    : K extends "verify"
      ? VerifyRunResult
      : ResumeResult;

/** The planner's time limit in `auto` and `plan` (ms). */
export const PLANNER_TIMEOUT_MS = 20 * 60_000;

/**
 * An `auto` mode request from the operator's values, its verify command chosen here — the one call of
 * `chooseVerifyCommand` for `auto` and `plan` on every surface (the operator's command, else the policy's
 * unless accepting no build evidence; an empty one becomes the usage error the run reports).
 */
export function autoMode(o: {
  readonly goal: string;
  readonly verifyCmd?: string;
  readonly acceptNoBuildEvidence: boolean;
  readonly acceptLoadedUserConfig: boolean;
  /** `repair-attempts` (SPEC §7; 0 or absent = off). */
  readonly repairAttempts?: number;
  /** `max-cycles` (SPEC §7; 1 or absent = one run, no assessor). */
  readonly maxCycles?: number;
  /** `max-cost-usd` (SPEC §7; absent = no ceiling). */
  readonly maxCostUsd?: number;
  readonly runtime: Runtime;
  readonly concurrency: number;
  readonly policy?: { readonly verifyCmd?: string; readonly source?: string };
  readonly surface: "action" | "cli";
}): Extract<RunModeRequest, { readonly kind: "auto" }> {
  return {
    kind: "auto",
    goal: o.goal,
    verify: chooseVerifyCommand({
      ...(o.verifyCmd !== undefined ? { given: o.verifyCmd } : {}),
      acceptNoBuildEvidence: o.acceptNoBuildEvidence,
      ...(o.policy !== undefined ? { policy: o.policy } : {}),
      surface: o.surface,
    }),
    acceptNoBuildEvidence: o.acceptNoBuildEvidence,
    acceptLoadedUserConfig: o.acceptLoadedUserConfig,
    ...(o.repairAttempts !== undefined && o.repairAttempts > 0 ? { repairAttempts: o.repairAttempts } : {}),
    ...(o.maxCycles !== undefined && o.maxCycles > 1 ? { maxCycles: o.maxCycles } : {}),
    ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
    runtime: o.runtime,
    concurrency: o.concurrency,
    plannerTimeoutMs: PLANNER_TIMEOUT_MS,
  };
}
