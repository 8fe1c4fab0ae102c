/**
 * The `codex` CLI's argv for one node (SPEC §4 "Codex CLI", §8 tool-policy ceiling, §10 `codex-config`;
 * research/oh-my-graph.md §5.3).
 *
 * Pure: the exec seam (`src/proc/`) spawns the executable with exactly this argv, stdin from the null
 * device (with a pipe codex appends stdin to the prompt as a `<stdin>` block). Emission order is fixed and
 * pinned element by element by test/runtime/codex-argv.test.ts:
 *
 *   exec --json --color never --skip-git-repo-check
 *   [-m MODEL]
 *   [-c KEY=VALUE]…              the operator's `codex-config` pairs (gateway / provider), in order
 *   --sandbox MODE               from the permission mode (`codexSandboxFor`), on EVERY node
 *   --config approval_policy="never"                                       on EVERY node
 *   [--config sandbox_workspace_write.writable_roots=[] --config sandbox_workspace_write.network_access=false]
 *                                on every workspace-write node: its extent, pinned against a loaded config
 *   [--ignore-user-config --ignore-rules --config project_doc_max_bytes=0 --config mcp_servers={}]
 *                                layer 1 isolation, when `policy.settingSources` is set (SPEC §8)
 *   [--config tools.update_plan.enabled=true]
 *                                `planTool`: a node whose completion gate reads its plan (SPEC §7)
 *   [resume THREAD_ID]           session handoff and completion re-prompts
 *   -- PROMPT
 *
 * Why this order (measured on codex-cli 0.169.0, test/runtime/codex-cli.test.ts and research notes):
 * - `-c` pairs are applied in order and the LAST one for a key wins (`-c developer_instructions="A"
 *   -c developer_instructions="B"` sent B). So the operator's pairs come BEFORE the engine's boundary:
 *   a `codex-config` line can point codex at a gateway but cannot override `approval_policy`,
 *   `project_doc_max_bytes` or `mcp_servers` (`-c mcp_servers.x.command=…` followed by
 *   `mcp_servers={}` spawned no server; the reverse order spawned it). `--sandbox` beats
 *   `-c sandbox_mode=…` in either order. `-m` beats `-c model=…` in either order. Order is the second
 *   line: `parseCodexConfig` already refuses every key off the allowlist (`codexConfigKeyProblem`), since
 *   a key the engine does not re-set (`sandbox_workspace_write.writable_roots` let a node write /opt)
 *   would otherwise widen the boundary.
 * - Every flag goes on `exec`, before `resume`: `exec resume` rejects `--sandbox` and `--color`, and the
 *   sandbox mode is NOT persisted in a thread (a resume without it ran read-only; fake-model.md §4.7).
 *   `exec --sandbox workspace-write … resume ID -- PROMPT` resumed with workspace-write (measured).
 * - `--` before the prompt: without it `exec "- fix the tests"` exits 2 ("unexpected argument"); after
 *   `--` the prompt reaches the model verbatim (also `--help`, leading/trailing whitespace, a trailing
 *   newline), for `exec` and for `exec … resume ID`. The one prompt `--` cannot protect is exactly `-`:
 *   codex then reads the prompt from stdin ("No prompt provided via stdin.", exit 1), so it is refused
 *   here (`codexPromptProblem`). An empty prompt is sent as an empty message.
 *
 * The isolation items (SPEC §8 table, seed 001 §1.2), measured with a CODEX_HOME holding `config.toml`
 * (developer_instructions + an MCP server), `rules/default.rules`, `AGENTS.md`, and a workspace holding
 * `AGENTS.md` and `.codex/config.toml`:
 * - `--ignore-user-config` drops `$CODEX_HOME/config.toml` (its instructions and MCP servers);
 * - `--ignore-rules` drops execpolicy `.rules` files (fake-model.md §4.7);
 * - `--config project_doc_max_bytes=0` drops the workspace AGENTS.md;
 * - `--config mcp_servers={}` drops MCP servers given by earlier `-c` pairs (layer 4 "inside layer 1").
 * Not dropped by any of them: `$CODEX_HOME/AGENTS.md` (still injected). The action's fresh CODEX_HOME has
 * none; a CLI user's own ~/.codex/AGENTS.md does reach isolated nodes. The workspace `.codex/config.toml`
 * was not loaded with or without isolation (the workspace is untrusted).
 *
 * Layers 2, 3 and 5 have no Codex rendering: codex has no per-tool grammar. Its boundary is the sandbox
 * plus `approval_policy="never"`, both outside layer 1 (SPEC §8), so `accept-loaded-user-config` widens
 * neither.
 *
 * Not emitted: `--ephemeral` (a thread must stay resumable), `--dangerously-bypass-approvals-and-sandbox`
 * (`--sandbox danger-full-access` plus `approval_policy="never"` says the same, and keeps the flag set
 * uniform), `--output-schema`, `-o`. Offline/telemetry switches (`features.plugins=false`,
 * `analytics.enabled=false`) are not the engine's call; they reach codex through `codex-config`.
 */

import { unreachable } from "../core/unreachable.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { PermissionMode } from "./claude-argv.js";

/** `codex exec --sandbox` values (codex-cli 0.169.0 `--help`). */
export type CodexSandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/**
 * The sandbox a node's permission mode maps to (SPEC §8; oh-my-graph §4.1):
 * - `plan` → `read-only`: plan mode is "look, don't touch". Measured: a scripted `echo hi > out.txt`
 *   failed with "Read-only file system" and created nothing; apply_patch is rejected.
 * - `bypassPermissions` → `danger-full-access`: no sandbox at all, which is what bypass means on Claude.
 *   Planned nodes may not carry this mode (SPEC §8), so only a hand-written node can reach it.
 * - every other mode (`dontAsk` default, `acceptEdits`, `auto`, `manual`) → `workspace-write`: the node
 *   may edit its working tree. Writable roots are the workdir, the system temp directory and `$TMPDIR`;
 *   network is off for sandboxed commands, loopback included (fake-model.md §5). With
 *   `approval_policy="never"` nothing ever prompts, so Claude's ask/deny distinctions between these modes
 *   have no Codex counterpart; the sandbox is the whole boundary.
 */
export function codexSandboxFor(mode: PermissionMode): CodexSandboxMode {
  switch (mode) {
    case "plan":
      return "read-only";
    case "bypassPermissions":
      return "danger-full-access";
    case "acceptEdits":
    case "auto":
    case "dontAsk":
    case "manual":
      return "workspace-write";
    default:
      return unreachable(mode);
  }
}

/**
 * Which thread the call runs in: a fresh one (codex mints the thread id and prints it in
 * `thread.started`), or an existing one continued with `resume THREAD_ID` (session handoff, completion
 * re-prompts; the thread keeps its history, the sandbox comes from this call's flags).
 */
export type CodexSession =
  | { readonly kind: "fresh" }
  | { readonly kind: "resume"; readonly threadId: string };

export interface CodexInvocation {
  readonly prompt: string;
  readonly permissionMode: PermissionMode;
  /**
   * The node's tool policy. Only layer 1 renders on Codex: `settingSources !== undefined` ⇒ the four
   * isolation items. The other fields are ignored (no per-tool grammar; see the module comment).
   */
  readonly policy: ToolPolicy;
  readonly session: CodexSession;
  /** Passed verbatim to `-m`; absent = codex's own default (or a `model=` pair in `config`). */
  readonly model?: string;
  /**
   * The operator's `codex-config` pairs, each `KEY=VALUE` (VALUE parsed as TOML by codex, else taken as a
   * literal string), emitted as `-c PAIR` in order on every node, whatever the isolation layer says
   * (SPEC §10). Parse the input with `parseCodexConfig`.
   */
  readonly config?: readonly string[];
  /**
   * Offer the model codex's plan tool (`update_plan`, whose plan the `--json` stream prints as `todo_list`
   * items): for a node whose completion gate is `todos: all_done` (SPEC §7). Measured on 0.169.0: with
   * `-m gpt-5.5` the tool is not advertised unless `tools.update_plan.enabled=true`; with it, each call
   * shows as `item.started` / `item.updated` / `item.completed` of one `todo_list` item.
   */
  readonly planTool?: boolean;
}

/** codex thread ids are UUIDs (v7 as printed by 0.169.0, e.g. `01a229b5-40c4-7922-94ad-e4ea52cb9e9d`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be resumed with `exec resume ID` (a UUID, as `thread.started` prints it). */
export function isCodexThreadId(id: string): boolean {
  return UUID.test(id);
}

/**
 * Why codex cannot be given this `model` with `-m`, or null: empty, or starting with `-` (clap reads it as
 * a flag: `-m -x` exits 2). Checked at run start so a bad `--model` is a usage error, not a node failure.
 */
export function codexModelProblem(model: string): string | null {
  return model === "" || model.startsWith("-")
    ? `a codex model must be non-empty and not start with "-" (got ${JSON.stringify(model)})`
    : null;
}

/** A `codex-config` key: a dotted TOML path (bare or quoted segments), no whitespace, not starting with `-`. */
const CONFIG_KEY = /^(?:[A-Za-z0-9_][A-Za-z0-9_-]*|"[^"\n]*")(?:\.(?:[A-Za-z0-9_-]+|"[^"\n]*"))*$/;

/** Why codex could not run this prompt as given, or null. Exactly `-` means "read the prompt from stdin". */
export function codexPromptProblem(prompt: string): string | null {
  return prompt === "-"
    ? 'a prompt of exactly "-" makes codex read its prompt from stdin, which the engine does not provide'
    : null;
}

/** The allowlist, as the refusal states it (SPEC §10). */
const ALLOWED_KEYS =
  "model, model_provider, model_providers.<id>.<key>, model_reasoning_effort, model_reasoning_summary, " +
  "model_verbosity, model_context_window, model_auto_compact_token_limit, analytics.<key>, otel.<key>, " +
  "features.<name>=false";

/** Top-level keys that take a value of their own (no sub-key). */
const ALLOWED_LEAVES: ReadonlySet<string> = new Set([
  "model",
  "model_provider",
  "model_reasoning_effort",
  "model_reasoning_summary",
  "model_verbosity",
  "model_context_window",
  "model_auto_compact_token_limit",
]);

/** Top-level tables whose every sub-key is allowed (at least one sub-key: `model_providers.<id>`). */
const ALLOWED_TABLES: ReadonlySet<string> = new Set(["model_providers", "analytics", "otel"]);

/**
 * The segments of a key `CONFIG_KEY` accepts: bare segments as written, quoted ones without their quotes
 * (a quoted segment holding `\` keeps it, so an escape never spells an allowed name).
 */
function keySegments(key: string): string[] {
  return [...key.matchAll(/"([^"\n]*)"|([^."]+)/g)].map((m) => m[1] ?? m[2] ?? "");
}

/**
 * Why codex-config may not set `key` (to `value`), or null when the allowlist takes it (SPEC §10). The
 * pairs exist to point codex at a gateway or provider; anything else could override the engine's boundary
 * (`sandbox_*`, `approval_policy`, `mcp_servers`, `project_doc_*`, `profile(s)`, `shell_environment_policy`,
 * `tools`, `notify`, `hooks`, `experimental_*`, …) or is unknown, so it is refused rather than relying
 * on flag order. `features.<name>` is allowed only as `false`: turning a feature off cannot widen anything.
 */
export function codexConfigKeyProblem(key: string, value: string): string | null {
  const [top = "", ...rest] = keySegments(key);
  const refuse = (why: string) =>
    `${JSON.stringify(key)} is not allowed: codex-config may only configure the model provider; ${why} (allowed: ${ALLOWED_KEYS})`;
  if (ALLOWED_LEAVES.has(top)) {
    return rest.length === 0 ? null : refuse(`${top} takes no sub-key`);
  }
  if (ALLOWED_TABLES.has(top)) {
    return rest.length > 0 ? null : refuse(`set ${top}.<key> one key at a time`);
  }
  if (top === "features") {
    if (rest.length !== 1) return refuse("set features.<name>=false one feature at a time");
    return value === "false" ? null : refuse(`a feature may only be turned off (features.${rest[0]}=false)`);
  }
  return refuse("sandbox, approval, isolation and every other setting stay the engine's");
}

export type CodexConfigParse =
  | { readonly ok: true; readonly pairs: readonly string[] }
  | { readonly ok: false; readonly issues: readonly string[] };

/**
 * Parses the `codex-config` input (SPEC §10): one `KEY=VALUE` per line; blank lines and lines starting
 * with `#` are skipped; each line is trimmed; KEY (before the first `=`) is a dotted TOML path such as
 * `model_providers.gw.base_url` or `model_providers."my-gw".base_url`, and on the allowlist
 * (`codexConfigKeyProblem`: the model and its provider, analytics, otel, features turned off). Every bad
 * line is reported with its 1-based number. The pairs are returned unchanged otherwise (codex parses
 * VALUE as TOML).
 */
export function parseCodexConfig(text: string): CodexConfigParse {
  const pairs: string[] = [];
  const issues: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const eq = line.indexOf("=");
    const key = eq < 0 ? "" : line.slice(0, eq).trim();
    if (eq < 0) {
      issues.push(`codex-config line ${index + 1}: expected KEY=VALUE, got ${JSON.stringify(line)}`);
    } else if (!CONFIG_KEY.test(key)) {
      issues.push(
        `codex-config line ${index + 1}: ${JSON.stringify(key)} is not a config key (a dotted path such as model_providers.gw.base_url)`,
      );
    } else {
      const value = line.slice(eq + 1).trim();
      const refused = codexConfigKeyProblem(key, value);
      if (refused !== null) issues.push(`codex-config line ${index + 1}: ${refused}`);
      else pairs.push(`${key}=${value}`);
    }
  });
  return issues.length === 0 ? { ok: true, pairs } : { ok: false, issues };
}

/**
 * The `-c` values that pin a workspace-write sandbox's extent on every such node (after the operator's pairs,
 * so they win): no extra writable roots, no network. Defaults of codex, re-set because a loaded user
 * `config.toml` may change them (seed 001 §9: "whether a restored config.toml can weaken the sandbox floor").
 */
export const WORKSPACE_WRITE_EXTENT: readonly string[] = [
  "sandbox_workspace_write.writable_roots=[]",
  "sandbox_workspace_write.network_access=false",
];

/**
 * argv after the `codex` executable (SPEC §4, §8, §10). Throws only on a broken internal invariant, each
 * validated upstream: a resume thread id that is not a UUID (ids come from `thread.started`), a model
 * that is empty or starts with `-` (clap would read it as a flag: `-m -x` exits 2), a config pair that
 * `parseCodexConfig` would refuse, a prompt `codexPromptProblem` refuses.
 */
export function buildCodexArgv(inv: CodexInvocation): string[] {
  const argv = ["exec", "--json", "--color", "never", "--skip-git-repo-check"];
  if (inv.model !== undefined) {
    const problem = codexModelProblem(inv.model);
    if (problem !== null) throw new Error(`Internal error: ${problem}`);
    argv.push("-m", inv.model);
  }
  for (const pair of inv.config ?? []) {
    const parsed = parseCodexConfig(pair);
    if (!parsed.ok || parsed.pairs.length !== 1 || parsed.pairs[0] !== pair) {
      throw new Error(`Internal error: not a codex-config KEY=VALUE pair: ${JSON.stringify(pair)}`);
    }
    argv.push("-c", pair);
  }
  const sandbox = codexSandboxFor(inv.permissionMode);
  argv.push("--sandbox", sandbox);
  argv.push("--config", 'approval_policy="never"');
  // workspace-write's extent, pinned: a loaded config.toml's `[sandbox_workspace_write]` (writable_roots,
  // network_access) would otherwise widen it, and the disclosures say it is the working directory and the
  // temp directories, with no network (measured: test/runtime/codex-sandbox-extent.real-cli.test.ts).
  if (sandbox === "workspace-write") for (const pair of WORKSPACE_WRITE_EXTENT) argv.push("--config", pair);
  if (inv.policy.settingSources !== undefined) {
    argv.push("--ignore-user-config", "--ignore-rules");
    argv.push("--config", "project_doc_max_bytes=0", "--config", "mcp_servers={}");
  }
  if (inv.planTool === true) argv.push("--config", "tools.update_plan.enabled=true");
  switch (inv.session.kind) {
    case "fresh":
      break;
    case "resume":
      if (!UUID.test(inv.session.threadId)) {
        throw new Error(`Internal error: a codex thread id must be a UUID, got "${inv.session.threadId}"`);
      }
      argv.push("resume", inv.session.threadId);
      break;
    default:
      return unreachable(inv.session);
  }
  const problem = codexPromptProblem(inv.prompt);
  if (problem !== null) throw new Error(`Internal error: ${problem}`);
  argv.push("--", inv.prompt);
  return argv;
}
