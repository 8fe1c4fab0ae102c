/**
 * End-to-end acceptance tests of `evidence-gate resume RUN_ID (--approve G | --reject G | --retry-failed)`
 * (SPEC §2, §4, §10; research/oh-my-graph.md §7.6–§7.7): a `run` pauses at a gate or at the model's
 * session limit and prints the commands that continue it; `resume` continues it in-process against the
 * real `claude` CLI, the scripted model server and a real repository.
 */

import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { PassRow } from "../../src/core/ledger-row.js";
import {
  CLAUDE_BIN,
  type CliHarness,
  type CliRun,
  checkRunsOf,
  cliHarness,
  rowWords,
} from "../support/cli-harness.js";
import { claudeEnvFor, type ModelScript, startModelServer } from "../support/model-server/index.js";
import { FIX_GRAPH, GATED_FIX_GRAPH } from "../support/scenarios/cli-graphs.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";

const lines = (text: string): string[] => text.split("\n");

/** Runs the gated graph with FLAGS: it pauses at `approve` after `implement` passed. */
async function pausedAtGate(
  h: CliHarness,
  flags: readonly string[] = [],
): Promise<CliRun & { runId: string }> {
  const r = await h.runGraph(h.writeGraph("gated.yml", GATED_FIX_GRAPH), flags);
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.ledger?.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
  expect(rowWords(r.ledger!)).toEqual(["implement PASS (exit-only)", "approve SKIPPED", "check SKIPPED"]);
  return { ...r, runId: r.ledger!.runId };
}

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

  test("--commit on a run that pauses at a gate commits nothing and says the run paused (not that it failed); resume --reject: FAIL rejected, the dependents are skipped without a model call, exit 1", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
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
    expect(h.server.requests.filter((q) => q.conversation === "check")).toHaveLength(0);

    // A rejection is final: --retry-failed has nothing it may run, and the run stays failed (exit 1).
    const again = await h.resume(paused.runId, ["--retry-failed"]);
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stderr).toContain('gate "approve", which a person rejected');
  });
});

describe("resume refuses what does not fit the run, and touches nothing (exit 64)", () => {
  test("a gate name the run is not waiting at names the waiting gate; --retry-failed on a gate-paused run points to --approve / --reject; --by that is not a GitHub login, and a local user that is not an account name, name the flag and the fix: none records a check run, an approver or spends anything, and the run still waits; then without --by the approver is the local user ($USER), recorded and shown as such, never as a GitHub @login", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const paused = await pausedAtGate(h);
    const requestsBefore = h.server.requests.length;

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
    expect(h.server.requests).toHaveLength(requestsBefore);

    // The run is still waiting: the local user decides it, never shown as a GitHub login.
    const r = await h.resume(paused.runId, ["--approve", "approve"], { env: { USER: "carol" } });
    expect(r.exitCode, r.stderr).toBe(4);
    const gate = r.ledger!.rows.find((row) => row.nodeId === "approve") as PassRow;
    expect(gate.approvedBy?.login).toBe("carol (local user)");
    expect(r.stdout).toContain("approved by carol (local user) at");
    expect(r.stdout).not.toContain("@carol");
  });

  test("an unknown run id and a missing action are usage errors naming what to give", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });

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
    const LIMIT = "You've hit your session limit · resets 5:20pm (UTC)";
    const limited = (repoDir: string): ModelScript => {
      const base = fixSumScript({ repoDir });
      return {
        conversations: base.conversations.map((c) =>
          c.name === "check" ? { ...c, turns: [{ error: { status: 429, message: LIMIT } }] } : c,
        ),
      };
    };
    const h = await cliHarness({ script: (repo) => limited(repo.dir) });

    const paused = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), []);

    expect(paused.exitCode, paused.stderr).toBe(2);
    expect(rowWords(paused.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check PAUSED session_limit, resets 5:20pm (UTC)",
    ]);
    const runId = paused.ledger!.runId;
    const resume = `evidence-gate resume ${runId} --repo ${h.repo.dir} --claude-path ${CLAUDE_BIN} --retry-failed`;
    expect(lines(paused.stdout)).toContain(
      `⏸ check  session limit reached (resets 5:20pm (UTC)) — resume after the reset with: ${resume}`,
    );
    expect(lines(paused.stdout).slice(-3)).toEqual([
      "paused at the model's session limit (resets 5:20pm (UTC)): once it resets, finish the work that never ran with",
      `  ${resume}`,
      "",
    ]);

    // The limit reset: the same conversations, answered by a new server.
    const server = await startModelServer({ script: fixSumScript({ repoDir: h.repo.dir }) });
    onTestFinished(() => server.close());
    const r = await h.resume(runId, ["--retry-failed"], { env: claudeEnvFor(server.url, h.home) });

    expect(r.exitCode, r.stderr).toBe(4);
    expect(lines(r.stdout)[0]).toContain("running again the nodes that did not pass");
    expect(server.requests.filter((q) => q.conversation === "implement")).toHaveLength(0);
    expect(server.requests.filter((q) => q.conversation === "check").length).toBeGreaterThan(0);
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check PAUSED session_limit, resets 5:20pm (UTC)",
      "check PASS (verified)",
    ]);
  });
});
