/**
 * The node lines the CLI prints and the action logs (src/progress/node-lines.ts). The CLI's use of them —
 * details, resume commands — is tested in test/cli/progress-lines.test.ts; this is what the action adds.
 */
import { describe, expect, test } from "vitest";
import { NodeLines, nodeLine, pauseLine } from "../../src/progress/node-lines.js";
import { fail } from "../ledger/fixtures.js";

const row = fail("review", {
  cause: "result_mismatch",
  costUsd: null,
  durationMs: 4200,
  detail: "reply does not match /^OK/: line one\n::error::not a command",
});

describe("node lines without the detail (the action's log)", () => {
  test("end after the duration: the free-text detail stays out of the unfenced log", () => {
    expect(nodeLine(row, { detail: false })).toBe("✗ review  FAIL result_mismatch  cost unknown  4.2s");
    expect(nodeLine(row)).toContain("::error::not a command");
  });

  test("a pause says what continues the run", () => {
    expect(pauseLine({ kind: "gate", gate: "sign-off" }, "the run pauses for a person's decision")).toBe(
      "⏸ sign-off  gate paused — the run pauses for a person's decision",
    );
    expect(pauseLine({ kind: "session-limit", nodeId: "build", resetsAt: "5pm" }, "the run pauses")).toBe(
      "⏸ build  session limit reached (resets 5pm) — the run pauses",
    );
    expect(pauseLine({ kind: "session-limit", nodeId: "build", resetsAt: null }, "the run pauses")).toBe(
      "⏸ build  session limit reached — the run pauses",
    );
  });

  test("each run's lines remember its own nodes' attempts", () => {
    const first = new NodeLines();
    first.retried("test", { kind: "retry", cause: "timeout", attempt: 2, maxAttempts: 3, judged: false });
    expect(first.started("test", { attempt: 2, round: 0 })).toBe("▶ test started (attempt 2/3)");
    expect(new NodeLines().started("test", { attempt: 2, round: 0 })).toBe("▶ test started (attempt 2)");
  });
});
