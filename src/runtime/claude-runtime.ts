/**
 * The `claude` CLI as a {@link ModelRuntime} (`model-runtime.ts`): `@anthropic-ai/claude-code`, a session
 * resumed with `--resume ID` and its cumulative cost, the tool list enforced per call, credentials in
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` / `CLAUDE_CODE_OAUTH_TOKEN` (SPEC §9, §11).
 */
import { type ClaudeCredentialVariable, CREDENTIAL_VARIABLES } from "../proxy/credential.js";
import { upstreamProblem } from "../proxy/key-proxy.js";
import { claudeTurn } from "./claude-turn.js";
import type { ModelRuntime, ProxyInputs, ProxyPlan } from "./model-runtime.js";

/** The order the key proxy picks claude's credential in when several are given. */
const CLAUDE_ORDER: readonly ClaudeCredentialVariable[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
];
/** Claude on Bedrock / Vertex / Foundry: other credentials, other hosts, so no key proxy. */
const CLOUD_SWITCHES = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"];

const on = (value: string | undefined): boolean => value !== undefined && value !== "" && value !== "0";

function proxyPlan(o: ProxyInputs): ProxyPlan {
  if (CLOUD_SWITCHES.some((name) => on(o.env[name])))
    return { kind: "none", note: "key proxy: not used (claude runs on a cloud provider's credentials)" };
  const variable = CLAUDE_ORDER.find((name) => (o.credentials[name] ?? "") !== "");
  if (variable === undefined)
    return { kind: "none", note: "key proxy: not used (no claude credential given: the CLI's own login)" };
  const upstream = o.env.ANTHROPIC_BASE_URL;
  const problem = upstream !== undefined && upstream !== "" ? upstreamProblem(upstream) : null;
  if (problem !== null) return { kind: "refused", message: `ANTHROPIC_BASE_URL: ${problem}` };
  return {
    kind: "proxy",
    credential: { runtime: "claude", variable, value: o.credentials[variable]! },
    where: upstream !== undefined && upstream !== "" ? { upstream } : {},
  };
}

/**
 * Why a run stopped when the claude CLI answered "Not logged in" (`endedNotLoggedIn`,
 * `read-only-call.ts`): a usage error naming where a credential goes on `surface` and how to get one,
 * ending with its period (the conclusion adds "Nothing ran."). CLI: the environment variables the model child gets (`ANTHROPIC_API_KEY`,
 * `CLAUDE_CODE_OAUTH_TOKEN`, `ANTHROPIC_AUTH_TOKEN`: SPEC §9) or claude's own login; action: its inputs.
 */
export function claudeNotLoggedInMessage(surface: "cli" | "action"): string {
  const said = 'the claude CLI answered "Not logged in" before reaching the model (nothing was spent)';
  return surface === "cli"
    ? `${said}: it has no credential. Set ANTHROPIC_API_KEY (an API key from console.anthropic.com), ` +
        "CLAUDE_CODE_OAUTH_TOKEN (a subscription's token: run `claude setup-token`) or ANTHROPIC_AUTH_TOKEN " +
        "(a gateway's bearer token) in the environment, or log the CLI in (run `claude`, then /login), and " +
        "run the command again."
    : `${said}: give input \`anthropic-api-key\` or \`claude-code-oauth-token\` a secret that holds a credential.`;
}

/** `claude`: the default runtime. */
export const CLAUDE_RUNTIME: ModelRuntime = {
  name: "claude",
  agentTurn: claudeTurn,
  cliPackage: { bin: "claude", npmPackage: "@anthropic-ai/claude-code", cacheName: "claude-code" },
  executable: (o) => o.claudeExecutable,
  optionsProblem: (o) =>
    o.codexConfig !== undefined && o.codexConfig.length > 0
      ? "codex-config applies only to the codex runtime: pass --runtime codex (input runtime: codex), or drop codex-config. Nothing was run."
      : null,
  missingCliMessage: (where) =>
    `the claude CLI was not found: ${where}. Install @anthropic-ai/claude-code or point --claude-path at the executable; nothing was run`,
  graphProblem: () => null,
  nodeWarnings: (node) =>
    node.permission_mode === "bypassPermissions"
      ? [
          `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): claude approves every tool call without asking; IS_SANDBOX=1 is set in that node's environment only (claude refuses the mode as root without it), never the verify command's or another node's`,
        ]
      : [],
  recordedSettings: () => ({}),
  resumedSettingsProblem: () => null,
  resumedSession: (saved) => ({
    kind: "resume",
    sessionId: saved.sessionId,
    sessionCostUsd: saved.sessionCostUsd ?? null,
  }),
  threadRecord: () => ({}),
  plannerWords: {
    cli: "claude",
    toolNote: "A node can use only the tools in its list; any other tool call is denied.",
  },
  credentialVariables: CREDENTIAL_VARIABLES.claude,
  credentialsFromInputs: (inputs) => {
    const set: Record<string, string> = {};
    if (inputs.anthropicApiKey) set.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
    if (inputs.claudeCodeOauthToken) set.CLAUDE_CODE_OAUTH_TOKEN = inputs.claudeCodeOauthToken;
    return set;
  },
  missingCredentialInputs: (inputs) =>
    inputs.anthropicApiKey || inputs.claudeCodeOauthToken
      ? null
      : ["anthropic-api-key", "claude-code-oauth-token"],
  missingCredentialMessage:
    "inputs `anthropic-api-key` and `claude-code-oauth-token` are both empty: runtime claude needs one (pass a repository secret, e.g. `anthropic-api-key: <secrets.ANTHROPIC_API_KEY>` in a workflow expression); it reaches the claude CLI only",
  localCredentialProblem: () => null,
  proxyPlan,
};
