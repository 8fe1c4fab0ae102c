/**
 * The completion gate on hand-written nodes (SPEC §7; seed 002; issue 13 items 1–3), through the model
 * port (./port-harness.ts) on claude (the engine never branches on the runtime), with real verify commands
 * in a real repository; each attempt's play writes `step.txt` as the model's shell call did:
 *
 * - exhaustion: FAIL `incomplete`, `stoppedBy: "completion.verify failed N×: REASON"`;
 * - rule 2: the check never runs after an attempt that failed on its own (here `result_matches`);
 * - a check that could not run (its own timeout) fails the node at once, with nothing fed back.
 *
 * A check failing twice then passing, with every attempt's argv (the resumed session, the same policy
 * flags) through the real CLIs, is ./completion-gate.real-cli.test.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { gatedGraph, REASON } from "./completion-gate-graph.js";
import { portHarnessPerTest, replied, type ScriptedPlay } from "./port-harness.js";
import { asFail, rowWords } from "./run-readers.js";

const start = portHarnessPerTest();

/** One attempt: writes `word` to `step.txt` (the model's shell call) and replies `wrote WORD`. */
const wrote = (word: string): ScriptedPlay =>
  replied("claude", `wrote ${word}`, { writes: { "step.txt": `${word}\n` } });

describe("a completion gate (completion-gate)", () => {
  test("exhaustion ends the node FAIL incomplete with stoppedBy naming the count and the last reason", async () => {
    const h = await start({ plays: { work: [wrote("one"), wrote("two")] } });
    const run = await h.run(gatedGraph({ maxAttempts: 2 }));
    expect(rowWords(run.ledger.rows)).toEqual(["work FAIL incomplete superseded", "work FAIL incomplete"]);
    const last = asFail(run.ledger.rows[1]);
    expect(last.stoppedBy).toBe(`completion.verify failed 2×: ${REASON}`);
    expect(last.completion).toMatchObject({ attempt: 2, maxAttempts: 2, check: "failed" });
    expect(last.verify?.outputTail).toContain("two");
    expect(run.ledger.conclusion?.conclusion).toBe("failure");
    // Exactly two model calls: no third attempt (a third call would also fail the harness, unscripted).
    expect(h.spawnsOf("work")).toBe(2);
    // The reply of a failed attempt is a failed output, not a node output.
    expect(existsSync(join(run.runDir, "nodes", "work.out"))).toBe(false);
    expect(readFileSync(join(run.runDir, "failed", "work.out"), "utf8")).toBe("wrote two");
  });

  test("the check does not run after an attempt that failed on its own (result_matches)", async () => {
    const h = await start({ plays: { work: [wrote("three")] } });
    const graph = gatedGraph({
      maxAttempts: 3,
      extra: 'success_check: { result_matches: "^NEVER$" }',
    }).replace("cat step.txt; grep", `touch ${join(h.scratch, "gate-ran")}; cat step.txt; grep`);
    const run = await h.run(graph);
    expect(rowWords(run.ledger.rows)).toEqual(["work FAIL result_mismatch"]);
    expect(run.ledger.rows[0]?.completion).toEqual({ attempt: 1, maxAttempts: 3, check: "not_run" });
    expect(existsSync(join(h.scratch, "gate-ran"))).toBe(false);
    expect(existsSync(join(h.repo.dir, "step.txt"))).toBe(true);
    expect(h.spawnsOf("work")).toBe(1);
  });

  test("a check that could not run (its own timeout) fails the node at once: nothing is fed back", async () => {
    const h = await start({ plays: { work: [wrote("one")] } });
    const graph = gatedGraph({ maxAttempts: 3 }).replace(
      'verify: { command: "cat step.txt; grep -qx three step.txt" }',
      'verify: { command: "sleep 60", timeout: 1s }',
    );
    const run = await h.run(graph);
    expect(rowWords(run.ledger.rows)).toEqual(["work FAIL verify_failed"]);
    const row = asFail(run.ledger.rows[0]);
    expect(row.completion?.check).toBe("could_not_run");
    expect(row.stoppedBy).toMatch(/^completion\.verify could not run: /);
    expect(h.spawnsOf("work")).toBe(1);
  });
});
