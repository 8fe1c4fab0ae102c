import { describe, expect, test } from "vitest";
import { nodeLine, ProgressLines, resumeCommandFor, shellWord } from "../../src/cli/progress-lines.js";
import type { LedgerRow } from "../../src/ledger/model.js";

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
    expect(progress.resumeLines()).toEqual([]);
  });

  test("a gate pause prints the approve and reject commands, on its line and after the ledger", () => {
    const { lines, progress } = collect();
    progress.hooks.onGatePaused("ship it");
    expect(lines).toEqual([
      "⏸ ship it  gate paused — resume with: evidence-gate resume RUN --approve 'ship it' | --reject 'ship it'",
    ]);
    expect(progress.resumeLines()).toEqual([
      'paused at gate "ship it": a person decides — continue the run with one of',
      "  evidence-gate resume RUN --approve 'ship it'",
      "  evidence-gate resume RUN --reject 'ship it'",
    ]);
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
  });

  test("shellWord quotes only what needs it, single quotes included", () => {
    expect(shellWord("approve-1.2")).toBe("approve-1.2");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("~/x")).toBe("'~/x'");
  });
});
