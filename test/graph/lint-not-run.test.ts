/**
 * Fields that load but that this version does not act on, and worktree nodes whose changes no verify checks
 * (docs/graph-format.md "What lint adds"): each
 * earns an advisory saying what `run` does about it, on gates too.
 */
import { expect, test } from "vitest";
import { lintGraph } from "../../src/graph/lint.js";

const kinds = (text: string): [string, string][] =>
  lintGraph(text, "g.yaml").advisories.map((advisory) => [advisory.nodeId, advisory.kind]);

test("an unverified worktree node and a gate description are each reported, naming what run does; agent (which runs) is not", () => {
  const text = `nodes:
  - { id: dev, prompt: p, allowed_tools: [Read], worktree: lane }
  - { id: review, depends_on: [dev], prompt: p, allowed_tools: [Read], agent: reviewer }
  - { id: ok, type: gate, depends_on: [review], worktree: lane, description: "Approve {{ artifacts.review }}" }
  - { id: done, depends_on: [ok], prompt: p, allowed_tools: [Read], success_check: { verify: { command: make } } }
`;
  expect(kinds(text)).toEqual([
    ["dev", "worktree-unverified"],
    ["ok", "description-not-shown"],
  ]);
  const reasons = lintGraph(text, "g.yaml").advisories.map((advisory) => advisory.reason);
  expect(reasons[0]).toContain(
    'runs in worktree "lane": its changes are committed on the branch evidence-gate/<run id>/lane, not in the main working tree',
  );
});

test("a worktree node is covered only by a verified sink in the same worktree that is it or depends on it", () => {
  const lint = (nodes: string) =>
    lintGraph(`nodes:\n${nodes}`, "g.yaml")
      .advisories.filter((advisory) => advisory.kind === "worktree-unverified")
      .map((advisory) => advisory.nodeId);
  const verify = "success_check: { verify: { command: npm test } }";
  // The sink verifies in the same worktree, downstream of both lane nodes: covered.
  expect(
    lint(`  - { id: a, prompt: p, allowed_tools: [Read], worktree: lane }
  - { id: b, depends_on: [a], prompt: p, allowed_tools: [Read], worktree: lane, ${verify} }
`),
  ).toEqual([]);
  // The node verifies itself as a sink in its worktree: covered.
  expect(
    lint(`  - { id: a, prompt: p, allowed_tools: [Read], worktree: lane, ${verify} }
`),
  ).toEqual([]);
  // A verified sink in the main working tree, or in another worktree, does not see lane's branch.
  expect(
    lint(`  - { id: a, prompt: p, allowed_tools: [Read], worktree: lane }
  - { id: b, prompt: p, allowed_tools: [Read], worktree: other, ${verify} }
  - { id: c, depends_on: [a], prompt: p, allowed_tools: [Read], ${verify} }
`),
  ).toEqual(["a"]);
  // A verified sink in the worktree that does not depend on the node does not check it.
  expect(
    lint(`  - { id: a, prompt: p, allowed_tools: [Read], worktree: lane }
  - { id: b, prompt: p, allowed_tools: [Read], worktree: lane, ${verify} }
  - { id: c, depends_on: [a], prompt: p, allowed_tools: [Read], ${verify} }
`),
  ).toEqual(["a"]);
});

test("handoff: session across worktrees (or out of one) is reported: claude resumes only from the folder it ran in", () => {
  const text = `nodes:
  - { id: plan, prompt: p, allowed_tools: [Read] }
  - { id: dev, depends_on: [plan], handoff: session, prompt: p, allowed_tools: [Read], worktree: lane, success_check: { verify: { command: make } } }
  - { id: same, depends_on: [dev], handoff: session, prompt: p, allowed_tools: [Read], worktree: lane, success_check: { verify: { command: make } } }
`;
  const advisories = lintGraph(text, "g.yaml").advisories.filter(
    (a) => a.kind === "session-across-worktrees",
  );
  expect(advisories.map((a) => [a.nodeId, a.reason])).toEqual([
    [
      "dev",
      'has handoff: session, but its parent "plan" runs in the main working tree and it runs in worktree "lane": claude finds a conversation to resume only from the folder it ran in, so the resume fails (No conversation found); put both in the same worktree, or use handoff: artifact',
    ],
  ]);
});
