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
