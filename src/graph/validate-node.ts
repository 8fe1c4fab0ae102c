/**
 * Rules a single node's own fields must satisfy (SPEC §3 validation list, §7 completion): prompts, gate
 * fields, durations, patterns, verify commands, retry, budgets and the completion gate. Every rule is
 * checked; the caller collects the lot.
 */

import { formatDuration, parseDuration } from "./duration.js";
import { type GraphIssue, nodeIssue } from "./issue.js";
import { compilePattern } from "./pattern.js";
import { type NodeSpec, RETRY_CAUSES, type VerifySpec } from "./schema.js";
import { NODE_ID_SEGMENT } from "./validate-edges.js";
import { verifyCommandRunsNothing } from "./verify-runs-nothing.js";

/** Limits a node is judged against. `verifyTimeoutCeilingMs`: the largest verify timeout allowed (ms). */
export interface NodeRuleLimits {
  readonly verifyTimeoutCeilingMs: number;
}

// Fields that only mean something for a spawned process. A gate spawns nothing, so on a gate each would
// be dead text — or, for feedback/retry/completion, a promise the engine could never keep.
const PROCESS_ONLY_FIELDS = [
  "prompt",
  "cwd",
  "allowed_tools",
  "permission_mode",
  "timeout",
  "budget_usd",
  "retry",
  "feedback",
  "completion",
  "agent",
] as const satisfies readonly (keyof NodeSpec)[];

/** Every issue with node `node` (at `index` in `nodes`) that its own fields show. */
export function nodeFieldIssues(node: NodeSpec, index: number, limits: NodeRuleLimits): GraphIssue[] {
  const reasons = node.type === "gate" ? gateReasons(node) : agentReasons(node, limits);
  reasons.push(...placementReasons(node));
  return reasons.map((reason) => nodeIssue(node, index, reason));
}

/**
 * `worktree` (Go `validateWorktrees`): one safe path element, since it names a directory and a branch —
 * and so nothing `git check-ref-format` refuses in a branch name (`..`, a trailing `.` or `.lock`);
 * exclusive with `cwd`, since the worktree IS where the node runs. Valid on gates too: a lane's gate
 * names its lane. `""` means none, as in the Go CLI.
 */
function placementReasons(node: NodeSpec): string[] {
  const worktree = node.worktree ?? "";
  if (worktree === "") return [];
  const reasons: string[] = [];
  if (!NODE_ID_SEGMENT.test(worktree)) {
    reasons.push(
      `worktree ${JSON.stringify(worktree)} must be one path element — letters, digits, ".", "_" or "-", ` +
        "starting with a letter or digit — since it names a directory and a branch",
    );
  } else if (worktree.includes("..") || worktree.endsWith(".") || worktree.endsWith(".lock")) {
    // git check-ref-format: the branch evidence-gate/<run id>/NAME could not be created.
    reasons.push(
      `worktree ${JSON.stringify(worktree)} cannot end a git branch name (it holds "..", or ends with "." or ` +
        '".lock"), and its branch is evidence-gate/<run id>/NAME: rename it',
    );
  }
  if ((node.cwd ?? "") !== "") {
    reasons.push(
      `worktree and cwd are exclusive: the worktree ${JSON.stringify(worktree)} is where this node runs; ` +
        "remove cwd (or worktree)",
    );
  }
  return reasons;
}

function gateReasons(node: NodeSpec): string[] {
  const reasons: string[] = [];
  for (const field of PROCESS_ONLY_FIELDS) {
    if (node[field] !== undefined) {
      reasons.push(
        `a gate spawns no process, so it may not set ${field}; remove it or make this an agent node`,
      );
    }
  }
  const check = node.success_check;
  if (check !== undefined && Object.keys(check).length > 0) {
    reasons.push("a gate may not set success_check: a person's approval is its only check");
  }
  if (node.handoff === "session") {
    reasons.push("a gate has no session to continue, so it may not set handoff: session");
  }
  return reasons;
}

function agentReasons(node: NodeSpec, limits: NodeRuleLimits): string[] {
  const reasons: string[] = [];
  if (node.prompt === undefined || node.prompt.trim() === "") {
    reasons.push("an agent node needs a non-empty prompt — it is all the CLI is told");
  }
  if (node.description !== undefined) {
    reasons.push(
      "description is what a person reads when deciding a gate, so it is valid only on type: gate " +
        "(this node is type: agent, the Go CLI's type: claude-run)",
    );
  }
  // Go `validateAgentNames`: only surrounding whitespace is judged — whether a name resolves depends on
  // the machine (~/.claude/agents, <cwd>/.claude/agents), not on the graph.
  if (node.agent !== undefined && node.agent !== "" && node.agent.trim() !== node.agent) {
    reasons.push(
      node.agent.trim() === ""
        ? 'agent is only whitespace: name a subagent, or write agent: "" (none)'
        : `agent ${JSON.stringify(node.agent)} has surrounding whitespace, which claude would not resolve`,
    );
  }
  if (node.timeout !== undefined) {
    const timeout = parseDuration(node.timeout);
    if (!timeout.ok) reasons.push(`timeout: ${timeout.message}`);
    else if (timeout.ms <= 0) reasons.push(`timeout ${JSON.stringify(node.timeout)} must be positive`);
  }
  if (node.budget_usd !== undefined && !(Number.isFinite(node.budget_usd) && node.budget_usd > 0)) {
    reasons.push(`budget_usd must be a positive number of US dollars (got ${node.budget_usd})`);
  }
  for (const tool of node.allowed_tools ?? []) {
    if (tool.trim() === "") reasons.push("allowed_tools has an empty entry");
    else if (tool.trim() !== tool)
      reasons.push(`allowed_tools entry ${JSON.stringify(tool)} has surrounding whitespace`);
  }
  const check = node.success_check;
  if (check?.result_matches !== undefined) {
    const compiled = compilePattern(check.result_matches);
    if (!compiled.ok) reasons.push(`success_check.result_matches: ${compiled.message}`);
  }
  if (check?.verify !== undefined) reasons.push(...verifyReasons(check.verify, limits));
  if (node.retry !== undefined) {
    const { max, on } = node.retry;
    if (max !== undefined && max < 0) reasons.push(`retry.max must be >= 0 (got ${max})`);
    for (const cause of on ?? []) {
      if (!(RETRY_CAUSES as readonly string[]).includes(cause)) {
        reasons.push(
          `retry.on: unknown cause ${JSON.stringify(cause)} (want one of: ${RETRY_CAUSES.join(", ")})`,
        );
      }
    }
  }
  if (node.completion !== undefined) reasons.push(...completionReasons(node.completion, limits));
  return reasons;
}

function verifyReasons(verify: VerifySpec, limits: NodeRuleLimits): string[] {
  const reasons: string[] = [];
  if (verify.command === undefined || verify.command.trim() === "") {
    reasons.push(
      "success_check.verify needs a command — a verify step with nothing to run would pass every time",
    );
  } else if (verifyCommandRunsNothing(verify.command)) {
    reasons.push(
      "success_check.verify.command is only # comments — it runs nothing and would pass every time; give the " +
        "command that checks the work",
    );
  }
  reasons.push(...commandLimitReasons("success_check.verify", verify, limits));
  if (verify.output_matches !== undefined) {
    const compiled = compilePattern(verify.output_matches);
    if (!compiled.ok) reasons.push(`success_check.verify.output_matches: ${compiled.message}`);
  }
  return reasons;
}

/** A verify command's `timeout` (positive, under the ceiling) and `expect_exit` (an exit status). */
function commandLimitReasons(
  field: string,
  command: { readonly timeout?: string | undefined; readonly expect_exit?: number | undefined },
  limits: NodeRuleLimits,
): string[] {
  const reasons: string[] = [];
  if (command.timeout !== undefined) {
    const timeout = parseDuration(command.timeout);
    if (!timeout.ok) {
      reasons.push(`${field}.timeout: ${timeout.message}`);
    } else if (timeout.ms <= 0) {
      reasons.push(`${field}.timeout ${JSON.stringify(command.timeout)} must be positive`);
    } else if (timeout.ms > limits.verifyTimeoutCeilingMs) {
      reasons.push(
        `${field}.timeout ${command.timeout} exceeds the ${formatDuration(limits.verifyTimeoutCeilingMs)} ` +
          "ceiling — a verify command runs on its node's critical path; split long work into its own node",
      );
    }
  }
  if (command.expect_exit !== undefined && (command.expect_exit < 0 || command.expect_exit > 255)) {
    reasons.push(`${field}.expect_exit must be an exit status from 0 to 255 (got ${command.expect_exit})`);
  }
  return reasons;
}

function completionReasons(
  completion: NonNullable<NodeSpec["completion"]>,
  limits: NodeRuleLimits,
): string[] {
  const reasons: string[] = [];
  const { max_attempts: maxAttempts, verify } = completion;
  // SPEC §7: required, no default — an unbounded completion loop is a runaway loop.
  if (maxAttempts === undefined || maxAttempts < 1) {
    reasons.push(
      `completion.max_attempts must be declared and >= 1 (got ${maxAttempts ?? "nothing"}) — there is no default`,
    );
  }
  if (verify === undefined) {
    reasons.push("completion needs a verify: { command: … } or { todos: all_done }");
    return reasons;
  }
  const hasCommand = verify.command !== undefined;
  const hasTodos = verify.todos !== undefined;
  if (hasCommand === hasTodos) {
    reasons.push("completion.verify must set exactly one of command or todos: all_done");
  }
  if (hasCommand && verify.command?.trim() === "") {
    reasons.push(
      "completion.verify.command is empty — a completion check with nothing to run would pass every time",
    );
  } else if (hasCommand && verifyCommandRunsNothing(verify.command ?? "")) {
    reasons.push(
      "completion.verify.command is only # comments — it runs nothing and would pass every time; give the " +
        "command that checks the work",
    );
  }
  if (hasTodos && verify.todos !== "all_done") {
    reasons.push(`completion.verify.todos must be all_done (got ${JSON.stringify(verify.todos)})`);
  }
  if (hasCommand) reasons.push(...commandLimitReasons("completion.verify", verify, limits));
  // Each option belongs to one kind of check: on the other it would be a promise nothing keeps.
  if (!hasCommand && (verify.timeout !== undefined || verify.expect_exit !== undefined)) {
    reasons.push(
      "completion.verify.timeout and expect_exit belong to a command; todos: all_done runs nothing",
    );
  }
  if (!hasTodos && verify.require_plan !== undefined) {
    reasons.push(
      "completion.verify.require_plan belongs to todos: all_done; a command has no plan to require",
    );
  }
  return reasons;
}
