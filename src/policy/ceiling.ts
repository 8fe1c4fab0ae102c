/**
 * Who gets which tool policy (SPEC §8; seed 001 §1.3–§1.4, §2.3; research/oh-my-graph.md §4.1, §4.3).
 *
 * | call                     | layer 1 settingSources | 2 allowedTools | 3 tools         | 4 strict MCP | 5 disallowedTools   |
 * | ------------------------ | ---------------------- | -------------- | --------------- | ------------ | ------------------- |
 * | planned node             | `""`                   | declaration    | bare names      | on           | undeclared deniable + git rules |
 * | planned node + opt-in    | absent                 | unchanged      | unchanged       | off          | unchanged           |
 * | planner                  | absent                 | none           | absent          | on           | all nine deniable   |
 * | hand-written `run` node  | —                      | declaration    | —               | —            | —                   |
 *
 * The opt-in (`accept-loaded-user-config`) moves layers 1 and 4 together and nothing else: an opted-in
 * planned node has a hand-written node's configuration posture and a planned node's tool posture.
 *
 * "git rules": a planned node that declares any `Bash(git …)` entry also gets the scoped deny rules of
 * `git-deny.ts` in layer 5 (`-c`, `config`, `commit`, `--output`, `push`, …), because `Bash(git *)` is a
 * prefix grant and git has its own ways to run commands and write files. Deny rules beat allow rules in
 * the real CLI; this narrows the grant, it does not sandbox it.
 */
import { bareToolName, DENIABLE_TOOLS } from "./allowlist.js";
import { gitDenyRules } from "./git-deny.js";
import type { ToolPolicy } from "./tool-policy.js";

export interface PlannedNodePolicyOptions {
  /** The operator typed `accept-loaded-user-config` at launch (never from a plan, PR text or policy file). */
  readonly loadedUserConfig: boolean;
}

/** Bare names of a declaration, deduplicated in first-seen order: `Read, Bash(git *), Bash(ls *)` → `Read, Bash`. */
export function bareToolNames(allowedTools: readonly string[]): string[] {
  const names: string[] = [];
  for (const entry of allowedTools) {
    const bare = bareToolName(entry);
    if (!names.includes(bare)) names.push(bare);
  }
  return names;
}

/**
 * The five-layer ceiling of one planned node. `allowedTools` is the node's declaration after the
 * planned-spec validator accepted it (non-empty, every entry on the allowlist); an empty declaration here
 * is a broken invariant, because `--tools ""` would silently mean "no tools at all".
 *
 * Without the opt-in: `settingSources: ""`, `strictMcpConfig: true`. With it: `settingSources` absent and
 * `strictMcpConfig: false`; `allowedTools`, `tools` and `disallowedTools` are identical either way.
 * `disallowedTools` is the undeclared deniable tools by bare name, then the git deny rules when the
 * declaration holds a `Bash(git …)` grant.
 */
export function plannedNodePolicy(
  allowedTools: readonly string[],
  options: PlannedNodePolicyOptions,
): ToolPolicy {
  if (allowedTools.length === 0) {
    throw new Error("Internal error: a planned node reached the ceiling with no allowed_tools");
  }
  const tools = bareToolNames(allowedTools);
  const residual = Object.freeze({
    allowedTools: Object.freeze([...allowedTools]),
    tools: Object.freeze(tools),
    disallowedTools: Object.freeze([
      ...DENIABLE_TOOLS.filter((name) => !tools.includes(name)),
      ...gitDenyRules(allowedTools),
    ]),
  });
  if (options.loadedUserConfig) {
    return Object.freeze({ ...residual, strictMcpConfig: false });
  }
  return Object.freeze({ settingSources: "", ...residual, strictMcpConfig: true });
}

/**
 * The planner's stance: read-only (the runtime adds permission mode `plan` / sandbox `read-only`), all
 * nine deniable tools denied, no `--tools` narrowing (it needs the read tools), and NOT settings-isolated.
 *
 * Why not isolated: the planner's job includes reading the repository's CLAUDE.md and project settings
 * to plan well, as upstream decided (seed 001 §1.4). In the action that configuration is safe to load
 * because each CLI gets a fresh HOME and agent configuration files are restored from the base branch
 * before any CLI starts (SPEC §9), so the planner sees the maintainers' files, never the PR's. In the CLI
 * it is the operator's own machine.
 *
 * Where this differs from upstream: strict MCP config is ON. The planner reads fenced PR text, and
 * reading a repository needs no MCP server; closing them costs the planner nothing it needs. (Whether the
 * flag closes every MCP path is unmeasured upstream — E5 — so this is a narrowing, not a claim.)
 */
export function plannerPolicy(): ToolPolicy {
  return Object.freeze({
    allowedTools: Object.freeze([] as string[]),
    strictMcpConfig: true,
    disallowedTools: Object.freeze([...DENIABLE_TOOLS]),
  });
}

/**
 * The goal loop's assessor (SPEC §7; issue 13 item 7): no tool at all (`--tools ""`), every deniable tool
 * denied, settings isolated (`--setting-sources ""`) and strict MCP config. It reads only its prompt (the
 * goal and the run's ledger, fenced) and answers JSON; nothing it could load or call would help it.
 */
export function assessorPolicy(): ToolPolicy {
  return Object.freeze({
    settingSources: "",
    allowedTools: Object.freeze([] as string[]),
    tools: Object.freeze([] as string[]),
    strictMcpConfig: true,
    disallowedTools: Object.freeze([...DENIABLE_TOOLS]),
  });
}

/** The only layer a hand-written `run` node gets: its own declaration (SPEC §8; seed 001 §1.3). */
export type HandWrittenToolPolicy = Pick<ToolPolicy, "allowedTools">;

/**
 * A hand-written node's policy: `--allowedTools` from its own `allowed_tools` and nothing else — no
 * isolation, no narrowing, no MCP closure, no deny list. The operator wrote and reviewed the graph; its
 * own settings are the intended policy.
 */
export function handWrittenPolicy(node: {
  readonly allowed_tools?: readonly string[];
}): HandWrittenToolPolicy {
  return Object.freeze({ allowedTools: Object.freeze([...(node.allowed_tools ?? [])]) });
}

/**
 * The ceiling of every node of a validated planned spec, keyed by node id.
 */
export function plannedNodePolicies(
  nodes: readonly { readonly id: string; readonly allowed_tools: readonly string[] }[],
  options: PlannedNodePolicyOptions,
): Record<string, ToolPolicy> {
  const policies: Record<string, ToolPolicy> = Object.create(null);
  for (const node of nodes) policies[node.id] = plannedNodePolicy(node.allowed_tools, options);
  return policies;
}

/**
 * Whether a run's planned nodes carry the operator's configuration, read from the policies about to be
 * spawned (or restored from `state.json` on resume) rather than from the flag, so the disclosure cannot
 * drift from the argv (seed 001 §2.7). `undefined` when there are no planned policies (a hand-written
 * run, which gets no ceiling disclosure). Mixed policies are a broken invariant: the opt-in is run-wide.
 */
export function loadedUserConfigOf(policies: Readonly<Record<string, ToolPolicy>>): boolean | undefined {
  const values = Object.values(policies);
  if (values.length === 0) return undefined;
  const loaded = values.filter((policy) => policy.settingSources === undefined).length;
  if (loaded !== 0 && loaded !== values.length) {
    throw new Error("Internal error: planned nodes disagree on settings isolation; the opt-in is run-wide");
  }
  return loaded === values.length;
}
