/**
 * A completion gate across legs and limits (SPEC §7; issue 13 items 3 and 6) where the real CLI is the
 * point, with the real CLI against the scripted model server:
 *
 * - a session the real `claude` no longer finds (its record deleted from `HOME`) fails the node "session
 *   lost", never a silent fresh session;
 * - a node budget of one attempt's cost (as the real `claude` measured it) with `max_attempts: 5` stops
 *   after the attempt that spends it: the real CLI stops at `--max-budget-usd`, and the budget binds across
 *   attempts of one resumed session, whose cost claude reports cumulatively;
 * - on codex, a run stopped during attempt k+1 (its usage limit) resumes at attempt k+1 with
 *   `codex exec … resume <thread id>`, never `--last` (the argv of every call recorded).
 *
 * That a run stopped during attempt k+1 resumes at attempt k+1 in the persisted session with the persisted
 * feedback is engine behaviour: ./completion-resume.test.ts, through the model port.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../../src/engine/runtime-setup.js";
import { CODEX_BIN } from "../runtime/real-codex.js";
import type { ModelScript } from "../support/model-server/index.js";
import {
  asFail,
  graphHarnessPerTest,
  type RunOptions,
  readState,
  requestsOf,
  rowWords,
} from "./graph-harness.js";
import { recordedCalls, recordingWrapper } from "./recording-cli.js";
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
function script(
  second: ModelScript["conversations"][number]["turns"],
  runtime: Runtime = "claude",
): ModelScript {
  return {
    conversations: [
      { name: "attempt-2", match: ["COMPLETION CHECK FAILED", "completion attempt 2 of "], turns: second },
      {
        name: "attempt-1",
        match: "CG-TASK",
        turns: [{ tool_calls: [shellCall(runtime, "printf 'one\\n' > step.txt")] }, { text: "wrote one" }],
      },
    ],
  };
}

const writesThree = (runtime: Runtime) => [
  { tool_calls: [shellCall(runtime, "printf 'three\\n' > step.txt")] },
  { text: "wrote three" },
];
const WRITES_THREE = writesThree("claude");

/** Pauses during attempt 2 (the session limit); returns the paused run and the first attempt's session. */
async function pausedAtAttempt2(h: Awaited<ReturnType<typeof start>>, options: RunOptions = {}) {
  const paused = await h.run(GRAPH, options);
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

describe("a completion gate on codex across legs", () => {
  test("a run stopped during attempt 2 (the usage limit) resumes at attempt 2 with `exec … resume <thread id>`, never --last", async () => {
    // A 429 usage_limit_reached pauses a codex leg (test/e2e/cli-codex.test.ts).
    const resetsAt = Math.floor(Date.now() / 1000) + 3600;
    const limit = { status: 429, message: "limit", type: "usage_limit_reached", resets_at: resetsAt };
    const h = await start({ runtime: "codex", script: () => script([{ error: limit }], "codex") });
    const executable = recordingWrapper(h.scratch, CODEX_BIN);
    const { paused, session: thread } = await pausedAtAttempt2(h, { executable });

    const server = await h.replaceServer(script(writesThree("codex"), "codex"));
    const { ledger } = await h.resume(paused.runId, { kind: "retry-failed" }, { executable });

    expect(requestsOf(server.requests, "attempt-1")).toHaveLength(0);
    const resumed = requestsOf(server.requests, "attempt-2")[0];
    if (resumed === undefined) throw new Error("attempt 2 never reached the model after the resume");
    expect(resumed.promptText).toContain("completion attempt 2 of 3");
    expect(historyText(resumed)).toContain("CG-TASK write the step file");
    // Attempt 1 started the thread; attempt 2 (paused) and attempt 2 again (resumed leg) resume it by id.
    const argvs = recordedCalls(h.scratch).map((c) => c.argv.slice(0, c.argv.indexOf("--")));
    expect(argvs).toHaveLength(3);
    expect(argvs[0]).not.toContain("resume");
    for (const later of argvs.slice(1)) {
      expect(later[0]).toBe("exec");
      expect(later.slice(later.indexOf("resume"), later.indexOf("resume") + 2)).toEqual(["resume", thread]);
      expect(later).not.toContain("--last");
    }
    const last = ledger.rows.at(-1);
    expect(last).toMatchObject({ nodeId: "work", verdict: "PASS", qualifier: "verified", sessionId: thread });
    expect(last?.completion).toEqual({ attempt: 2, maxAttempts: 3, check: "passed" });
    expect(ledger.conclusion?.outcome).toBe("passed");
  });
});
