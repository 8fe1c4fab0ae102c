/**
 * A `cwd` (or `success_check.verify.cwd`) that only `{{ inputs.NAME }}` fills is judged with the inputs
 * given before anything runs, by lint's own rule (src/graph/cwd-rules.ts): lint cannot see the value, and
 * the run used to fail such a node only when it was reached — after the nodes before it were paid for.
 */
import { describe, expect, it } from "vitest";
import { loadHandWrittenGraph } from "../../src/engine/hand-graph.js";

const GRAPH = [
  "nodes:",
  "  - { id: first, prompt: p, allowed_tools: [Read] }",
  "  - id: build",
  "    depends_on: [first]",
  "    prompt: p",
  "    allowed_tools: [Read]",
  '    cwd: "{{ inputs.dir }}"',
  '    success_check: { verify: { command: "npm test", cwd: "{{ inputs.sub }}" } }',
  "",
].join("\n");

const load = (inputs: Record<string, string>) =>
  loadHandWrittenGraph({ graphText: GRAPH, graphSource: "g.yaml", inputs, runtime: "claude" });

describe("a cwd filled from the inputs", () => {
  it("climbing out of the working directory: refused before anything runs, naming the node, the field and the value", async () => {
    const loaded = await load({ dir: "../elsewhere", sub: "." });
    expect(loaded.kind).toBe("usage_error");
    if (loaded.kind !== "usage_error") return;
    expect(loaded.message).toContain("g.yaml, with the inputs given:");
    expect(loaded.message).toContain('node "build"');
    expect(loaded.message).toContain('cwd "../elsewhere" climbs out of the run\'s working directory');
    expect(loaded.message).toMatch(/Nothing was run\.$/);
  });

  it("an absolute verify cwd: refused the same way", async () => {
    const loaded = await load({ dir: "pkg", sub: "/etc" });
    expect(loaded.kind).toBe("usage_error");
    if (loaded.kind === "usage_error") {
      expect(loaded.message).toContain('success_check.verify.cwd "/etc" is an absolute path');
    }
  });

  it("a verify cwd that climbs out through the node's filled cwd: refused", async () => {
    const loaded = await load({ dir: "pkg", sub: "../.." });
    expect(loaded.kind).toBe("usage_error");
    if (loaded.kind === "usage_error") expect(loaded.message).toContain('joined to the node\'s cwd "pkg"');
  });

  it("folders inside the working directory load", async () => {
    const loaded = await load({ dir: "pkg", sub: "tests" });
    expect(loaded.kind).toBe("loaded");
  });
});
