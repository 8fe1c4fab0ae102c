/**
 * A verify command that prints a lot and exits 0 passes (issue 17, item 2). The seam once held an
 * unfinished line whole and re-split it on every pipe read, so 20 MB printed on one line took 18 s and a
 * passing command "timed out" under `--verify-timeout 5s`. Now output is read once, in linear time, and
 * kept as a bounded tail (and, with `output_matches`, a bounded head and tail).
 *
 * Both properties are measured in what does not change with the machine's load: the CPU time this process
 * spends reading the output (linear: about a second for 50 MB; the old quadratic reading spent 18 s on
 * 20 MB, so over a minute on 50 MB). 50 MB is three times the `output_matches` cap and twelve thousand
 * times the kept tail, so what is kept is visibly bounded. The verify timeout is only a bound for a broken
 * test: under a 10 s timeout 200 MB "timed out" on a loaded machine, where `yes` and `head` alone may take
 * many seconds of wall time to write it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VerifyEvidence } from "../../src/core/ledger-row.js";
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

const FIFTY_MB = 50_000_000;
/** A TAP-like line, and 50 MB of whole such lines (`head -c` must not cut the last one). */
const LINE = "ok 1 - a test that passed";
const LINES_BYTES = Math.ceil(FIFTY_MB / (LINE.length + 1)) * (LINE.length + 1);
/** Only a bound for a broken test (a reading that never ends), not the property under test. */
const BROKEN_TEST_BOUND_MS = 120_000;
/**
 * The most CPU time this process may spend reading 50 MB, ms (user + system, `process.cpuUsage`: the
 * children's own time is not in it). Linear reading took about 1 s with the machine loaded.
 */
const READ_CPU_BOUND_MS = 5_000;

/** Runs `verify` and measures the CPU time this process spent meanwhile, ms. */
async function measured(verify: () => Promise<VerifyEvidence>) {
  const before = process.cpuUsage();
  const evidence = await verify();
  const cpu = process.cpuUsage(before);
  return { evidence, cpuMs: (cpu.user + cpu.system) / 1000 };
}

describe("50 MB of output: read once, in linear time, kept bounded", () => {
  it("one 50 MB line with no newline passes, and the tail ends with the command's last bytes", async () => {
    const { evidence, cpuMs } = await measured(() =>
      runVerify(
        verifyOptions(repo.dir, {
          command: `head -c ${FIFTY_MB} /dev/zero; echo; echo LAST-LINE`,
          timeoutMs: BROKEN_TEST_BOUND_MS,
        }),
      ),
    );
    expect(evidence.outcome, evidence.outputTail.slice(-300)).toBe("passed");
    expect(evidence.exitCode).toBe(0);
    expect(evidence.outputTail.endsWith("\0\0\0\0\nLAST-LINE\n")).toBe(true);
    expect(Buffer.byteLength(evidence.outputTail)).toBeLessThanOrEqual(VERIFY_TAIL_BYTES);
    expect(cpuMs).toBeLessThan(READ_CPU_BOUND_MS);
  }, 180_000);

  it("50 MB of short lines with output_matches passes: the pattern finds the last line in the kept tail", async () => {
    const compiled = compilePattern("(?m)^ALL TESTS PASSED$");
    if (!compiled.ok) throw new Error(compiled.message);
    const { evidence, cpuMs } = await measured(() =>
      runVerify(
        verifyOptions(repo.dir, {
          command: `yes '${LINE}' | head -c ${LINES_BYTES}; echo ALL TESTS PASSED`,
          timeoutMs: BROKEN_TEST_BOUND_MS,
          outputMatches: compiled.pattern,
        }),
      ),
    );
    expect(evidence.outcome, evidence.outputTail.slice(-300)).toBe("passed");
    expect(evidence.outputMatches).toEqual({
      pattern: "(?m)^ALL TESTS PASSED$",
      matched: true,
      truncated: true,
    });
    expect(evidence.outputTail).toContain("output_matches searched a truncated output");
    expect(evidence.outputTail).toContain(`of ${LINES_BYTES + "ALL TESTS PASSED\n".length} bytes`);
    expect(cpuMs).toBeLessThan(READ_CPU_BOUND_MS);
  }, 180_000);
});
