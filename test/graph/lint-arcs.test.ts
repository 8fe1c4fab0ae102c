/**
 * The Go CLI's feedback-reach and session-handoff advisories (issue 26; Go `LintFeedbackReach`,
 * `handoff.LintSessions`), through `lint` as a user runs it.
 */
import { describe, expect, test } from "vitest";
import { formatAdvisory, lintGraph } from "../../src/graph/lint.js";
import { formatIssue } from "../../src/graph/validate.js";

function advisoriesOf(text: string, kind: string): string[] {
  const linted = lintGraph(text, "g.yaml");
  expect(linted.errors.map(formatIssue)).toEqual([]);
  return linted.advisories.filter((a) => a.kind === kind).map(formatAdvisory);
}

/** A node; `quoting` puts the reviewer's feedback in its prompt (only legal inside the arc's body). */
const node = (id: string, extra = "", quoting = false): string =>
  `  - { id: ${id}, prompt: "${id}${quoting ? " {{ feedback.review }}" : ""}", allowed_tools: [Read]${extra} }\n`;

describe("feedback-reach", () => {
  test("a reviewer fanning in from a sibling its arc never re-runs: named, with the target that covers both", () => {
    const graph =
      "nodes:\n" +
      node("spec") +
      node("a", ", depends_on: [spec]", true) +
      node("b", ", depends_on: [spec]") +
      "  - { id: review, depends_on: [a, b], prompt: judge, allowed_tools: [Read], feedback: { rerun: a, max: 2 } }\n";
    expect(advisoriesOf(graph, "feedback-reach")).toEqual([
      'advisory: node "review": feedback re-runs "a", whose body {a, review} leaves out producer "b", which is not upstream of the arc either: a defect this node finds in "b"\'s output cannot be repaired — each round re-judges the same artifact until the rounds are spent (this reads depends_on, not what the prompt judges: ignore it if "b" is only stable context); consider rerun: spec — its body covers every producer this node depends on and still validates',
    ]);
  });

  test("a parent upstream of the rerun target is stable context: silent (spec → impl → review, rerun impl)", () => {
    const graph =
      "nodes:\n" +
      node("spec") +
      node("impl", ", depends_on: [spec]", true) +
      "  - { id: review, depends_on: [impl, spec], prompt: judge, allowed_tools: [Read], feedback: { rerun: impl, max: 2 } }\n";
    expect(advisoriesOf(graph, "feedback-reach")).toEqual([]);
  });

  test("two unrelated roots: no target covers both, and the advice says the fix is structural", () => {
    const graph =
      "nodes:\n" +
      node("a", "", true) +
      node("b") +
      "  - { id: review, depends_on: [a, b], prompt: judge, allowed_tools: [Read], feedback: { rerun: a, max: 1 } }\n";
    const [advice] = advisoriesOf(graph, "feedback-reach");
    expect(advice).toContain('leaves out producer "b"');
    expect(advice).toContain("no single rerun target covers every producer and still validates");
  });
});

describe("handoff: session", () => {
  test("a session child in another cwd than its parent", () => {
    const graph =
      "nodes:\n  - { id: plan, prompt: p, allowed_tools: [Read], cwd: app }\n" +
      "  - { id: impl, depends_on: [plan], handoff: session, prompt: q, allowed_tools: [Read] }\n";
    expect(advisoriesOf(graph, "session-across-cwd")).toEqual([
      'advisory: node "impl": has handoff: session, but runs in the run\'s working directory while its parent "plan" ran in cwd "app": claude finds a conversation to resume only under the folder it ran in, so the resume fails or starts cold; give both the same cwd, or use handoff: artifact',
    ]);
    const same = graph.replace("handoff: session,", "handoff: session, cwd: app,");
    expect(advisoriesOf(same, "session-across-cwd")).toEqual([]);
  });

  test("a session child with retry starts its retries cold", () => {
    const graph =
      "nodes:\n  - { id: plan, prompt: p, allowed_tools: [Read] }\n" +
      "  - { id: impl, depends_on: [plan], handoff: session, prompt: q, allowed_tools: [Read], retry: { max: 1, on: [nonzero_exit] } }\n";
    expect(advisoriesOf(graph, "session-retry-cold")).toEqual([
      'advisory: node "impl": has handoff: session and retry: a retried attempt starts a fresh session, not its parent\'s, so it sees only its own prompt (and the failed reply it quotes); make the prompt work cold, or drop retry',
    ]);
    expect(
      advisoriesOf(graph.replace(", retry: { max: 1, on: [nonzero_exit] }", ""), "session-retry-cold"),
    ).toEqual([]);
  });
});
