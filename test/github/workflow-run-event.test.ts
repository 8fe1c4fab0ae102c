/**
 * The `workflow_run` payload as `mode: report` reads it (SPEC §10; research/security.md §1.3), from GitHub's
 * own example payloads (`@octokit/webhooks-examples`): the head commit, whether the run came from a fork
 * (head repository id ≠ repository id), and only the linked pull requests whose head is the run's.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parseWorkflowRunEvent, WorkflowRunEventError } from "../../src/github/workflow-run-event.js";

const examples = (
  createRequire(import.meta.url)("@octokit/webhooks-examples") as {
    name: string;
    examples: Record<string, unknown>[];
  }[]
).find((e) => e.name === "workflow_run")!.examples;

describe("parseWorkflowRunEvent", () => {
  it("reads every GitHub example payload (each a same-repository run); another head repository is a fork", () => {
    const read = examples.map(parseWorkflowRunEvent);
    expect(read.map((e) => [e.action, e.fromFork])).toEqual([
      ["completed", false],
      ["completed", false],
      ["completed", false],
      ["requested", false],
      ["requested", false],
    ]);
    expect(read[1]).toMatchObject({
      runId: 289782451,
      event: "repository_dispatch",
      conclusion: "success",
      headSha: "3484a3fb816e0859fd6e1cea078d76385ff50625",
      headRepository: "octo-org/octo-repo",
      repository: "octo-org/octo-repo",
      actor: expect.any(String),
    });
    const fork = structuredClone(examples[1]!) as {
      workflow_run: { head_repository: { id: number; full_name: string } | null };
    };
    fork.workflow_run.head_repository = {
      ...fork.workflow_run.head_repository!,
      id: 1,
      full_name: "forker/octo-repo",
    };
    expect(parseWorkflowRunEvent(fork)).toMatchObject({ fromFork: true, headRepository: "forker/octo-repo" });
    // A deleted fork: GitHub sends no head repository.
    fork.workflow_run.head_repository = null;
    expect(parseWorkflowRunEvent(fork)).toMatchObject({ fromFork: true, headRepository: null });
  });

  it("keeps only the linked pull requests whose head is the run's head commit", () => {
    const payload = structuredClone(examples[2]!) as {
      workflow_run: { head_sha: string; pull_requests: { head: { sha: string } }[] };
    };
    expect(parseWorkflowRunEvent(payload).pullRequests).toEqual([]);
    payload.workflow_run.pull_requests[0]!.head.sha = payload.workflow_run.head_sha;
    expect(parseWorkflowRunEvent(payload).pullRequests).toEqual([2]);
  });

  it("a payload without a usable head commit is refused naming the field", () => {
    const payload = structuredClone(examples[1]!) as { workflow_run: Record<string, unknown> };
    payload.workflow_run.head_sha = "main";
    expect(() => parseWorkflowRunEvent(payload)).toThrow(WorkflowRunEventError);
    expect(() => parseWorkflowRunEvent(payload)).toThrow(
      /workflow_run\.head_sha: expected a 40-hex commit SHA/,
    );
  });
});
