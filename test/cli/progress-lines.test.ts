import { describe, expect, test } from "vitest";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import { nodeLine, ProgressLines, resumeCommandFor, shellWord } from "../../src/progress/progress-lines.js";

const base = {
  sessionId: "s",
  durationMs: 4200,
  deniedToolCalls: 0,
  usage: null,
  numTurns: 1,
  sink: true,
} as const;

function collect(): { lines: string[]; progress: ProgressLines } {
  const lines: string[] = [];
  const progress = new ProgressLines({
    line: (t) => lines.push(t),
    run: { runId: "RUN", repoDir: "/repo", runsDir: undefined, cwd: "/repo" },
  });
  return { lines, progress };
}

describe("a line per node event", () => {
  test("PASS names the qualifier, the cost and the time; an unknown cost is `cost unknown`, never $0", () => {
    const row: LedgerRow = {
      ...base,
      nodeId: "build",
      verdict: "PASS",
      qualifier: "verified",
      costUsd: 0.0123,
      detail: "ok",
    };
    expect(nodeLine(row)).toBe("✓ build  PASS (verified)  $0.0123  4.2s  ok");
    expect(nodeLine({ ...row, costUsd: null })).toBe("✓ build  PASS (verified)  cost unknown  4.2s  ok");
  });

  test("a verify result reused from another node says so on the line, once", () => {
    const verify = {
      command: "npm test",
      cwd: "/repo",
      exitCode: 0,
      expectExit: 0,
      outcome: "passed",
      durationMs: 10,
      outputTail: "",
      evidenceTree: "t",
      reusedFrom: "build",
    } as const;
    const pass: LedgerRow = {
      ...base,
      nodeId: "review",
      verdict: "PASS",
      qualifier: "verified",
      costUsd: 0.01,
      detail: 'verify `npm test` exited 0 (result reused from "build": same tree, same command)',
      verify,
    };
    expect(nodeLine(pass)).toBe(
      '✓ review  PASS (verified)  $0.0100  4.2s  (verify result reused from "build": same tree, same command)  verify `npm test` exited 0',
    );
    const failed: LedgerRow = {
      ...base,
      nodeId: "review",
      verdict: "FAIL",
      cause: "verify_failed",
      costUsd: 0.01,
      detail: "verify `npm test` exited 1",
      verify: { ...verify, exitCode: 1, outcome: "failed" },
    };
    expect(nodeLine(failed)).toBe(
      '✗ review  FAIL verify_failed  $0.0100  4.2s  (verify result reused from "build": same tree, same command)  verify `npm test` exited 1',
    );
    expect(nodeLine(failed, { detail: false })).toBe(
      '✗ review  FAIL verify_failed  $0.0100  4.2s  (verify result reused from "build": same tree, same command)',
    );
    const { reusedFrom: _, ...ranItself } = verify;
    expect(nodeLine({ ...failed, verify: { ...ranItself, exitCode: 1, outcome: "failed" } })).not.toContain(
      "reused",
    );
  });

  test("FAIL names the cause", () => {
    const row: LedgerRow = {
      ...base,
      nodeId: "test",
      verdict: "FAIL",
      cause: "verify_failed",
      costUsd: 0,
      detail: "exit 1",
    };
    expect(nodeLine(row)).toBe("✗ test  FAIL verify_failed  $0.0000  4.2s  exit 1");
  });

  test("started, retried (the next start shows attempt k/n), feedback rounds, verifying", () => {
    const { lines, progress } = collect();
    progress.hooks.onNodeStarted("test", { attempt: 1, round: 0 });
    progress.hooks.onNodeRetried("test", {
      kind: "retry",
      cause: "result_mismatch",
      attempt: 2,
      maxAttempts: 3,
      judged: true,
    });
    progress.hooks.onNodeStarted("test", { attempt: 2, round: 0 });
    progress.hooks.onNodeRetried("test", {
      kind: "retry",
      cause: "timeout",
      attempt: 3,
      maxAttempts: 3,
      judged: false,
    });
    progress.hooks.onNodeRetried("review", {
      kind: "feedback",
      cause: "verify_failed",
      round: 1,
      max: 2,
      rerun: "implement",
    });
    progress.hooks.onNodeStarted("implement", { attempt: 1, round: 1 });
    progress.hooks.onNodeStarted("auto-node");
    progress.hooks.onNodeVerifying("build", "npm test");
    expect(lines).toEqual([
      "▶ test started",
      "↻ test  retry: attempt 2/3 after result_mismatch (previous reply quoted)",
      "▶ test started (attempt 2/3)",
      "↻ test  retry: attempt 3/3 after timeout",
      "↻ review  feedback round 1/2 after verify_failed: re-running implement → review",
      "▶ implement started (feedback round 1)",
      "▶ auto-node started",
      "… build  verifying: npm test",
    ]);
    expect(progress.pause).toBeNull();
    expect(progress.resumeLines("paused")).toEqual([]);
  });

  test("a gate reached says so without resume commands; after the ledger of a paused run, the approve and reject commands", () => {
    const { lines, progress } = collect();
    progress.hooks.onGatePaused("ship it");
    expect(lines).toEqual([
      "⏸ ship it  gate reached — waiting for a person's decision (if the run pauses, the resume commands follow the ledger)",
    ]);
    expect(lines.join("\n")).not.toContain("resume with");
    expect(progress.resumeLines("paused")).toEqual([
      'paused at gate "ship it": a person decides — continue the run with one of',
      "  evidence-gate resume RUN --approve 'ship it'",
      "  evidence-gate resume RUN --reject 'ship it'",
    ]);
  });

  test("a run that failed (a sibling failed under halt) or passed while a gate waited gets no resume commands", () => {
    const { progress } = collect();
    progress.hooks.onGatePaused("sign-off");
    expect(progress.resumeLines("failed")).toEqual([]);
    expect(progress.resumeLines(undefined)).toEqual([]);
    const limited = collect().progress;
    limited.hooks.onSessionLimit("build", null);
    expect(limited.resumeLines("failed")).toEqual([]);
    expect(limited.resumeLines("paused")).toContain("  evidence-gate resume RUN --retry-failed");
  });

  test("an interrupted run (Ctrl-C: outcome cancelled) is saved, and the line after the ledger says how to continue it (issue 17 item 7)", () => {
    const expected = [
      "interrupted: the run is saved — continue it (the stopped nodes run again, the passed ones are kept) with",
      "  evidence-gate resume RUN --retry-failed",
    ];
    expect(collect().progress.resumeLines("cancelled")).toEqual(expected);
    // Interrupted while a gate waited: the same command continues it (a pause is decided once the run pauses).
    const gated = collect().progress;
    gated.hooks.onGatePaused("sign-off");
    expect(gated.resumeLines("cancelled")).toEqual(expected);
  });

  test("a session limit prints the reset time and --retry-failed", () => {
    const { lines, progress } = collect();
    progress.hooks.onSessionLimit("build", "5pm");
    expect(lines).toEqual([
      "⏸ build  session limit reached (resets 5pm) — resume after the reset with: evidence-gate resume RUN --retry-failed",
    ]);
    expect(progress.pause).toEqual({ kind: "session-limit", nodeId: "build", resetsAt: "5pm" });
  });
});

describe("the resume command names where the run is", () => {
  test("--repo when the repository is not the current directory, --runs-dir when one was given", () => {
    expect(
      resumeCommandFor({ runId: "R", repoDir: "/a", runsDir: undefined, cwd: "/a" })("--retry-failed"),
    ).toBe("evidence-gate resume R --retry-failed");
    expect(
      resumeCommandFor({ runId: "R", repoDir: "/my repo", runsDir: "/runs", cwd: "/a" })("--retry-failed"),
    ).toBe("evidence-gate resume R --repo '/my repo' --runs-dir /runs --retry-failed");
    // The first leg's executable: without it the printed command fails with "the claude CLI was not found".
    expect(
      resumeCommandFor({
        runId: "R",
        repoDir: "/a",
        runsDir: undefined,
        cwd: "/a",
        claudePath: "bin/claude",
      })("--approve ship"),
    ).toBe("evidence-gate resume R --claude-path /a/bin/claude --approve ship");
    expect(
      resumeCommandFor({ runId: "R", repoDir: "/a", runsDir: undefined, cwd: "/a", codexPath: "/opt/codex" })(
        "--retry-failed",
      ),
    ).toBe("evidence-gate resume R --codex-path /opt/codex --retry-failed");
    // A bare name is looked up on PATH, not in the current folder: kept as given.
    expect(
      resumeCommandFor({
        runId: "R",
        repoDir: "/a",
        runsDir: undefined,
        cwd: "/a",
        claudePath: "claude-canary",
      })("--retry-failed"),
    ).toBe("evidence-gate resume R --claude-path claude-canary --retry-failed");
  });

  test("shellWord quotes only what needs it, single quotes included", () => {
    expect(shellWord("approve-1.2")).toBe("approve-1.2");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("~/x")).toBe("'~/x'");
  });
});
