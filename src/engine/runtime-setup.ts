/**
 * The run's model CLI, chosen run-wide (SPEC §4, §10, §11 `runtime`): what `auto`, `run` and `resume`
 * check about it before anything is billed, and what the runtime cannot honour in a graph.
 *
 * Checked at start, as usage errors (nothing runs): the CLI can be found on the run's PATH; the model and
 * the `codex-config` pairs are ones the runtime takes. Each difference between claude and codex — what
 * codex cannot honour (a node's `agent:`, `budget_usd`, `allowed_tools`; research/oh-my-graph.md §4.5, ADR
 * 0026) among them — is the runtime's own (`src/runtime/claude-runtime.ts`, `codex-runtime.ts`): this
 * module asks the run's {@link runtimeFor} and never compares the name.
 */
import type { Graph } from "../graph/graph.js";
import type { Runtime } from "../policy/disclosure.js";
import { findExecutable } from "../proc/which.js";
import { runtimeFor } from "../runtime/runtime-for.js";

export type { Runtime };

/**
 * The model-CLI options every entry point (`runAuto`, `runHandWritten`, `resumeRun`) takes. The runtime
 * is the run's (`resumeRun` reads it from `state.json`); executables are looked up on the run's PATH.
 */
export interface RuntimeOptions {
  /** `claude` (default) or `codex`: which CLI every model call of the run spawns. */
  readonly runtime?: Runtime;
  /** Path or name of the `claude` executable (claude runs). */
  readonly claudeExecutable: string;
  /** Path or name of the `codex` executable (codex runs); default `codex`. */
  readonly codexExecutable?: string;
  /**
   * Codex only: the `codex-config` input / flag, one `KEY=VALUE` per entry (parse the multi-line text
   * with `parseCodexConfig`), passed as `-c KEY=VALUE` on every codex call of the run — the planner's
   * included — before the engine's own boundary flags, so it can point codex at a gateway but never
   * override the sandbox, `approval_policy` or the isolation items (SPEC §10). Not recorded in
   * `state.json` (a provider setting may carry a header secret): a resumed leg is given it again.
   */
  readonly codexConfig?: readonly string[];
}

/**
 * Builds one model call's complete child environment (SPEC §9). `label` names the call (a node id, or
 * `planner`); `runtime` is the run's — a `resume` learns it from `state.json` — so the caller can hand the
 * model CLI its own runtime's credential and nothing else (`claude`: `ANTHROPIC_*` / `CLAUDE_CODE_OAUTH_TOKEN`;
 * `codex`: `OPENAI_API_KEY` / `CODEX_API_KEY`), and decide `HOME` / `CODEX_HOME`.
 */
export type ModelEnvBuilder = (label: string, runtime: Runtime) => Readonly<Record<string, string>>;

/**
 * The model CLI could not be set up (the action's npm install of it failed, or the tool cache's copy cannot
 * be run): the runner's environment failed, not the operator's inputs — the run ends `failure` (conclusion
 * rule `setup-failed`), never as a usage error (issue 26).
 */
export interface CliSetupFailure {
  readonly kind: "setup-failed";
  /** One or more sentences naming the package and what npm (or the tool cache) said. */
  readonly message: string;
}

/**
 * Called once, after every check that can refuse the run and before the first model call, with the run's
 * runtime (the action checks that runtime's credential input and finds or installs its CLI here, so a
 * refused run installs nothing). Resolves to a usage-error message or a {@link CliSetupFailure} to stop
 * the run, or `null` to go on.
 */
export type BeforeFirstModelCall = (runtime: Runtime) => Promise<string | CliSetupFailure | null>;

/**
 * The engine's result for a model CLI that cannot be used: a usage error (a message), or a setup failure
 * (`setup_failed`, the runner's environment).
 */
/** An engine result: the model CLI could not be set up ({@link CliSetupFailure}). */
export interface SetupFailed {
  readonly kind: "setup_failed";
  readonly message: string;
}

export function modelCliEnd(
  problem: string | CliSetupFailure,
): { readonly kind: "usage_error"; readonly message: string } | SetupFailed {
  return typeof problem === "string"
    ? { kind: "usage_error", message: problem }
    : { kind: "setup_failed", message: problem.message };
}

/** The executable the run spawns for `runtime`. */
export function executableFor(runtime: Runtime, o: RuntimeOptions): string {
  return runtimeFor(runtime).executable(o);
}

/**
 * Why the run's model-CLI options cannot work, as one usage-error message naming the option; `null` when
 * they can. Claude: no `codex-config`. Codex: `--model` must be usable as `-m`, and each `codex-config`
 * pair must be a `KEY=VALUE` with a dotted-path key.
 */
export function runtimeOptionsProblem(
  runtime: Runtime,
  o: { readonly model?: string; readonly codexConfig?: readonly string[] },
): string | null {
  return runtimeFor(runtime).optionsProblem(o);
}

/** The usage error when the run's model CLI cannot be found on the run's PATH; `null` when it can. */
export function missingCliProblem(
  runtime: Runtime,
  executable: string,
  baseEnv: Readonly<Record<string, string | undefined>>,
): string | null {
  // The model child's PATH is the run's own (`buildChildEnv` keeps it); building a model env here would
  // mint a HOME in the action for nothing.
  if (findExecutable(executable, baseEnv.PATH) !== null) return null;
  const where = `${JSON.stringify(executable)} is not an executable${executable.includes("/") ? "" : " on PATH"}`;
  return runtimeFor(runtime).missingCliMessage(where);
}

/** What {@link modelCliProblem} reads: the executables, the caller's check, the run's environment. */
export interface ModelCliReadiness extends RuntimeOptions {
  readonly beforeFirstModelCall?: BeforeFirstModelCall;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * Whether the run's first model call can be made, once every other check passed: the caller's
 * `beforeFirstModelCall` (the action's credential check and CLI install) says nothing against it, then —
 * with `findExecutable` — the runtime's CLI is on the run's PATH (`missingCliProblem`; a graph of gates
 * only spawns no CLI).
 *
 * @returns the usage-error message or the setup failure, or `null` when the run may go on.
 */
export async function modelCliProblem(
  o: ModelCliReadiness,
  runtime: Runtime,
  check: { readonly findExecutable: boolean },
): Promise<string | CliSetupFailure | null> {
  const setupError = (await o.beforeFirstModelCall?.(runtime)) ?? null;
  if (setupError !== null) return setupError;
  if (!check.findExecutable) return null;
  return missingCliProblem(runtime, executableFor(runtime, o), o.baseEnv);
}

/**
 * Why the run's runtime cannot run `graph` as written, as one usage-error message naming every node and
 * the field; `null` when it can. Codex: a node with `agent:` (Go `ValidateGraphForRuntime`: codex has no
 * subagents, and running the node as plain codex would be a different node). Claude: nothing.
 */
export function runtimeGraphProblem(runtime: Runtime, graph: Graph): string | null {
  return runtimeFor(runtime).graphProblem(graph);
}

/**
 * What the plan section must say about a graph on the run's runtime, one line per node (SPEC §6, §9):
 * - every `permission_mode: bypassPermissions` node (hand-written graphs only): it runs with permissions
 *   bypassed — on claude with no tool-call approval and `IS_SANDBOX=1` in that node's environment only
 *   (claude refuses the mode as root without it), on codex with no sandbox (`danger-full-access`);
 * - codex: every `budget_usd` — not a refusal, because the node's timeout (its own, or the 20m default)
 *   still bounds it; the warning names that timeout.
 * The entry points print these, and the plan section carries them.
 */
export function runtimeWarnings(runtime: Runtime, graph: Graph): string[] {
  const model = runtimeFor(runtime);
  return graph.nodes.flatMap((node, i) =>
    node.type === "gate" ? [] : model.nodeWarnings(node, graph.spec.nodes?.[i]?.timeout !== undefined),
  );
}
