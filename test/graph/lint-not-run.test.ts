/**
 * Fields that load but that this version does not act on (docs/graph-format.md "What lint adds"): each
 * earns an advisory saying what `run` does about it, on gates too.
 */
import { expect, test } from "vitest";
import { lintGraph } from "../../src/graph/lint.js";

const kinds = (text: string): [string, string][] =>
  lintGraph(text, "g.yaml").advisories.map((advisory) => [advisory.nodeId, advisory.kind]);

test("worktree and a gate description are each reported, naming what run does; agent (which runs) is not", () => {
  const text = `nodes:
  - { id: dev, prompt: p, allowed_tools: [Read], worktree: lane }
  - { id: review, depends_on: [dev], prompt: p, allowed_tools: [Read], agent: reviewer }
  - { id: ok, type: gate, depends_on: [review], worktree: lane, description: "Approve {{ artifacts.review }}" }
  - { id: done, depends_on: [ok], prompt: p, allowed_tools: [Read], success_check: { verify: { command: make } } }
`;
  expect(kinds(text)).toEqual([
    ["dev", "worktree-not-run"],
    ["ok", "worktree-not-run"],
    ["ok", "description-not-shown"],
  ]);
  const reasons = lintGraph(text, "g.yaml").advisories.map((advisory) => advisory.reason);
  expect(reasons[0]).toContain("`run` refuses the graph rather than run the node in the shared working tree");
});
