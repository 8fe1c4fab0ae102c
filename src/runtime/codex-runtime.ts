/**
 * The `codex` CLI as a {@link ModelRuntime} (`model-runtime.ts`): `@openai/codex`, a thread resumed with
 * `exec … resume ID` in the `CODEX_HOME` it lives in and its cumulative token usage, the operator's
 * `codex-config` pairs, credentials in `OPENAI_API_KEY` / `CODEX_API_KEY` (SPEC §9, §10, §11).
 *
 * What codex cannot honour (research/oh-my-graph.md §4.5, ADR 0026):
 * - a node's `agent:` (a Claude Code subagent) — codex has no subagents, so a codex run of a graph
 *   declaring one is a usage error before anything runs ({@link ModelRuntime.graphProblem}); planned
 *   nodes may not carry one at all;
 * - `budget_usd` — codex reports no USD, so there is no `--max-budget-usd` and no post-hoc check: a
 *   WARNING per node (not a refusal) naming the timeout that still bounds it;
 * - `allowed_tools` has no Codex rendering (codex has no per-tool grammar): the sandbox from
 *   `permission_mode` binds instead, which the plan section's disclosure says for the whole run.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatDuration } from "../graph/duration.js";
import { isProxyProviderPair, operatorCodexProvider } from "../proxy/codex-provider.js";
import { CREDENTIAL_VARIABLES } from "../proxy/credential.js";
import { upstreamProblem } from "../proxy/key-proxy.js";
import { codexModelProblem, parseCodexConfig } from "./codex-argv.js";
import { codexHomeOf, codexTurn } from "./codex-turn.js";
import type { ModelRuntime, ProxyInputs, ProxyPlan } from "./model-runtime.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The keys of `codex-config` pairs (`KEY=VALUE` → `KEY`), as `state.json` records them (no values). The key
 * proxy's own provider pairs are left out: every leg adds them itself (`src/run/model-proxy.ts`).
 */
function codexConfigKeys(pairs: readonly string[] | undefined): string[] {
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
function resumedCodexConfigProblem(
  runId: string,
  recorded: readonly string[] | undefined,
  given: readonly string[] | undefined,
): string | null {
  const have = new Set(codexConfigKeys(given));
  const missing = (recorded ?? []).filter((key) => !have.has(key));
  if (missing.length === 0) return null;
  return `run ${runId} was started with codex-config pairs for ${missing.map((k) => `"${k}"`).join(", ")}, which state.json does not record (a provider setting may carry a secret): give the same pairs again (--codex-config KEY=VALUE, or the codex-config input). Nothing was run.`;
}

/** `--model` must be usable as `-m`, and each `codex-config` pair a trimmed `KEY=VALUE` with a dotted-path key. */
function optionsProblem(o: {
  readonly model?: string;
  readonly codexConfig?: readonly string[];
}): string | null {
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

/** True when `$CODEX_HOME/config.toml` (default `~/.codex`) selects a `model_provider`. */
function userSelectsProvider(env: Env): boolean {
  const home = codexHomeOf(env);
  if (home === null) return false;
  const config = join(home, "config.toml");
  return existsSync(config) && /^\s*model_provider\s*=/m.test(readFileSync(config, "utf8"));
}

/**
 * A credential is: `OPENAI_API_KEY` or `CODEX_API_KEY` in the environment, a `codex login`
 * (`$CODEX_HOME/auth.json`, `CODEX_HOME` defaulting to `~/.codex`), or a provider of the operator's own — a
 * `model_provider` pair in `--codex-config` or in `$CODEX_HOME/config.toml` (its `env_key` is its business).
 * Without this check codex retries an unauthenticated model server for as long as the planner's timeout.
 */
function localCredentialProblem(env: Env, codexConfig: readonly string[]): string | null {
  if (CREDENTIAL_VARIABLES.codex.some((name) => (env[name] ?? "") !== "")) return null;
  if (codexConfig.some((pair) => /^\s*"?model_provider"?\s*=/.test(pair))) return null;
  const codexHome = codexHomeOf(env);
  if (codexHome !== null && existsSync(join(codexHome, "auth.json"))) return null;
  if (userSelectsProvider(env)) return null;
  return "codex has no credential: set OPENAI_API_KEY (or CODEX_API_KEY), run `codex login`, or name a provider with --codex-config model_provider=…; nothing was run";
}

/** codex 0.169 ignores `OPENAI_BASE_URL`: the proxy is reached through `-c` provider pairs. */
function proxyPlan(o: ProxyInputs): ProxyPlan {
  const value = o.credentials.OPENAI_API_KEY ?? o.credentials.CODEX_API_KEY;
  if (value === undefined || value === "")
    return { kind: "none", note: "key proxy: not used (no codex credential given: the CLI's own login)" };
  if (o.readUserCodexConfig && userSelectsProvider(o.env))
    return {
      kind: "none",
      note: "key proxy: not used (your codex config.toml selects a provider of its own)",
    };
  const provider = operatorCodexProvider(o.codexConfig);
  if (provider.kind === "unusable") return { kind: "refused", message: provider.problem };
  const problem = provider.kind === "provider" ? upstreamProblem(provider.baseUrl) : null;
  if (problem !== null) return { kind: "refused", message: `codex-config base_url: ${problem}` };
  return {
    kind: "proxy",
    credential: { runtime: "codex", variable: "OPENAI_API_KEY", value },
    where: provider.kind === "provider" ? { upstream: provider.baseUrl, codexProvider: provider.id } : {},
  };
}

/** `codex`: chosen with `--runtime codex` / input `runtime: codex`. */
export const CODEX_RUNTIME: ModelRuntime = {
  name: "codex",
  agentTurn: codexTurn,
  // Its platform binary comes as an optional dependency npm picks.
  cliPackage: { bin: "codex", npmPackage: "@openai/codex", cacheName: "codex" },
  executable: (o) => o.codexExecutable ?? "codex",
  optionsProblem,
  missingCliMessage: (where) =>
    `the codex CLI was not found: ${where}. Install @openai/codex or give the path of the codex executable; nothing was run`,
  graphProblem: (graph) => {
    const withAgent = graph.nodes.filter((node) => node.agent !== null);
    if (withAgent.length === 0) return null;
    const named = withAgent.map((node) => `node "${node.id}" sets agent "${node.agent}"`).join("; ");
    return (
      `${named}: agent names a Claude Code subagent, which the codex runtime cannot run — run with --runtime ` +
      "claude (input runtime: claude), or remove agent. Nothing was run."
    );
  },
  nodeWarnings: (node, declaredTimeout) => [
    ...(node.permission_mode === "bypassPermissions"
      ? [
          `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): codex --sandbox danger-full-access, no sandbox at all`,
        ]
      : []),
    ...(node.budget_usd === null
      ? []
      : [
          `node "${node.id}": budget_usd ${node.budget_usd} is not enforced on the codex runtime (codex reports no USD cost, so every codex row's cost is unknown); ` +
            `what bounds this node is its timeout of ${formatDuration(node.timeout_ms)}${declaredTimeout ? "" : " (the default)"}`,
        ]),
  ],
  recordedSettings: (codexConfig) =>
    (codexConfig ?? []).length > 0 ? { codex_config_keys: codexConfigKeys(codexConfig) } : {},
  resumedSettingsProblem: resumedCodexConfigProblem,
  resumedSession: (saved) => ({
    kind: "resume",
    sessionId: saved.sessionId,
    threadUsage: saved.threadUsage ?? null,
    ...(saved.codexHome !== undefined ? { codexHome: saved.codexHome } : {}),
  }),
  threadRecord: (thread) => ({ thread_usage: thread?.usage ?? undefined }),
  plannerWords: {
    cli: "codex",
    toolNote:
      "On this runtime the list is checked and recorded, and each node also runs in a sandbox that can write only the working tree.",
  },
  credentialVariables: CREDENTIAL_VARIABLES.codex,
  credentialsFromInputs: (inputs): Record<string, string> =>
    inputs.openaiApiKey ? { OPENAI_API_KEY: inputs.openaiApiKey, CODEX_API_KEY: inputs.openaiApiKey } : {},
  missingCredentialInputs: (inputs) => (inputs.openaiApiKey ? null : ["openai-api-key"]),
  missingCredentialMessage:
    "input `openai-api-key` is empty: runtime codex needs an OpenAI API key (pass a repository secret, e.g. `openai-api-key: <secrets.OPENAI_API_KEY>` in a workflow expression); it reaches the codex CLI only",
  localCredentialProblem,
  proxyPlan,
};
