/**
 * A completion gate across legs and limits (SPEC §7; issue 13 items 3 and 6), on claude (the runtime whose
 * session limit pauses a run and which reports USD), with the real CLI against the scripted model server:
 *
 * - a run stopped during attempt k+1 (here: the model's session limit, which pauses the run) resumes at
 *   attempt k+1 in the persisted session with the persisted feedback; the attempts never restart at 1;
 * - a session the CLI no longer finds fails the node "session lost", never a silent fresh session;
 * - a node budget of one attempt's cost with `max_attempts: 5` stops after the attempt that spends it.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ModelScript } from "../support/model-server/index.js";
import { asFail, graphHarnessPerTest, readState, requestsOf, rowWords } from "./graph-harness.js";
import { historyText, shellCall } from "./runtime-harness.js";

const start = graphHarnessPerTest();

const LIMIT = "You've hit your session limit · resets 5:20pm (UTC)";

const GRAPH = `
nodes:
  - id: work
    prompt: CG-TASK write the step file
    allowed_tools: [Bash]
    completion:
      verify: { command: "cat step.txt; grep -qx three step.txt" }
      max_attempts: 3
`;

/** Attempt 1 writes `one`; attempt 2 plays `second`. */
function script(second: ModelScript["conversations"][number]["turns"]): ModelScript {
  return {
    conversations: [
      { name: "attempt-2", match: ["COMPLETION CHECK FAILED", "completion attempt 2 of "], turns: second },
      {
        name: "attempt-1",
        match: "CG-TASK",
        turns: [{ tool_calls: [shellCall("claude", "printf 'one\\n' > step.txt")] }, { text: "wrote one" }],
      },
    ],
  };
}

const WRITES_THREE = [
  { tool_calls: [shellCall("claude", "printf 'three\\n' > step.txt")] },
  { text: "wrote three" },
];

/** Pauses during attempt 2 (the session limit); returns the paused run and the first attempt's session. */
async function pausedAtAttempt2(h: Awaited<ReturnType<typeof start>>) {
  const paused = await h.run(GRAPH);
  expect(paused.ledger.conclusion).toMatchObject({ outcome: "paused" });
  const session = paused.ledger.rows[0]?.sessionId ?? "";
  expect(session).not.toBe("");
  const record = readState(paused.runDir).nodes.work?.completion;
  expect(record).toMatchObject({ attempt: 2, session_id: session, round: 0 });
  expect(record?.reasons).toEqual(["`cat step.txt; grep -qx three step.txt` exited 1 (expected 0)"]);
  expect(record?.feedback).toContain("one");
  return { paused, session };
}

describe("a completion gate on claude across legs and limits", () => {
  test("a run stopped during attempt 2 resumes at attempt 2 in the same session with the same feedback", async () => {
    const h = await start({
      runtime: "claude",
      script: () => script([{ error: { status: 429, message: LIMIT } }]),
    });
    const { paused, session } = await pausedAtAttempt2(h);

    const server = await h.replaceServer(script(WRITES_THREE));
    const { ledger, runDir } = await h.resume(paused.runId, { kind: "retry-failed" });

    // Attempt 1 did not run again; attempt 2 ran once, in the first session, told the first failure.
    expect(requestsOf(server.requests, "attempt-1")).toHaveLength(0);
    const resumed = requestsOf(server.requests, "attempt-2")[0];
    if (resumed === undefined) throw new Error("attempt 2 never reached the model after the resume");
    expect(resumed.promptText).toContain("completion attempt 2 of 3");
    expect(resumed.promptText).toMatch(/<<<DATA completion-check-report nonce=[0-9a-f]+>>>[\s\S]*one\n/);
    expect(historyText(resumed)).toContain("CG-TASK write the step file");
    const last = ledger.rows.at(-1);
    expect(last).toMatchObject({
      nodeId: "work",
      verdict: "PASS",
      qualifier: "verified",
      sessionId: session,
    });
    expect(last?.completion).toEqual({ attempt: 2, maxAttempts: 3, check: "passed" });
    expect(ledger.conclusion?.outcome).toBe("passed");
    expect(readState(runDir).nodes.work?.completion).toBeUndefined();
  });

  test("a session the CLI no longer finds fails the node 'session lost', never a fresh session", async () => {
    const h = await start({
      runtime: "claude",
      script: () => script([{ error: { status: 429, message: LIMIT } }]),
    });
    const { paused, session } = await pausedAtAttempt2(h);
    // The CLI's record of the session disappears (another machine, a cleaned HOME).
    const projects = join(h.home, ".claude", "projects");
    let removed = 0;
    for (const dir of readdirSync(projects)) {
      for (const file of readdirSync(join(projects, dir))) {
        if (file.startsWith(session)) {
          rmSync(join(projects, dir, file), { recursive: true });
          removed++;
        }
      }
    }
    expect(removed).toBeGreaterThan(0);

    const server = await h.replaceServer(script(WRITES_THREE));
    const { ledger } = await h.resume(paused.runId, { kind: "retry-failed" });
    const last = asFail(ledger.rows.at(-1));
    expect(last.cause).toBe("run_error");
    expect(last.stoppedBy).toBe("session lost");
    expect(last.detail).toContain(`session lost: claude no longer finds session ${session}`);
    expect(last.completion).toMatchObject({ attempt: 2, maxAttempts: 3, check: "not_run" });
    // Nothing answered in a fresh session.
    expect(requestsOf(server.requests, "attempt-1")).toHaveLength(0);
    expect(requestsOf(server.requests, "attempt-2")).toHaveLength(0);
    expect(ledger.conclusion?.conclusion).toBe("failure");
  });

  test("a budget of one attempt's cost with max_attempts 5 stops after the attempt that spends it", async () => {
    const h = await start({ runtime: "claude", script: () => script(WRITES_THREE) });
    // One attempt's cost, measured on the same script without a gate.
    const measured = await h.run(GRAPH.replace(/ {4}completion:[\s\S]*$/, ""));
    const cost = measured.ledger.rows[0]?.costUsd ?? 0;
    expect(cost).toBeGreaterThan(0);

    const withBudget = (usd: number) =>
      GRAPH.replace("max_attempts: 3", "max_attempts: 5").replace(
        "    allowed_tools: [Bash]\n",
        `    allowed_tools: [Bash]\n    budget_usd: ${usd}\n`,
      );
    // The whole budget is one attempt's: the CLI gets it all and stops at it; no second attempt.
    const one = await h.run(withBudget(cost));
    expect(rowWords(one.ledger.rows)).toEqual(["work FAIL budget_exceeded"]);
    expect(one.ledger.rows[0]?.completion).toMatchObject({ attempt: 1, maxAttempts: 5 });
    expect(requestsOf(h.server.requests, "attempt-2")).toHaveLength(0);

    // One and a half: attempt 2 gets only what attempt 1 left (the budget binds across attempts).
    const half = await h.run(withBudget(cost * 1.5));
    expect(rowWords(half.ledger.rows)).toEqual([
      "work FAIL incomplete superseded",
      "work FAIL budget_exceeded",
    ]);
    const second = asFail(half.ledger.rows[1]);
    expect(second.completion).toMatchObject({ attempt: 2, maxAttempts: 5 });
    expect(second.costUsd ?? 1).toBeLessThan(cost);
    expect(second.detail).toContain("attempt 2/5");
  });
});
