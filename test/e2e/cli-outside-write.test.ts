/**
 * End-to-end: a verify that passes only because a node wrote a file outside the repository is not
 * `success`. The CLI runs in-process against a real git repository, the real pinned `claude` CLI (whose
 * Write tool really writes the file outside the repository) and the scripted model server.
 */
import { readFileSync, realpathSync } from "node:fs";
import { describe, expect, onTestFinished, test } from "vitest";
import { startCliHarness } from "../support/cli-harness.js";
import {
  makeOutsideRepo,
  OUTSIDE_GOAL,
  type OutsideRepo,
  outsideWriteScript,
  SUMLIB_SOURCE,
} from "../support/scenarios/outside-write.js";
import { verifyOutcome } from "../support/verify-outcome.js";

const npmTest = (dir: string) => verifyOutcome(dir);

describe("a node that writes outside the repository does not make the run success", () => {
  test("the real Write tool writes a library outside the repository that its test imports: npm test passes, the conclusion is action_required naming the path (exit 4)", async () => {
    let outside: OutsideRepo | undefined;
    const h = await startCliHarness({
      makeRepo: async () => {
        outside = await makeOutsideRepo();
        return outside;
      },
      script: () => outsideWriteScript({ libPath: outside!.libPath }),
    });
    onTestFinished(() => h.cleanup());
    const { libPath } = outside!;
    const startTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);
    // The commit is broken as checked out: the library it imports does not exist.
    expect(await npmTest(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test"], { goal: OUTSIDE_GOAL });

    expect(r.exitCode, r.stderr).toBe(4);
    // The write really happened, through the CLI, outside the repository; the repository is unchanged.
    expect(readFileSync(libPath, "utf8")).toBe(SUMLIB_SOURCE);
    expect(await h.repo.git(["status", "--porcelain"])).toBe("");
    expect(await npmTest(h.repo.dir)).toBe("passed");

    const ledger = r.ledger!;
    const realLib = realpathSync(libPath);
    const vendor = ledger.rows.find((row) => row.nodeId === "vendor");
    expect(vendor?.verdict === "PASS" && vendor.qualifier).toBe("verified");
    expect(vendor?.verify).toMatchObject({ outcome: "passed", evidenceTree: startTree });
    expect(vendor?.outsideWrites).toEqual({ total: 1, paths: [realLib] });
    expect(vendor?.detail).toContain(`wrote outside the repository (not in the evidence tree): ${realLib}`);
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-outside-writes",
    });
    expect(ledger.conclusion?.reason).toContain(realLib);
    expect(ledger.conclusion?.reason).toContain(
      "a node wrote outside the repository; the evidence tree does not cover those files",
    );
  });
});
