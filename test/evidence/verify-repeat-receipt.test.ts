import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runVerify } from "../../src/evidence/verify.js";
import { verifyOptions } from "../support/verify-outcome.js";

/**
 * `verify-repeat` keeps the worst receipt of its runs (issue 25 items 1 and 5, ADR 0016): a command that
 * ignores its tests' exit code (`node --test … || true`) exits 0 every run, and a failing test in an
 * earlier run must not be lost behind a later green one. Real `node --test` runs.
 */
let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "eg-repeat-receipt-"));
  await writeFile(
    join(scratch, "fails.test.mjs"),
    'import test from "node:test";\nimport assert from "node:assert";\ntest("subtracts", () => assert.equal(2 - 1, 0));\n',
  );
  await writeFile(
    join(scratch, "passes.test.mjs"),
    'import test from "node:test";\nimport assert from "node:assert";\ntest("adds", () => assert.equal(1 + 1, 2));\n',
  );
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("verify-repeat and the test receipt", () => {
  it("run 1 reports a failing test and exits 0, run 2 passes: the receipt is run 1's failing one", async () => {
    const marker = join(scratch, "ran-once");
    const command = `if [ -e ${marker} ]; then node --test ${join(scratch, "passes.test.mjs")}; else touch ${marker}; node --test ${join(scratch, "fails.test.mjs")} || true; fi`;
    const evidence = await runVerify(verifyOptions(scratch, { command, repeat: 2 }));
    expect(evidence.repeat).toEqual({ runs: 2, passed: 2 });
    expect(evidence.receipt).toMatchObject({ kind: "counts", runners: ["node:test"], failed: 1, passed: 0 });
  });
});
