/**
 * A completion gate across legs (SPEC §7; issue 13 items 3 and 6), through the model port
 * (./port-harness.ts) on claude, with real verify commands in a real repository: a run stopped during
 * attempt k+1 (here: the model's session limit, which pauses the run — the stream claude 2.1.332 wrote for
 * it) resumes at attempt k+1 in the persisted session with the persisted feedback; the attempts never
 * restart at 1.
 *
 * A session the CLI no longer finds, a budget the real CLI stops at, and codex's `exec … resume <thread>`
 * argv are ./completion-resume.real-cli.test.ts.
 */
import { describe, expect, test } from "vitest";
import { gatedGraph, REASON } from "./completion-gate-graph.js";
import { claudeSessionLimit, portHarnessPerTest, replied, type ScriptedPlay } from "./port-harness.js";
import { readState } from "./run-readers.js";

const start = portHarnessPerTest();

/** One attempt: writes `word` to `step.txt` (the model's shell call) and replies `wrote WORD`. */
const wrote = (word: string): ScriptedPlay =>
  replied("claude", `wrote ${word}`, { writes: { "step.txt": `${word}\n` } });

describe("a completion gate across legs (completion-resume)", () => {
  test("a run stopped during attempt 2 resumes at attempt 2 in the same session with the same feedback", async () => {
    const h = await start({
      // Attempt 1; attempt 2 hits the session limit; attempt 2 again once the limit reset.
      plays: { work: [wrote("one"), claudeSessionLimit("5:20pm (UTC)"), wrote("three")] },
    });
    const paused = await h.run(gatedGraph({ maxAttempts: 3 }));
    expect(paused.ledger.conclusion).toMatchObject({ outcome: "paused" });
    const session = paused.ledger.rows[0]?.sessionId ?? "";
    expect(session).not.toBe("");
    const record = readState(paused.runDir).nodes.work?.completion;
    expect(record).toMatchObject({ attempt: 2, session_id: session, round: 0 });
    expect(record?.reasons).toEqual([REASON]);
    expect(record?.feedback).toContain("one");
    expect(h.spawnsOf("work")).toBe(2);

    const { ledger, runDir } = await h.resume(paused.runId, { kind: "retry-failed" });

    // Attempt 1 did not run again; attempt 2 ran once more, in the first session, told the first failure.
    const calls = h.callsOf("work");
    expect(calls).toHaveLength(3);
    expect(calls[0]!.session).toEqual({ kind: "fresh", sessionId: session });
    const resumed = calls[2]!;
    expect(resumed.session).toEqual({ kind: "resume", sessionId: session });
    expect(resumed.prompt).toContain("COMPLETION CHECK FAILED");
    expect(resumed.prompt).toContain("completion attempt 2 of 3");
    expect(resumed.prompt).toMatch(/<<<DATA completion-check-report nonce=[0-9a-f]+>>>[\s\S]*one\n/);
    // The same feedback as the paused attempt was given.
    expect(resumed.prompt.replace(/nonce=[0-9a-f]+/g, "")).toBe(
      calls[1]!.prompt.replace(/nonce=[0-9a-f]+/g, ""),
    );
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
});
