/**
 * A verify command that prints a lot and exits 0 passes (issue 17, item 2). The seam once held an
 * unfinished line whole and re-split it on every pipe read, so 20 MB printed on one line took 18 s and a
 * passing command "timed out" under `--verify-timeout 5s`. Now output is read once, in linear time, and
 * kept as a bounded tail (and, with `output_matches`, a bounded head and tail): the only time bound here
 * is the verify timeout itself, as a user would set it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runVerify } from "../../src/evidence/verify.js";
import { VERIFY_TAIL_BYTES } from "../../src/evidence/verify-output.js";
import { compilePattern } from "../../src/graph/pattern.js";
import { makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeSampleNodeRepo();
});
afterEach(async () => {
  await repo.cleanup();
});

const TWO_HUNDRED_MB = 200_000_000;
/** A TAP-like line, and 200 MB of whole such lines (`head -c` must not cut the last one). */
const LINE = "ok 1 - a test that passed";
const LINES_BYTES = Math.ceil(TWO_HUNDRED_MB / (LINE.length + 1)) * (LINE.length + 1);
/** The verify timeout of these tests, as `--verify-timeout 10s` sets it. */
const VERIFY_TIMEOUT_MS = 10_000;

describe("200 MB of output under a 10 s verify timeout", () => {
  it("one 200 MB line with no newline passes, and the tail ends with the command's last bytes", async () => {
    const evidence = await runVerify(
      verifyOptions(repo.dir, {
        command: `head -c ${TWO_HUNDRED_MB} /dev/zero; echo; echo LAST-LINE`,
        timeoutMs: VERIFY_TIMEOUT_MS,
      }),
    );
    expect(evidence.outcome, evidence.outputTail.slice(-300)).toBe("passed");
    expect(evidence.exitCode).toBe(0);
    expect(evidence.outputTail.endsWith("\0\0\0\0\nLAST-LINE\n")).toBe(true);
    expect(Buffer.byteLength(evidence.outputTail)).toBeLessThanOrEqual(VERIFY_TAIL_BYTES);
  }, 60_000);

  it("200 MB of short lines with output_matches passes: the pattern finds the last line in the kept tail", async () => {
    const compiled = compilePattern("(?m)^ALL TESTS PASSED$");
    if (!compiled.ok) throw new Error(compiled.message);
    const evidence = await runVerify(
      verifyOptions(repo.dir, {
        command: `yes '${LINE}' | head -c ${LINES_BYTES}; echo ALL TESTS PASSED`,
        timeoutMs: VERIFY_TIMEOUT_MS,
        outputMatches: compiled.pattern,
      }),
    );
    expect(evidence.outcome, evidence.outputTail.slice(-300)).toBe("passed");
    expect(evidence.outputMatches).toEqual({
      pattern: "(?m)^ALL TESTS PASSED$",
      matched: true,
      truncated: true,
    });
    expect(evidence.outputTail).toContain("output_matches searched a truncated output");
    expect(evidence.outputTail).toContain(`of ${LINES_BYTES + "ALL TESTS PASSED\n".length} bytes`);
  }, 60_000);
});
