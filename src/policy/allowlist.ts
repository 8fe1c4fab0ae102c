/**
 * The planned-node allowlist and the deniable tools (SPEC §5, §8; research/oh-my-graph.md §4.2).
 *
 * A planned node may only declare tools from the allowlist, matched as exact strings. The default list
 * holds no build tool on purpose: a node that can run the build can still reply PASS after watching it
 * fail (seed 003), and the engine runs the operator's verify command itself. The maintainers' policy
 * file on the base branch may add scoped entries (`planned-tools`); `extendAllowlist` refuses the
 * entries that would make the ceiling meaningless.
 */

/** The default planned-node allowlist, in the order the planner prompt lists it. */
export const DEFAULT_PLANNED_ALLOWLIST: readonly string[] = Object.freeze([
  "Read",
  "Glob",
  "Grep",
  "Edit",
  "Write",
  "Bash(git *)",
  "Bash(ls *)",
  "Bash(cat *)",
  "Bash(grep *)",
]);

/**
 * Tools a node can be denied by bare name (layer 5). Bare names only: a wildcard deny such as `Bash(*)`
 * does nothing in the Claude CLI (measured upstream), and denying a name the CLI does not know is
 * harmless. `Read`, `Glob` and `Grep` are never denied to a node.
 */
export const DENIABLE_TOOLS = Object.freeze([
  "Bash",
  "Edit",
  "Write",
  "MultiEdit",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
] as const);

export type DeniableTool = (typeof DENIABLE_TOOLS)[number];

/** The tools that reach the network on their own; never grantable to a planned node. */
export const WEB_TOOLS: readonly string[] = Object.freeze(["WebFetch", "WebSearch"]);

/**
 * The bare tool name of a declaration: `Bash(git *)` → `Bash`, `Read` → `Read`. Surrounding whitespace
 * is ignored.
 */
export function bareToolName(entry: string): string {
  const open = entry.indexOf("(");
  return (open === -1 ? entry : entry.slice(0, open)).trim();
}

// First words that run any other command, so a scope starting with one grants the whole shell.
const COMMAND_RUNNERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "env",
  "xargs",
  "eval",
  "exec",
  "command",
  "sudo",
  "su",
  "nohup",
]);

/** The scope inside `Bash(...)`, or `undefined` when the entry is not a well-formed scoped Bash entry. */
function bashScope(entry: string): string | undefined {
  const match = /^Bash\((.*)\)$/s.exec(entry.trim());
  return match?.[1];
}

/**
 * Why `entry` can never be a planned-node grant, or `undefined` when it can. Shared by the policy-file
 * extension and the planned-spec validator, so both refuse the same things in the same words.
 */
export function unscopedGrantReason(entry: string): string | undefined {
  const bare = bareToolName(entry);
  if (bare === "Bash") {
    if (entry.trim() === "Bash") {
      return "bare Bash grants every shell command; grant a scoped form such as Bash(git *)";
    }
    const scope = bashScope(entry);
    if (scope === undefined) return "a Bash grant must have the form Bash(<command> *)";
    const words = scope.replace(/[*:]/g, " ").trim();
    if (words.length === 0) {
      return `${entry.trim()} grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)`;
    }
    const first = words.split(/\s+/)[0] ?? "";
    if (COMMAND_RUNNERS.has(first)) {
      return `${entry.trim()} starts with ${first}, which runs any other command, so it grants the whole shell`;
    }
    return undefined;
  }
  if (WEB_TOOLS.includes(bare)) {
    return `${bare} reaches the network; web tools are never granted to a planned node`;
  }
  if (bare.startsWith("mcp__")) {
    return "MCP tools are never granted to a planned node: its MCP configuration is closed (strict MCP config)";
  }
  if (bare === "Skill") {
    return "Skill would let the plan choose which local skill files load into a node it wrote";
  }
  return undefined;
}

/** One policy-file entry `extendAllowlist` refused, with the reason shown to the maintainer. */
export interface AllowlistRefusal {
  readonly entry: string;
  readonly reason: string;
}

export type ExtendAllowlistResult =
  | { readonly ok: true; readonly allowlist: readonly string[] }
  | { readonly ok: false; readonly refusals: readonly AllowlistRefusal[] };

function malformedReason(entry: string): string | undefined {
  if (entry.trim().length === 0) return "an allowlist entry cannot be empty";
  if (entry !== entry.trim()) return "an allowlist entry cannot start or end with whitespace";
  if (/[,\n\r]/.test(entry)) {
    return "an allowlist entry cannot contain a comma or a newline (the CLI would read it as two grants)";
  }
  const open = entry.indexOf("(");
  if (open !== -1 && !entry.endsWith(")")) return "a scoped entry must end with its closing parenthesis";
  if (open === -1 && entry.includes(")")) return "an unscoped entry cannot contain a parenthesis";
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(bareToolName(entry))) {
    return "the tool name must be a word such as Read or Bash";
  }
  return undefined;
}

/**
 * The base allowlist plus the policy file's `planned-tools`, deduplicated in order. Collects every
 * refusal: an empty or malformed entry, bare `Bash`, `Bash(*)` and other unscoped or command-running Bash
 * scopes, web tools (`WebFetch`, `WebSearch`) and MCP tools (`mcp__*`), and `Skill`. Any refusal refuses
 * the whole extension (a policy file is fixed, not partially applied).
 */
export function extendAllowlist(
  base: readonly string[],
  policyExtras: readonly string[],
): ExtendAllowlistResult {
  const refusals: AllowlistRefusal[] = [];
  const allowlist = [...base];
  for (const entry of policyExtras) {
    const reason = malformedReason(entry) ?? unscopedGrantReason(entry);
    if (reason !== undefined) {
      refusals.push({ entry, reason });
      continue;
    }
    if (!allowlist.includes(entry)) allowlist.push(entry);
  }
  if (refusals.length > 0) return { ok: false, refusals };
  return { ok: true, allowlist: Object.freeze(allowlist) };
}
