import { describe, expect, it } from "vitest";
import { loadGraphObject } from "../../src/graph/load.js";
import { attachVerifyCommand, sinkIds } from "../../src/plan/attach-verify.js";
import type { PlannedSpec } from "../../src/plan/planned-rules.js";

function diamond(): PlannedSpec {
  return {
    name: "d",
    version: "1",
    nodes: [
      { id: "plan", prompt: "p", allowed_tools: ["Read"] },
      { id: "api", depends_on: ["plan"], prompt: "p", allowed_tools: ["Edit"] },
      {
        id: "ui",
        depends_on: ["plan"],
        prompt: "p",
        allowed_tools: ["Edit"],
        success_check: { exit_zero: true },
      },
      { id: "docs", prompt: "p", allowed_tools: ["Write"] },
    ],
  };
}

describe("attachVerifyCommand", () => {
  it("attaches the command to every sink and to no interior node, and returns the sinks in node order", () => {
    const spec = diamond();
    expect(attachVerifyCommand(spec, "npm test", { timeoutMs: 600_000 })).toEqual(["api", "ui", "docs"]);
    expect(spec.nodes.map((node) => node.success_check)).toEqual([
      undefined,
      { verify: { command: "npm test", timeout: "10m" } },
      { exit_zero: true, verify: { command: "npm test", timeout: "10m" } },
      { verify: { command: "npm test", timeout: "10m" } },
    ]);
  });

  it("writes the timeout as a Go duration the graph loader reads back", () => {
    const spec = diamond();
    attachVerifyCommand(spec, "make check", { timeoutMs: 90_500 });
    expect(spec.nodes[1]?.success_check?.verify?.timeout).toBe("1m30s500ms");
    const loaded = loadGraphObject(spec, "test");
    expect(loaded.ok).toBe(true);
  });

  it("skips a gate sink", () => {
    const spec = diamond();
    (spec.nodes[3] as Record<string, unknown>).type = "gate";
    expect(attachVerifyCommand(spec, "npm test", { timeoutMs: 60_000 })).toEqual(["api", "ui"]);
    expect(spec.nodes[3]?.success_check).toBeUndefined();
  });

  it("refuses an empty command as a broken invariant: it would pass every time", () => {
    expect(() => attachVerifyCommand(diamond(), "  ", { timeoutMs: 60_000 })).toThrow(
      /Internal error: an empty verify command/,
    );
  });

  it("refuses a timeout under one millisecond", () => {
    expect(() => attachVerifyCommand(diamond(), "npm test", { timeoutMs: 0 })).toThrow(
      /Internal error: verify timeout/,
    );
  });

  it("refuses to attach twice", () => {
    const spec = diamond();
    attachVerifyCommand(spec, "npm test", { timeoutMs: 60_000 });
    expect(() => attachVerifyCommand(spec, "npm test", { timeoutMs: 60_000 })).toThrow(
      /already carries a verify command/,
    );
  });
});

describe("sinkIds", () => {
  it("names the nodes nobody depends on", () => {
    expect(sinkIds(diamond())).toEqual(["api", "ui", "docs"]);
  });
});

describe("attachVerifyCommand with repair-attempts (SPEC §7, issue 13 item 5)", () => {
  it("makes the command each sink's completion gate with max_attempts N + 1, and the graph loads it", () => {
    const spec = diamond();
    expect(attachVerifyCommand(spec, "npm test", { timeoutMs: 600_000, repairAttempts: 2 })).toEqual([
      "api",
      "ui",
      "docs",
    ]);
    expect(spec.nodes.map((node) => node.completion)).toEqual([
      undefined,
      { verify: { command: "npm test", timeout: "10m" }, max_attempts: 3 },
      { verify: { command: "npm test", timeout: "10m" }, max_attempts: 3 },
      { verify: { command: "npm test", timeout: "10m" }, max_attempts: 3 },
    ]);
    // The build is the gate, not a success check that would fail the attempt before the gate could run.
    expect(spec.nodes.map((node) => node.success_check?.verify)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const loaded = loadGraphObject(spec, "planner reply");
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    const api = loaded.graph.nodes.find((n) => n.id === "api");
    expect(api?.completion).toEqual({
      verify: { kind: "command", command: "npm test", timeout_ms: 600_000, expect_exit: 0 },
      max_attempts: 3,
    });
  });

  it("repair-attempts 0 is today's success_check.verify; a negative or fractional count is refused", () => {
    const spec = diamond();
    attachVerifyCommand(spec, "npm test", { timeoutMs: 600_000, repairAttempts: 0 });
    expect(spec.nodes[1]?.success_check?.verify).toEqual({ command: "npm test", timeout: "10m" });
    expect(spec.nodes[1]?.completion).toBeUndefined();
    expect(() => attachVerifyCommand(diamond(), "npm test", { timeoutMs: 1000, repairAttempts: -1 })).toThrow(
      /repair attempts must be an integer >= 0, got -1/,
    );
    expect(() =>
      attachVerifyCommand(diamond(), "npm test", { timeoutMs: 1000, repairAttempts: 1.5 }),
    ).toThrow(/got 1\.5/);
  });
});
