/**
 * End-to-end acceptance test of `evidence-gate resume RUN_ID --approve G` (SPEC §2, §4, §10;
 * research/oh-my-graph.md §7.6–§7.7): one real run — a `run` pauses at a gate and prints the commands that
 * continue it (the first leg's --claude-path riding along); `resume` continues it in-process against the
 * real `claude` CLI through the key proxy, the scripted model server and a real repository.
 *
 * The CLI's decisions with the model incidental (--commit on a paused run and --reject, the refusals of
 * resume, the session limit's pause and --retry-failed) run in-process through the model port:
 * test/cli/resume-command.test.ts (issue 24).
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { PassRow } from "../../src/core/ledger-row.js";
import { CLAUDE_BIN, checkRunsOf, cliHarness, rowWords } from "../support/cli-harness.js";
import { pausedAtGate } from "../support/cli-run-result.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";

const lines = (text: string): string[] => text.split("\n");

describe("a gate pauses `run` (exit 2); `resume --approve` / `--reject` decides it", () => {
  test("run prints the gate reached and, after the ledger of the paused run, both resume commands; resume --approve runs the dependents: PASS (approved) by the approver, exit by outcome, a check run on HEAD; --retry-failed on the run that passed says there is nothing to retry, exit 0", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const paused = await pausedAtGate(h);
    // The first leg's --claude-path rides along: the printed command works as printed.
    const resume = `evidence-gate resume ${paused.runId} --repo ${h.repo.dir} --claude-path ${CLAUDE_BIN}`;
    const out = lines(paused.stdout);
    expect(out).toContain(
      "⏸ approve  gate reached — waiting for a person's decision (if the run pauses, the resume commands follow the ledger)",
    );
    // The run paused: after the ledger, each command alone on its line, ready to copy.
    expect(out.slice(-4)).toEqual([
      'paused at gate "approve": a person decides — continue the run with one of',
      `  ${resume} --approve approve`,
      `  ${resume} --reject approve`,
      "",
    ]);
    expect(h.server.requests.filter((q) => q.conversation === "check")).toHaveLength(0);
    const head = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.resume(paused.runId, ["--approve", "approve", "--by", "alice"]);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.ledger?.conclusion?.outcome).toBe("passed");
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "approve PASS (approved)",
      "check PASS (verified)",
    ]);
    const gate = r.ledger!.rows.find((row) => row.nodeId === "approve") as PassRow;
    expect(gate.approvedBy).toEqual({ login: "alice", headSha: head });
    const resumedOut = lines(r.stdout);
    // What is resumed first; the key proxy's one line (issue 12) once the first model call is made (issue 26:
    // nothing is printed ahead of a usage error).
    expect(resumedOut[0]).toBe(
      `resume run ${paused.runId} (${join(h.runsDir, paused.runId)}): gate "approve" approved by alice; running its dependents`,
    );
    const proxyLine = resumedOut.findIndex((l) =>
      /^key proxy: the claude CLI gets a loopback base URL and a dummy key/.test(l),
    );
    expect(proxyLine).toBeGreaterThan(0);
    expect(proxyLine).toBeLessThan(resumedOut.findIndex((l) => l.startsWith("✓ check")));
    expect(resumedOut).toContain("▶ check started");
    expect(resumedOut).toContain("… check  verifying: npm test");
    expect(r.stdout).toMatch(/^✓ check {2}PASS \(verified\)/m);
    expect(r.stdout).toMatch(/^approve +PASS \(approved\) /m);
    expect(r.stdout).toContain("approved by @alice at");
    // implement is not run again: one implement conversation in all.
    expect(
      new Set(h.server.requests.filter((q) => q.conversation === "implement").map((q) => q.sessionId)).size,
    ).toBe(1);
    // The resumed leg's check run: created on HEAD once the resume was accepted, completed with the ledger.
    const [run, ...others] = checkRunsOf(r.checkRunRequests!);
    expect(others).toEqual([]);
    expect(run?.headSha).toBe(head);
    expect(run?.completions.map((c) => c.conclusion)).toEqual([r.ledger?.conclusion?.conclusion]);

    // --retry-failed on the run that now passed: nothing to retry, exit 0.
    const again = await h.resume(paused.runId, ["--retry-failed"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("has no failed nodes to retry: every node passed");
  });
});
