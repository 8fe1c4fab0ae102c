/**
 * The `claude` CLI's argv for one node (SPEC §4 "Claude CLI", §8 tool-policy ceiling).
 *
 * Pure: the exec seam (`src/proc/`) spawns the executable with exactly this argv. Emission order is
 * fixed and pinned element by element by test/runtime/claude-argv.test.ts:
 *
 *   -p --output-format stream-json --verbose --permission-mode MODE
 *   [--model M] [--max-budget-usd N]
 *   [--setting-sources V]      layer 1 isolation (`""` = an empty argument: load no settings files)
 *   [--agents JSON --agent NAME]  the node's Claude Code subagent (hand-written `agent:`; Go emits
 *                              `--agent` here): the definition the engine read, then its name
 *   [--allowedTools A,B]       layer 2 grant (only when non-empty)
 *   [--tools A,B]              layer 3 narrowing (`[]` = `""`: no built-in tools at all)
 *   [--strict-mcp-config]      layer 4 MCP
 *   [--disallowedTools A,B]    layer 5 residual deny (only when non-empty)
 *   --session-id UUID | --resume ID
 *   -- PROMPT
 *
 * The prompt goes LAST, after `--`, not right after `-p` as SPEC §4 sketches it. Measured on claude
 * 2.1.332: `-p "- fix the tests"` (any prompt starting with `-`, e.g. a Markdown list) exits 1 with
 * "error: unknown option '- fix the tests'"; after `--` the same prompt reaches the model verbatim. The
 * `--` also keeps a prompt from being swallowed by the variadic `--allowedTools`/`--tools`/
 * `--disallowedTools` options. `-p` itself is a boolean (print mode); the prompt is the positional.
 *
 * Not emitted: `--max-turns` (absent from `claude --help`), `--dangerously-skip-permissions`
 * (`--permission-mode bypassPermissions` says the same; running as root it also needs `IS_SANDBOX=1`,
 * which is the environment's business, not argv's: `runtime/claude-turn.ts` sets it for that node's
 * call only — SPEC §9).
 */

import { unreachable } from "../core/unreachable.js";
import type { NodeAgent } from "../policy/agent-definition.js";
import type { ToolPolicy } from "../policy/tool-policy.js";

/** `--permission-mode` values accepted by claude 2.1.x (`claude --help`). */
export type ClaudePermissionMode =
  | "acceptEdits"
  | "auto"
  | "bypassPermissions"
  | "dontAsk"
  | "manual"
  | "plan";

/** Same type; both names are imported by the engine. */
export type PermissionMode = ClaudePermissionMode;

/**
 * Which session the call runs in (SPEC §4): a fresh one whose id the engine mints before the spawn (so
 * it can be published when the node starts), or an existing one continued with `--resume` (session
 * handoff, completion re-prompts). Permission flags are not persisted in a session, so a resumed call
 * gets the full policy again.
 */
export type ClaudeSession =
  | { readonly kind: "fresh"; readonly sessionId: string }
  | { readonly kind: "resume"; readonly sessionId: string };

export interface ClaudeInvocation {
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  readonly session: ClaudeSession;
  /** Passed verbatim to `--model` (aliases such as `sonnet` resolve inside the CLI); absent = CLI default. */
  readonly model?: string;
  /** Positive USD budget → `--max-budget-usd` (the CLI stops between API calls; SPEC §4). */
  readonly budgetUsd?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Renders a USD amount without exponent notation (`1e-7` would not parse as a CLI number). */
function formatUsd(amount: number): string {
  const text = String(amount);
  return /e/i.test(text) ? amount.toFixed(20).replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * The `--agents` value for one subagent: `{"NAME":{"description":…,"prompt":…,"tools":[…],"model":…}}`
 * (claude CLI reference, "Agents flag format"; measured on 2.1.332 with `--setting-sources ""`: the prompt
 * reaches the request's system prompt and `tools` becomes the session's tool list).
 */
export function agentsJson(agent: NodeAgent): string {
  const { description, prompt, tools, model } = agent.definition;
  return JSON.stringify({
    [agent.name]: {
      description,
      prompt,
      ...(tools !== undefined ? { tools: [...tools] } : {}),
      ...(model !== undefined ? { model } : {}),
    },
  });
}

/**
 * argv after the `claude` executable (SPEC §4, §8). Throws only on a broken internal invariant (a
 * fresh session id that is not a UUID, a budget that is not a positive finite number): both are minted
 * or validated upstream, so reaching here with either is a bug, not user input.
 */
export function buildClaudeArgv(inv: ClaudeInvocation): string[] {
  const argv = ["-p", "--output-format", "stream-json", "--verbose"];
  argv.push("--permission-mode", inv.permissionMode);
  if (inv.model !== undefined) argv.push("--model", inv.model);
  if (inv.budgetUsd !== undefined) {
    if (!Number.isFinite(inv.budgetUsd) || inv.budgetUsd <= 0) {
      throw new Error(`Internal error: budgetUsd must be a positive number, got ${inv.budgetUsd}`);
    }
    argv.push("--max-budget-usd", formatUsd(inv.budgetUsd));
  }
  const { policy } = inv;
  if (policy.settingSources !== undefined) argv.push("--setting-sources", policy.settingSources);
  if (policy.agent !== undefined)
    argv.push("--agents", agentsJson(policy.agent), "--agent", policy.agent.name);
  if (policy.allowedTools.length > 0) argv.push("--allowedTools", policy.allowedTools.join(","));
  if (policy.tools !== undefined) argv.push("--tools", policy.tools.join(","));
  if (policy.strictMcpConfig) argv.push("--strict-mcp-config");
  if (policy.disallowedTools.length > 0) argv.push("--disallowedTools", policy.disallowedTools.join(","));
  switch (inv.session.kind) {
    case "fresh":
      if (!UUID.test(inv.session.sessionId)) {
        throw new Error(`Internal error: a fresh session id must be a UUID, got "${inv.session.sessionId}"`);
      }
      argv.push("--session-id", inv.session.sessionId);
      break;
    case "resume":
      argv.push("--resume", inv.session.sessionId);
      break;
    default:
      return unreachable(inv.session);
  }
  argv.push("--", inv.prompt);
  return argv;
}
