/**
 * The run's model CLI, chosen run-wide (SPEC §4, §10, §11 `runtime`): what `auto`, `run` and `resume`
 * check about it before anything is billed, and what the Codex runtime cannot honour in a graph.
 *
 * Checked at start, as usage errors (nothing runs): the CLI can be found on the run's PATH; on codex, the
 * model can be passed to `-m` and every `codex-config` pair is a `KEY=VALUE` codex takes (`-c`).
 *
 * What codex cannot honour (research/oh-my-graph.md §4.5, ADR 0026):
 * - a node's `agent:` (a Claude Code subagent, `claude --agent NAME`) — codex has no subagents, so a codex
 *   run of a graph declaring one is a usage error before anything runs ({@link runtimeGraphProblem});
 *   planned nodes may not carry one at all;
 * - `budget_usd` — codex reports no USD, so there is no `--max-budget-usd` and no post-hoc check: a
 *   WARNING per node (not a refusal) naming the timeout that still bounds it.
 * - `allowed_tools` has no Codex rendering (codex has no per-tool grammar): the sandbox from
 *   `permission_mode` binds instead, which the plan section's disclosure says for the whole run.
 */
import { formatDuration } from "../graph/duration.js";
import type { Graph } from "../graph/graph.js";
import type { Runtime } from "../policy/disclosure.js";
import { findExecutable } from "../proc/which.js";
import { isProxyProviderPair } from "../proxy/codex-provider.js";
import { codexModelProblem, parseCodexConfig } from "../runtime/codex-argv.js";

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

/**
 * The keys of `codex-config` pairs (`KEY=VALUE` → `KEY`), as `state.json` records them (no values). The key
 * proxy's own provider pairs are left out: every leg adds them itself (`src/run/model-proxy.ts`).
 */
export function codexConfigKeys(pairs: readonly string[] | undefined): string[] {
  // The proxy's pairs come last: drop the last copy of each (an operator's identical pair stays).
  const kept = [...(pairs ?? [])];
  const dropped = new Set<string>();
  for (let i = kept.length - 1; i >= 0; i--) {
    const pair = kept[i]!;
    if (isProxyProviderPair(pair) && !dropped.has(pair)) {
      dropped.add(pair);
      kept.splice(i, 1);
    }
  }
  return kept.map((pair) => pair.slice(0, pair.indexOf("=")).trim());
}

/**
 * Why a resumed codex leg cannot run with the `codex-config` it was given: the first leg had pairs for
 * `recorded` keys and this leg lacks one of them (without its provider pairs codex would talk to
 * another model server, or to none); `null` when every recorded key is given again.
 */
export function resumedCodexConfigProblem(
  runId: string,
  recorded: readonly string[] | undefined,
  given: readonly string[] | undefined,
): string | null {
  const have = new Set(codexConfigKeys(given));
  const missing = (recorded ?? []).filter((key) => !have.has(key));
  if (missing.length === 0) return null;
  return `run ${runId} was started with codex-config pairs for ${missing.map((k) => `"${k}"`).join(", ")}, which state.json does not record (a provider setting may carry a secret): give the same pairs again (--codex-config KEY=VALUE, or the codex-config input). Nothing was run.`;
}

/** The executable the run spawns for `runtime`. */
export function executableFor(runtime: Runtime, o: RuntimeOptions): string {
  return runtime === "codex" ? (o.codexExecutable ?? "codex") : o.claudeExecutable;
}

/**
 * Why the run's model-CLI options cannot work, as one usage-error message naming the option; `null` when
 * they can. Claude: nothing to check here. Codex: `--model` must be usable as `-m`, and each
 * `codex-config` pair must be a `KEY=VALUE` with a dotted-path key.
 */
export function runtimeOptionsProblem(
  runtime: Runtime,
  o: { readonly model?: string; readonly codexConfig?: readonly string[] },
): string | null {
  if (runtime !== "codex") {
    return o.codexConfig !== undefined && o.codexConfig.length > 0
      ? "codex-config applies only to the codex runtime: pass --runtime codex (input runtime: codex), or drop codex-config. Nothing was run."
      : null;
  }
  if (o.model !== undefined) {
    const problem = codexModelProblem(o.model);
    if (problem !== null) return `model: ${problem}. Nothing was run.`;
  }
  const issues: string[] = [];
  (o.codexConfig ?? []).forEach((pair, i) => {
    const parsed = parseCodexConfig(pair);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => issue.replace(/line \d+/, `entry ${i + 1}`)));
    else if (parsed.pairs.length !== 1 || parsed.pairs[0] !== pair)
      issues.push(`codex-config entry ${i + 1}: expected one trimmed KEY=VALUE, got ${JSON.stringify(pair)}`);
  });
  return issues.length > 0 ? `${issues.join("; ")}. Nothing was run.` : null;
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
  return runtime === "codex"
    ? `the codex CLI was not found: ${where}. Install @openai/codex or give the path of the codex executable; nothing was run`
    : `the claude CLI was not found: ${where}. Install @anthropic-ai/claude-code or point --claude-path at the executable; nothing was run`;
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
  if (runtime !== "codex") return null;
  const withAgent = graph.nodes.filter((node) => node.agent !== null);
  if (withAgent.length === 0) return null;
  const named = withAgent.map((node) => `node "${node.id}" sets agent "${node.agent}"`).join("; ");
  return (
    `${named}: agent names a Claude Code subagent, which the codex runtime cannot run — run with --runtime ` +
    "claude (input runtime: claude), or remove agent. Nothing was run."
  );
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
  const warnings: string[] = [];
  graph.nodes.forEach((node, i) => {
    if (node.type === "gate") return;
    if (node.permission_mode === "bypassPermissions") {
      warnings.push(
        runtime === "codex"
          ? `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): codex --sandbox danger-full-access, no sandbox at all`
          : `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): claude approves every tool call without asking; IS_SANDBOX=1 is set in that node's environment only (claude refuses the mode as root without it), never the verify command's or another node's`,
      );
    }
    if (runtime !== "codex" || node.budget_usd === null) return;
    const declared = graph.spec.nodes?.[i]?.timeout !== undefined;
    warnings.push(
      `node "${node.id}": budget_usd ${node.budget_usd} is not enforced on the codex runtime (codex reports no USD cost, so every codex row's cost is unknown); ` +
        `what bounds this node is its timeout of ${formatDuration(node.timeout_ms)}${declared ? "" : " (the default)"}`,
    );
  });
  return warnings;
}
