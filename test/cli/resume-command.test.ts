/**
 * `evidence-gate resume RUN_ID (--approve G | --reject G | --retry-failed)` in-process (SPEC §2, §4, §10;
 * issue 24: the CLI's decisions in the fast tier): a `run` pauses at a gate or at the model's session limit
 * and prints the commands that continue it; `resume` continues it, with the model calls played by the
 * scripted stand-in (test/support/cli-in-process.ts) against a real repository. Moved from
 * test/e2e/cli-resume.test.ts, which keeps one real end-to-end approval (the real `claude` and the key
 * proxy's line).
 */
import { describe, expect, test } from "vitest";
import type { PassRow } from "../../src/core/ledger-row.js";
import { claudeSessionLimit, replied } from "../engine/port-harness.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { pausedAtGate, rowWords } from "../support/cli-run-result.js";
import { FIX_GRAPH } from "../support/scenarios/cli-graphs.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";

const lines = (text: string): string[] => text.split("\n");

describe("a gate pauses `run` (exit 2); `resume --approve` / `--reject` decides it", () => {
  test("--commit on a run that pauses at a gate commits nothing and says the run paused (not that it failed); resume --reject: FAIL rejected, the dependents are skipped without a model call, exit 1", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    const paused = await pausedAtGate(h, ["--commit"]);
    expect(paused.stdout).toContain(
      "--commit: nothing was committed because the run paused (resume it with --commit",
    );
    expect(paused.stdout).not.toContain("the run did not pass");
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);

    const r = await h.resume(paused.runId, ["--reject", "approve", "--by", "bob"]);

    expect(r.exitCode, r.stderr).toBe(1);
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "approve FAIL rejected",
      "check SKIPPED",
    ]);
    expect(r.ledger?.conclusion?.conclusion).toBe("failure");
    expect(lines(r.stdout)[0]).toContain('gate "approve" rejected by bob; its dependents are skipped');
    expect(h.madeFor("check")).toHaveLength(0);

    // A rejection is final: --retry-failed has nothing it may run, and the run stays failed (exit 1).
    const again = await h.resume(paused.runId, ["--retry-failed"]);
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stderr).toContain('gate "approve", which a person rejected');
  });
});

describe("resume refuses what does not fit the run, and touches nothing (exit 64)", () => {
  test("a gate name the run is not waiting at names the waiting gate; --retry-failed on a gate-paused run points to --approve / --reject; --by that is not a GitHub login, and a local user that is not an account name, name the flag and the fix: none records a check run, an approver or spends anything, and the run still waits; then without --by the approver is the local user ($USER), recorded and shown as such, never as a GitHub @login", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const paused = await pausedAtGate(h);
    const requestsBefore = h.calls().length;

    const wrong = await h.resume(paused.runId, ["--approve", "aprove", "--by", "alice"]);
    expect(wrong.exitCode).toBe(64);
    expect(wrong.stderr).toContain(
      `evidence-gate resume: run ${paused.runId} is waiting at gate "approve", not "aprove": resume it with --approve approve or --reject approve`,
    );
    expect(wrong.checkRunRequests).toBeNull();

    const retry = await h.resume(paused.runId, ["--retry-failed"]);
    expect(retry.exitCode).toBe(64);
    expect(retry.stderr).toContain('is paused at gate "approve": a person decides');
    expect(retry.stderr).toContain("--approve approve or --reject approve");
    expect(retry.checkRunRequests).toBeNull();

    const forged = await h.resume(paused.runId, [
      "--approve",
      "approve",
      "--by",
      "@octocat (GitHub-verified maintainer)",
    ]);
    expect(forged.exitCode).toBe(64);
    expect(forged.stderr).toContain(
      '--by is "@octocat (GitHub-verified maintainer)": give a GitHub login (letters, digits and single hyphens, at most 39 characters, no @), e.g. --by octocat',
    );
    expect(forged.stdout).not.toContain("octocat");
    expect(forged.checkRunRequests).toBeNull();

    const local = await h.resume(paused.runId, ["--approve", "approve"], {
      env: { USER: "@octocat (GitHub-verified maintainer)" },
    });
    expect(local.exitCode).toBe(64);
    expect(local.stderr).toContain(
      'the local user "@octocat (GitHub-verified maintainer)" is not an account name (letters, digits, ".", "_", "-" or spaces): give --by LOGIN',
    );
    expect(local.checkRunRequests).toBeNull();
    expect(h.calls()).toHaveLength(requestsBefore);

    // The run is still waiting: the local user decides it, never shown as a GitHub login.
    const r = await h.resume(paused.runId, ["--approve", "approve"], { env: { USER: "carol" } });
    expect(r.exitCode, r.stderr).toBe(4);
    const gate = r.ledger!.rows.find((row) => row.nodeId === "approve") as PassRow;
    expect(gate.approvedBy?.login).toBe("carol (local user)");
    expect(r.stdout).toContain("approved by carol (local user) at");
    expect(r.stdout).not.toContain("@carol");
  });

  test("an unknown run id and a missing action are usage errors naming what to give", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const unknown = await h.resume("20260101-000000-abcdef", ["--retry-failed"]);
    expect(unknown.exitCode).toBe(64);
    expect(unknown.stderr).toContain(`no run 20260101-000000-abcdef under ${h.runsDir}`);

    const none = await h.resume("20260101-000000-abcdef", []);
    expect(none.exitCode).toBe(64);
    expect(none.stderr).toContain("resume needs one of --approve GATE, --reject GATE or --retry-failed");
  });
});

describe("the model's session limit pauses `run` (exit 2); `resume --retry-failed` finishes the work", () => {
  test("the limit line names the reset time and the resume command; after the reset, --retry-failed runs the unpassed nodes and exits by outcome", async () => {
    // The check's first call hits the limit (as claude reported a 429 with the notice); after the reset it passes.
    const h = await cliInProcess({
      plays: {
        ...fixSumPlays(),
        check: [claudeSessionLimit("5:20pm (UTC)"), replied("claude", "PASS")],
      },
    });

    const paused = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), [], { claudePath: h.claudeStandIn });

    expect(paused.exitCode, paused.stderr).toBe(2);
    expect(rowWords(paused.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check PAUSED session_limit, resets 5:20pm (UTC)",
    ]);
    const runId = paused.ledger!.runId;
    const resume = `evidence-gate resume ${runId} --repo ${h.repo.dir} --claude-path ${h.claudeStandIn} --retry-failed`;
    expect(lines(paused.stdout)).toContain(
      `⏸ check  session limit reached (resets 5:20pm (UTC)) — resume after the reset with: ${resume}`,
    );
    expect(lines(paused.stdout).slice(-3)).toEqual([
      "paused at the model's session limit (resets 5:20pm (UTC)): once it resets, finish the work that never ran with",
      `  ${resume}`,
      "",
    ]);
    const implementCalls = h.madeFor("implement").length;
    const checkCalls = h.madeFor("check").length;

    const r = await h.resume(runId, ["--retry-failed"]);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(lines(r.stdout)[0]).toContain("running again the nodes that did not pass");
    expect(h.madeFor("implement")).toHaveLength(implementCalls);
    expect(h.madeFor("check").length).toBeGreaterThan(checkCalls);
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check PAUSED session_limit, resets 5:20pm (UTC)",
      "check PASS (verified)",
    ]);
  });
});
