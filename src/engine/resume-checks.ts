/**
 * What a resumed leg must satisfy before anything runs or is written (SPEC §4, §8; research/oh-my-graph.md
 * §7.6–§7.7), each a usage error naming the fix: the leg runs the first leg's runtime with the codex
 * settings it needs again, every planned node still has its recorded ceiling, the repository is still at
 * the run's starting commit and the decision names that commit's head. Whether the action fits where the
 * run stopped is `resume-action.ts`'s.
 */
import { relative, resolve } from "node:path";
import { startingCommit } from "../evidence/evidence-tree.js";
import type { Runtime } from "../policy/disclosure.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import type { ResumableRun } from "./resume-source.js";
import type { RunGitContext } from "./run-frame.js";
import { workingDirectoryProblem } from "./run-setup.js";
import type { RunState } from "./run-state.js";
import { runtimeOptionsProblem, runtimeWarnings } from "./runtime-setup.js";

/** A refusal: nothing was run. */
export interface UsageError {
  readonly kind: "usage_error";
  readonly message: string;
}

/** The runtime a resumed leg runs, and what it will not enforce of the graph (one sentence each). */
export interface ResumedRuntime {
  readonly kind: "runtime";
  readonly runtime: Runtime;
  readonly warnings: readonly string[];
}

/**
 * The runtime the leg runs — always the first leg's, from `state.json` (a run is one CLI's run: its
 * sessions are that CLI's) — checked against what the caller gave: the `--runtime` it expects, the model
 * and `codex-config` pairs (pairs for every key the first leg recorded; their values are not recorded).
 *
 * @returns the runtime and what it will not enforce of the graph (`runtimeWarnings`), or the refusal.
 */
export function resumedRuntime(
  o: { readonly runtime?: Runtime; readonly codexConfig?: readonly string[] },
  run: ResumableRun,
): ResumedRuntime | UsageError {
  const { state, runId } = run;
  const runtime: Runtime = state.runtime;
  if (o.runtime !== undefined && o.runtime !== runtime) {
    return {
      kind: "usage_error",
      message: `run ${runId} uses runtime "${runtime}"; it cannot be resumed with runtime "${o.runtime}" (a resumed leg keeps the first leg's runtime). Nothing was run.`,
    };
  }
  const runtimeProblem = runtimeOptionsProblem(runtime, {
    ...(state.model !== undefined ? { model: state.model } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
  });
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const configProblem = runtimeFor(runtime).resumedSettingsProblem(
    runId,
    state.codex_config_keys,
    o.codexConfig,
  );
  if (configProblem !== null) return { kind: "usage_error", message: configProblem };
  return { kind: "runtime", runtime, warnings: runtimeWarnings(runtime, run.graph) };
}

/**
 * Every planned node must have its recorded ceiling: a missing one would run with no ceiling at all (a
 * resumed leg never widens a tool policy, SPEC §8). Hand-written runs record each node's own tools.
 *
 * @returns the usage-error message, or `null`.
 */
export function missingCeilingProblem(run: ResumableRun, statePath: string): string | null {
  const { state, graph } = run;
  if (state.mode !== "auto") return null;
  const bare = graph.nodes.filter((n) => n.type !== "gate" && !Object.hasOwn(state.tool_policies, n.id));
  if (bare.length === 0) return null;
  return `${statePath} records no tool policy for planned node${bare.length === 1 ? "" : "s"} ${bare.map((n) => `"${n.id}"`).join(", ")}: resuming would run ${bare.length === 1 ? "it" : "them"} without the ceiling the first leg set. Start a new run. Nothing was run.`;
}

/** Where the leg runs: the state with the repository's current place, and the head the decision is about. */
export interface ResumedRepository {
  readonly kind: "located";
  /** `state.json` as read, with `repo_dir` / `work_dir` moved when the caller gave another `repoDir`. */
  readonly state: RunState;
  /** The head SHA the decision is bound to (the caller's, else the repository's HEAD). */
  readonly headSha: string;
}

/**
 * The repository must still be where the run started: a decision is bound to the head it was given on.
 * A moved repository (`repoDir`: the action's resume job checks out elsewhere) keeps the working directory's
 * place relative to its root; HEAD must be the starting commit, and `headSha` that commit or the head it
 * merged.
 *
 * @throws git errors other than an unreadable repository (internal errors).
 */
export async function resumedRepository(
  o: { readonly repoDir?: string; readonly headSha?: string },
  run: ResumableRun,
  gitContext: RunGitContext,
): Promise<ResumedRepository | UsageError> {
  const { runId } = run;
  let state = run.state;
  if (o.repoDir !== undefined) {
    const repoDir = resolve(o.repoDir);
    const workDir = resolve(repoDir, relative(state.repo_dir, state.work_dir));
    const problem = workingDirectoryProblem(repoDir, workDir);
    if (problem !== null) return { kind: "usage_error", message: problem };
    state = { ...state, repo_dir: repoDir, work_dir: workDir };
  }
  let head: Awaited<ReturnType<typeof startingCommit>>;
  try {
    head = await startingCommit(state.repo_dir, gitContext);
  } catch (error) {
    return {
      kind: "usage_error",
      message: `the run's repository ${state.repo_dir} cannot be read (${error instanceof Error ? error.message : String(error)}): resume on the machine and checkout the run started in`,
    };
  }
  if (head.sha !== state.starting_commit.sha) {
    return {
      kind: "usage_error",
      message: `the repository ${state.repo_dir} is at ${head.sha.slice(0, 12)}, but run ${runId} started at ${state.starting_commit.sha.slice(0, 12)}: a resumed leg continues the same commit's run. Check that commit out again, or start a new run. Nothing was run.`,
    };
  }
  const headSha = o.headSha ?? head.sha;
  const allowedHeads = [head.sha, ...(head.parents.length === 2 ? [head.parents[1]!] : [])];
  if (!allowedHeads.some((sha) => sha.toLowerCase() === headSha.toLowerCase())) {
    return {
      kind: "usage_error",
      message: `head SHA ${headSha} is not the commit run ${runId} is about (${allowedHeads.join(" or ")}): an approval is bound to the head it was given on`,
    };
  }
  return { kind: "located", state, headSha };
}
