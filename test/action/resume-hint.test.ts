/**
 * A paused run says how to resume it (SPEC §4, §6): the exact `mode: resume` inputs, the commit to check
 * out, the `gh` command for the README's resume workflow, and the CLI command — for a gate and for the
 * model's session limit.
 */
import { describe, expect, it } from "vitest";
import { nodeIdLines } from "../../src/graph/node-lines.js";
import { README_RESUME_WORKFLOW, resumeHintMarkdown } from "../../src/pull-request/resume-hint.js";

const RUN_ID = "20250101-120000-abcdef";
const SHA = "e768ad242a9db3f2007fa087d3ae2599cd5ecc4e";

describe("resumeHintMarkdown", () => {
  it("a gate: approve or reject it, with the inputs, the gh command and the CLI command", () => {
    const text = resumeHintMarkdown({
      runId: RUN_ID,
      paused: { reason: "gate", node: "sign-off" },
      startingSha: SHA,
    });
    expect(text).toContain("paused at gate `sign-off`");
    expect(text).toContain(
      `\`\`\`yaml\nmode: resume\nresume-run-id: ${RUN_ID}\napprove-gate: sign-off    # or: reject-gate: sign-off\n\`\`\``,
    );
    expect(text).toContain(
      `gh workflow run ${README_RESUME_WORKFLOW} -f run-id=${RUN_ID} -f sha=${SHA} -f approve-gate=sign-off`,
    );
    expect(text).toContain(`evidence-gate resume ${RUN_ID} --approve sign-off    # or: --reject sign-off`);
    expect(text).toContain(`artifact \`evidence-gate-run-${RUN_ID}\``);
  });

  it("the session limit: retry the failed nodes once it resets", () => {
    const text = resumeHintMarkdown({
      runId: RUN_ID,
      paused: { reason: "session-limit", node: "implement", resets_at: "2025-01-01T15:00:00Z" },
      startingSha: null,
    });
    expect(text).toContain(
      "Node `implement` hit the model's session limit (it resets at 2025-01-01T15:00:00Z)",
    );
    expect(text).toContain(`resume-run-id: ${RUN_ID}\nretry-failed: true`);
    expect(text).toContain("-f retry-failed=true");
    expect(text).toContain(`evidence-gate resume ${RUN_ID} --retry-failed`);
    expect(text).toContain("<the commit the run started on>");
  });
});

describe("nodeIdLines", () => {
  it("finds each node's id line in YAML and in JSON; the first declaration of a duplicate wins", () => {
    expect([...nodeIdLines("name: g\nnodes:\n  - id: a\n    prompt: x\n  - id: b\n  - id: a\n")]).toEqual([
      ["a", 3],
      ["b", 5],
    ]);
    expect(nodeIdLines('{\n "nodes": [\n  {"id": "a"},\n  {"id": "b"}\n ]\n}').get("b")).toBe(4);
  });

  it("a file that does not parse, or has no nodes list, has no lines (and does not throw)", () => {
    expect(nodeIdLines("nodes: [\n").size).toBe(0);
    expect(nodeIdLines("just text").size).toBe(0);
  });
});
