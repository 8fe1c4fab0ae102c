/**
 * What README's `### lint` section says lint reports is what `lintGraph` reports (issue 26, a new user's
 * trial: the section still listed "`completion`, which `run` refuses in this version" as an advisory after
 * `run` learnt to run `completion`, so a reader expected a warning lint never gives).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatAdvisory, lintGraph } from "../../src/graph/lint.js";
import { REPO_ROOT } from "../support/repo-root.js";

/** The README's `### lint` section, up to the next heading. */
function lintSection(): string {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n### lint\n");
  expect(start).toBeGreaterThan(0);
  return readme.slice(start, readme.indexOf("\n### ", start + 1));
}

describe("README's lint section", () => {
  it("lists no completion advisory, and lint gives none for a node with completion", () => {
    const graph = [
      "nodes:",
      "  - id: fix",
      "    prompt: Fix the bug.",
      "    allowed_tools: [Read, Edit]",
      "    success_check: { verify: { command: npm test } }",
      "    completion: { verify: { command: npm test }, max_attempts: 2 }",
      "",
    ].join("\n");
    const linted = lintGraph(graph, "graph.yaml");
    expect(linted.errors).toEqual([]);
    expect(linted.advisories.map(formatAdvisory).filter((line) => line.includes("completion"))).toEqual([]);
    expect(lintSection()).not.toMatch(/`completion`/);
  });

  it("says what lint prints before the problems: one fragment line per spliced use:", () => {
    expect(lintSection()).toContain("one `fragment: …` line per\nspliced `use:`");
  });
});
