/**
 * The plan screen's title and lines (`auto`, `plan`): the planner's cost is always on the title, and a plan
 * with no node (refused after its repair, or an unusable planner reply) prints no build-evidence line and
 * no tool-ceiling paragraph — they would describe nodes that do not exist.
 */
import { describe, expect, it } from "vitest";
import type { PlanSection } from "../../src/ledger/ledger.js";
import { planLines, planTitle } from "../../src/progress/progress-lines.js";

const DISCLOSURE = "Planned nodes run isolated: no user, project or local settings load for them.";

function plan(over: Partial<PlanSection> = {}): PlanSection {
  return {
    buildEvidence: { kind: "attached", command: "npm test", declaredBy: "input" },
    sinkCommands: [{ nodeId: "check", command: "npm test" }],
    disclosure: DISCLOSURE,
    nodes: [
      { id: "fix", dependsOn: [], allowedTools: ["Read", "Edit"], sink: false },
      { id: "check", dependsOn: ["fix"], allowedTools: ["Read"], sink: true },
    ],
    planningCostUsd: 0.0008,
    ...over,
  };
}

describe("planTitle and planLines", () => {
  it("a plan that runs: node count, the repair, the planner's cost; then nodes, build evidence, disclosure", () => {
    const p = plan({ repaired: { refusals: ["Bash(*) is wider than the ceiling"] } });
    expect(planTitle(p)).toBe("plan: 2 nodes (re-planned once after a refusal), planner $0.0008");
    const lines = planLines(p, planTitle(p));
    expect(lines.slice(1, 3)).toEqual(["  fix  [Read, Edit]", "  check ← fix  [Read]  verify: npm test"]);
    expect(lines).toContain("build evidence: npm test (engine-run at every sink)");
    expect(lines.some((l) => l.includes(DISCLOSURE))).toBe(true);
    expect(planTitle(plan({ planningCostUsd: null }))).toBe("plan: 2 nodes, planner unknown");
  });

  it("a refused or failed plan: the title says so with the cost spent, and nothing describes absent nodes", () => {
    const refused = plan({ nodes: [], sinkCommands: [], repaired: { refusals: ["still too wide"] } });
    expect(planTitle(refused)).toBe("plan: refused, nothing to run (planner $0.0008)");
    expect(planLines(refused, planTitle(refused))).toEqual([
      "plan: refused, nothing to run (planner $0.0008)",
    ]);
    const failed = plan({ nodes: [], sinkCommands: [], warnings: ["budget_usd is not enforced on codex"] });
    expect(planTitle(failed)).toBe("plan: planning failed, nothing to run (planner $0.0008)");
    expect(planLines(failed, planTitle(failed))).toEqual([
      "plan: planning failed, nothing to run (planner $0.0008)",
      "warning: budget_usd is not enforced on codex",
    ]);
  });
});
