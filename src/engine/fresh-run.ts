/**
 * The opening of a fresh run, shared by `auto`, `run` and `verify` once every check that can refuse the
 * run has passed (SPEC §5: a refused run spends and writes nothing):
 *
 * - {@link prepareFreshRepository}: the repository checks of `run-setup.ts`, from a driver's options;
 * - {@link openFreshRun}: the redactor of the known secrets, the run directory `<runsDir>/<run id>/` with
 *   its lock taken, the `run_started` event, and the {@link RunFrame} every ending reads;
 * - {@link startRunState}: the first `state.json` of the modes a `resume` can continue (`auto`, `run`);
 * - {@link ignoredBaselineOf}: the git-ignored files as the run found them (ADR 0003 amendment).
 *
 * What a run then does — plan and run a leg, or run one verify — is its driver's.
 */
import { basename, isAbsolute, relative } from "node:path";
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import { createRedactor } from "../core/redact.js";
import { mintRunId } from "../core/run-id.js";
import { type IgnoredFiles, ignoredFilesFingerprint } from "../evidence/ignored-files.js";
import type { LedgerPolicy, PlanSection } from "../ledger/ledger.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { RunFrame, RunGitContext } from "./run-frame.js";
import type { EngineRunBase, PullRequestContext } from "./run-options.js";
import { type PreparedRepository, type PrepareOptions, prepareRepository } from "./run-setup.js";
import { RUN_STATE_SCHEMA_VERSION, type RunState } from "./run-state.js";
import { RunStateStore } from "./run-state-store.js";

/** The base-branch policy facts a fresh run records: `require-evidence`, and where it was read. */
export interface RecordedPolicy {
  readonly requireEvidence?: boolean;
  /** `require-tests: true` (ADR 0016): a verify is evidence only with a receipt that ran a test. */
  readonly requireTests?: boolean;
  /** `test-reports`: report files the verify command writes (issue 25). */
  readonly testReports?: readonly string[];
  /** `verify-repeat` as the file set it (the run's own count is the request's; for the ledger's words). */
  readonly verifyRepeat?: number;
  /** `verify-base: true` as the file set it (for the ledger's words). */
  readonly verifyBase?: boolean;
  readonly source?: string;
}

/**
 * The plan section's `policy` for a run whose options carry the policy file's values: where it was read
 * and what it set ({@link LedgerPolicy}); `{}` when no file applied (no `source`).
 */
export function planPolicy(policy: RecordedPolicy | undefined): { readonly policy?: LedgerPolicy } {
  if (policy?.source === undefined) return {};
  return {
    policy: {
      source: policy.source,
      requireEvidence: policy.requireEvidence === true,
      ...(policy.requireTests === true ? { requireTests: true } : {}),
      ...(policy.verifyRepeat !== undefined ? { verifyRepeat: policy.verifyRepeat } : {}),
      ...(policy.verifyBase === true ? { verifyBase: true } : {}),
      ...(policy.testReports !== undefined && policy.testReports.length > 0
        ? { testReports: [...policy.testReports] }
        : {}),
    },
  };
}

/** Where a fresh run stands, as a driver's options say: the repository, its sub-folder, the PR's head. */
export interface FreshRepositoryOptions {
  readonly repoDir: string;
  readonly workingDirectory?: string;
  readonly pr?: Pick<PullRequestContext, "headSha" | "baseRef">;
  /** CLI `--sha`: the head the check is posted on when HEAD is a merge of it. */
  readonly postedHeadSha?: string;
}

/**
 * `prepareRepository` for a driver's options: the working directory lies inside the repository, the
 * starting commit is read (a test merge commit recognised from the PR's head or `--sha`), and `commit`
 * has a clean tree.
 *
 * @returns the prepared repository, or a usage-error message (nothing ran).
 * @throws git errors other than "not a repository" / "no commit" (internal errors).
 */
export function prepareFreshRepository(
  o: FreshRepositoryOptions,
  setup: Pick<PrepareOptions, "commit" | "gitContext">,
): ReturnType<typeof prepareRepository> {
  return prepareRepository({
    repoDir: o.repoDir,
    ...(o.workingDirectory !== undefined ? { workingDirectory: o.workingDirectory } : {}),
    commit: setup.commit,
    gitContext: setup.gitContext,
    ...(o.pr ? { pr: { headSha: o.pr.headSha, baseRef: o.pr.baseRef } } : {}),
    ...(o.postedHeadSha !== undefined ? { postedHeadSha: o.postedHeadSha } : {}),
  });
}

/** The git context of a run that snapshots through the driver's `indexOverlay` (`auto`, `run`). */
export function gitContextOf(
  o: Pick<EngineRunBase, "baseEnv" | "knownSecrets" | "indexOverlay">,
): RunGitContext {
  return {
    baseEnv: o.baseEnv,
    knownSecrets: o.knownSecrets,
    ...(o.indexOverlay !== undefined ? { indexOverlay: o.indexOverlay } : {}),
  };
}

/**
 * The subject of a hand-written graph's `--commit` commit (after `evidence-gate: `): the graph's `name`, else
 * `run <graph file>` with the file as the repository knows it — relative to `repoDir` when it lies inside,
 * else its base name — never the machine's absolute path (`run /home/me/work/repo/graphs/fix.yaml`).
 */
export function graphCommitSubject(name: string | null, source: string, repoDir: string): string {
  if (name !== null) return name;
  if (!isAbsolute(source)) return `run ${source}`;
  const inside = relative(repoDir, source);
  return `run ${inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : basename(source)}`;
}

/**
 * The frame's `commit` for a driver's `commit` / `publish` options: `null` without `commit`, else the
 * commit's first line and, for the action's push, how it is published (SPEC §10).
 */
export function frameCommit(
  o: Pick<EngineRunBase, "commit" | "publish">,
  message: string,
): RunFrame["commit"] {
  return o.commit ? { message, ...(o.publish !== undefined ? { publish: o.publish } : {}) } : null;
}

/** What a fresh run's frame holds besides its run directory: the facts checked before it opened. */
export interface FreshRunOpening<M extends RunFrame["mode"]> {
  readonly mode: M;
  /**
   * The `run_started` event's `leg`: `fresh` for `run` and `verify`; absent for `auto`, whose `run_started`
   * has never named its leg.
   */
  readonly leg?: "fresh";
  readonly goal?: string;
  readonly runtime: Runtime;
  readonly model?: string;
  readonly repo: PreparedRepository;
  readonly gitContext: RunGitContext;
  readonly answer: BuildEvidenceAnswer;
  /** The pull request's head commit (the ledger's `headSha`), when the run gates one. */
  readonly headSha?: string;
  readonly requireEvidence: boolean;
  readonly commit: RunFrame["commit"];
}

/**
 * Opens a fresh run: mints its id (unless the caller minted it: the action creates the check run first),
 * makes `<runsDir>/<run id>/` behind a redactor of the known secrets, takes its lock (a new directory's
 * lock is free; taken so a `resume` started meanwhile is refused), and appends `run_started`.
 *
 * Known secrets (4+ characters) never reach what the run writes or hands on: the run directory, the
 * hooks' snapshots, the returned ledger (SPEC §9). A child can still print them (the verify command can
 * read the parent's initial environment through /proc), so this redacts output; it prevents nothing.
 *
 * @returns the run's frame; its `startedAt` is now (ISO-8601).
 */
export function openFreshRun<M extends RunFrame["mode"]>(
  o: Pick<EngineRunBase, "runsDir" | "knownSecrets" | "runId">,
  opening: FreshRunOpening<M>,
): RunFrame & { readonly mode: M } {
  const runId = o.runId ?? mintRunId();
  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  dir.lock();
  const startedAt = new Date().toISOString();
  dir.event({
    type: "run_started",
    runId,
    mode: opening.mode,
    ...(opening.leg !== undefined ? { leg: opening.leg } : {}),
  });
  const { repo } = opening;
  return {
    runId,
    mode: opening.mode,
    ...(opening.goal !== undefined ? { goal: opening.goal } : {}),
    runtime: opening.runtime,
    ...(opening.model !== undefined ? { model: opening.model } : {}),
    repoDir: repo.repoDir,
    gitContext: opening.gitContext,
    start: { sha: repo.start.sha, tree: repo.start.tree, description: repo.startDescription },
    ...(opening.headSha !== undefined ? { headSha: opening.headSha } : {}),
    answer: opening.answer,
    requireEvidence: opening.requireEvidence,
    commit: opening.commit,
    redactor,
    dir,
    startedAt,
  };
}

/** What the first `state.json` records besides the frame's facts. Times in ms. */
export interface FirstRunState {
  /** `run`: where the hand-written graph came from (a path, `base ref main: .github/graph.yml`). */
  readonly graphSource?: string;
  /** The run's `codex-config` pairs: only their keys are recorded, on codex (`ModelRuntime.recordedSettings`). */
  readonly codexConfig?: readonly string[];
  readonly inputs: Readonly<Record<string, string>>;
  readonly repo: PreparedRepository;
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  readonly verify: RunState["verify"];
  readonly policy?: RecordedPolicy;
  readonly toolPolicies: Readonly<Record<string, ToolPolicy>>;
  readonly plan: PlanSection | null;
}

/**
 * Seeds and saves the run's first `state.json` (SPEC §4 "State"): no node record, no row, one open
 * `fresh` leg started at the frame's `startedAt`.
 *
 * @returns the store the leg changes. Throws when the write fails (an internal error).
 */
export function startRunState(
  frame: RunFrame & { readonly mode: RunState["mode"] },
  first: FirstRunState,
): RunStateStore {
  const store = new RunStateStore(frame.dir, {
    schema_version: RUN_STATE_SCHEMA_VERSION,
    run_id: frame.runId,
    mode: frame.mode,
    ...(frame.goal !== undefined ? { goal: frame.goal } : {}),
    ...(first.graphSource !== undefined ? { graph_source: first.graphSource } : {}),
    runtime: frame.runtime,
    ...(frame.model !== undefined ? { model: frame.model } : {}),
    ...runtimeFor(frame.runtime).recordedSettings(first.codexConfig),
    inputs: { ...first.inputs },
    build_evidence: frame.answer,
    starting_commit: frame.start,
    start_clean: first.repo.startClean,
    repo_dir: frame.repoDir,
    work_dir: first.repo.workDir,
    concurrency: first.concurrency,
    on_fail: first.onFail,
    verify: first.verify,
    ...(first.policy
      ? {
          policy: {
            require_evidence: first.policy.requireEvidence === true,
            ...(first.policy.requireTests === true ? { require_tests: true } : {}),
            ...(first.policy.testReports !== undefined && first.policy.testReports.length > 0
              ? { test_reports: first.policy.testReports }
              : {}),
            ...(first.policy.source !== undefined ? { source: first.policy.source } : {}),
          },
        }
      : {}),
    tool_policies: first.toolPolicies,
    planning_calls: [],
    plan: first.plan,
    rows: [],
    nodes: {},
    gates: {},
    paused: null,
    legs: [{ started_at: frame.startedAt, kind: "fresh" }],
  });
  store.save();
  return store;
}

/**
 * The git-ignored files as the run found them, before any model call: each verify is compared with this
 * (ADR 0003, amendment 2026-11-29) — a pass that rests on ignored files on no commit is not success. Only
 * this run's own directory is left out (the engine writes state.json and events there); other files under
 * the runs folder — a node could plant one that the build imports — are fingerprinted like any ignored file.
 */
export function ignoredBaselineOf(frame: RunFrame, runsDir: string): Promise<IgnoredFiles> {
  return ignoredFilesFingerprint(frame.repoDir, {
    ...frame.gitContext,
    exclude: [frame.dir.path],
    excludeRunDirectoriesUnder: runsDir,
  });
}
