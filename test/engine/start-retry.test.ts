/**
 * The bounded retry of a planner or assessor CLI that fails to START (issue 26; Go
 * `runAssessorWithSpawnRetry`, research/oh-my-graph.md §3.6): real spawns of a missing executable, never a
 * simulated error; only `spawn_failed` is retried, and the ledger's words say so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { assessCycle } from "../../src/engine/assess-call.js";
import { planWithRepair } from "../../src/engine/plan-call.js";
import { runProcess } from "../../src/proc/run-process.js";
import { START_ATTEMPTS, startRetryNote, withStartRetry } from "../../src/runtime/start-retry.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eg-start-retry-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const missing = (): string => join(dir, "no-such-claude");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("withStartRetry", () => {
  test("a start that fails is retried; the first that starts ends it, and the note says so", async () => {
    let calls = 0;
    const { outcome, failedStarts } = await withStartRetry(
      () => {
        calls += 1;
        return runProcess({ command: calls === 1 ? missing() : "true", cwd: dir, env });
      },
      undefined,
      10,
    );
    expect(outcome.kind).toBe("exited");
    expect(calls).toBe(2);
    expect(failedStarts).toHaveLength(1);
    expect(failedStarts[0]).toContain("no-such-claude");
    expect(startRetryNote("the planner CLI", failedStarts, true)).toBe(
      `the planner CLI failed to start once (${failedStarts[0]}); retried 300 ms apart, it started on attempt 2 of 3`,
    );
    expect(startRetryNote("the planner CLI", [], true)).toBeNull();
  });

  test("a process that started and failed (a non-zero exit) is never retried", async () => {
    let calls = 0;
    const { outcome, failedStarts } = await withStartRetry(
      () => {
        calls += 1;
        return runProcess({ command: "false", cwd: dir, env });
      },
      undefined,
      10,
    );
    expect(outcome).toMatchObject({ kind: "exited", exitCode: 1 });
    expect([calls, failedStarts.length]).toEqual([1, 0]);
  });

  test(`at most ${START_ATTEMPTS} attempts, then the last failure stands`, async () => {
    let calls = 0;
    const { outcome, failedStarts } = await withStartRetry(
      () => {
        calls += 1;
        return runProcess({ command: missing(), cwd: dir, env });
      },
      undefined,
      10,
    );
    expect(outcome.kind).toBe("spawn_failed");
    expect([calls, failedStarts.length]).toEqual([START_ATTEMPTS, START_ATTEMPTS - 1]);
  });
});

describe("the planner and the assessor", () => {
  test("a planner CLI that never starts: three real attempts, and the refusal says so", async () => {
    const planned = await planWithRepair({
      executable: missing(),
      prompt: "plan",
      allowlist: ["Read"],
      cwd: dir,
      env,
      timeoutMs: 10_000,
    });
    expect(planned.kind).toBe("rejected");
    expect(planned.failedStarts).toHaveLength(START_ATTEMPTS - 1);
    expect(planned.kind === "rejected" ? planned.reason : "").toMatch(
      /^could not start .*no-such-claude \(3 attempts, 300 ms apart\): /,
    );
  });

  test("an assessor CLI that never starts: three real attempts, and the reason says so", async () => {
    const assessed = await assessCycle({
      runtime: "claude",
      executable: missing(),
      prompt: "assess",
      cwd: dir,
      env,
      timeoutMs: 10_000,
    });
    expect(assessed.kind).toBe("failed");
    expect(assessed.kind === "failed" ? assessed.reason : "").toMatch(
      /^could not start the assessor CLI .*no-such-claude \(3 attempts, 300 ms apart\): /,
    );
  });
});
