/**
 * Two of the engine's runtime-neutral scenarios, through the model port (./port-harness.ts) on BOTH
 * runtimes, because what each runtime's stream reports differs (claude a USD cost, codex none, so a codex
 * row's cost is unknown, never `$0`) and the session seam differs (claude: a session id the engine mints;
 * codex: a fresh thread codex mints): a failing verify (real `node --test` in a real repository) and a
 * judged retry quoting the previous reply, fenced, in a fresh session. Each call's stream goes through the
 * real parser of its runtime; a call nobody scripted fails the test.
 *
 * What the real CLIs alone show (their tools, their costs and tokens, a resumed session, their error
 * wording) is ./two-runtimes.real-cli.test.ts.
 */
import { describe, expect, test } from "vitest";
import { makeSampleNodeRepo } from "../support/temp-repo.js";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { asFail, rowWords } from "./run-readers.js";
import { RUNTIMES } from "./runtime-harness.js";

const harness = portHarnessPerTest();

const FIX_PROMPT = "FIX-MARK: fix sum() in src/sum.js so that the unit test passes.";

describe.each(RUNTIMES)("two-runtimes on %s", (runtime) => {
  test("a failing verify is FAIL verify_failed with the exit code and output tail; the run fails", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      plays: { fix: [replied(runtime, "I looked; it is fine as it is.")] },
    });
    const { ledger } = await h.run(`
name: unfixed
nodes:
  - id: fix
    prompt: ${JSON.stringify(FIX_PROMPT)}
    allowed_tools: [Read, Edit]
    success_check: { verify: { command: "node --test" } }
`);
    expect(rowWords(ledger.rows)).toEqual(["fix FAIL verify_failed"]);
    const row = asFail(ledger.rows[0]);
    expect(row.verify).toMatchObject({ command: "node --test", outcome: "failed" });
    expect(row.verify?.exitCode).not.toBe(0);
    expect(row.verify?.outputTail).toMatch(/sum adds two numbers/);
    expect(row.costUsd === null).toBe(runtime === "codex");
    expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
  });

  test("a judged retry quotes the previous reply, fenced, in the second attempt's prompt (a fresh session)", async () => {
    const firstReply = "Still broken: the test fails.";
    const h = await harness({
      runtime,
      plays: { fix: [replied(runtime, firstReply), replied(runtime, "FIXED: sum adds")] },
    });
    const { ledger } = await h.run(`
name: judged
nodes:
  - id: fix
    prompt: ${JSON.stringify(FIX_PROMPT)}
    allowed_tools: [Read, Edit]
    success_check: { exit_zero: true, result_matches: "^FIXED" }
    retry: { max: 1, on: [result_mismatch] }
`);
    expect(rowWords(ledger.rows)).toEqual([
      "fix FAIL result_mismatch superseded",
      "fix PASS (self-reported)",
    ]);
    const [first, second] = h.callsOf("fix");
    expect(first!.prompt).toBe(FIX_PROMPT);
    expect(second!.prompt.startsWith(`${FIX_PROMPT}\n\n`)).toBe(true);
    const fenced =
      /<<<DATA previous-attempt-reply nonce=([0-9a-f]+)>>>\n([\s\S]*?)\n<<<END DATA nonce=\1>>>/.exec(
        second!.prompt,
      );
    expect(fenced?.[2]).toBe(firstReply);
    // The base prompt occurs once, and the first reply only inside the fence.
    expect(second!.prompt.split("FIX-MARK")).toHaveLength(2);
    expect(second!.prompt.split(firstReply)).toHaveLength(2);
    // A fresh session: the retry resumes nothing (what a fresh session carries in the real CLI is its
    // argv: claude-argv.test.ts, codex-argv.test.ts).
    expect(first!.session.kind).toBe("fresh");
    expect(second!.session.kind).toBe("fresh");
    expect(ledger.rows[0]!.sessionId).not.toBe(ledger.rows[1]!.sessionId);
  });
});
