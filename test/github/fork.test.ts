/**
 * The fork test (src/github/fork.ts `isForkHead`): one rule for a `pull_request` payload, a pull request read
 * through the API, a `workflow_run` payload and a listed artifact's run — ids first, names when no ids, a fork
 * when neither can be compared. The surfaces' own tests: event-context.test.ts (payload ids kept),
 * workflow-run-event.test.ts, run-artifact-download.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isForkHead } from "../../src/github/fork.js";
import { parseWorkflowRunEvent } from "../../src/github/workflow-run-event.js";

describe("isForkHead", () => {
  it.each([
    ["same id, same name", { id: 7, full_name: "o/r" }, { id: 7, full_name: "o/r" }, false],
    ["same id, head renamed since", { id: 7, full_name: "o/old" }, { id: 7, full_name: "o/r" }, false],
    ["other id under the base's name", { id: 8, full_name: "o/r" }, { id: 7, full_name: "o/r" }, true],
    ["no ids: names, case-insensitively", { full_name: "O/R" }, { full_name: "o/r" }, false],
    ["no ids: another name", { full_name: "mona/r" }, { full_name: "o/r" }, true],
    ["an id on one side only: names", { id: 8, full_name: "o/r" }, { full_name: "o/r" }, false],
    ["ids only (an artifact's run)", { id: 7 }, { id: 7 }, false],
    ["ids only, different", { id: 8 }, { id: 7 }, true],
    ["nothing comparable: a fork, never assumed the same", { id: 7 }, { full_name: "o/r" }, true],
    ["head deleted (null)", null, { id: 7, full_name: "o/r" }, true],
    ["head absent (undefined)", undefined, { id: 7, full_name: "o/r" }, true],
  ])("%s → %s", (_why, head, base, fork) => {
    expect(isForkHead(head, base)).toBe(fork);
  });
});

describe("a workflow_run payload goes through the same rule", () => {
  const payload = (head: { id: number; full_name: string } | null) => ({
    action: "completed",
    workflow_run: {
      id: 1,
      event: "pull_request",
      conclusion: "success",
      head_sha: "a".repeat(40),
      head_branch: "topic",
      head_repository: head,
      repository: { id: 7, full_name: "o/r" },
      pull_requests: [],
    },
    repository: { full_name: "o/r" },
  });

  it("renamed head with the base's id: not from a fork; another id: from a fork; none: from a fork", () => {
    expect(parseWorkflowRunEvent(payload({ id: 7, full_name: "o/old" })).fromFork).toBe(false);
    expect(parseWorkflowRunEvent(payload({ id: 8, full_name: "o/r" })).fromFork).toBe(true);
    expect(parseWorkflowRunEvent(payload(null)).fromFork).toBe(true);
  });
});
