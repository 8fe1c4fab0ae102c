/**
 * The example workflows in docs/examples/ (SPEC §10: fork pull requests in two stages) parse, give only
 * inputs `action.yml` declares (so they cannot drift from it), ask for the least permissions each stage
 * needs, and fit together: the report workflow runs on the pull request workflow's completed runs, in
 * `mode: report`, with the same check name. Neither uses `pull_request_target`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT } from "../support/action-harness.js";

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}
interface Workflow {
  readonly name: string;
  readonly on: Record<string, unknown>;
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, { readonly steps: readonly Step[]; readonly permissions?: unknown }>;
}

function workflow(file: string): Workflow {
  return parse(readFileSync(join(REPO_ROOT, "docs", "examples", file), "utf8")) as Workflow;
}

const declared = Object.keys(
  (parse(readFileSync(join(REPO_ROOT, "action.yml"), "utf8")) as { inputs: Record<string, unknown> }).inputs,
);

/** The evidence-gate step of a workflow (exactly one). */
function gateStep(wf: Workflow): Step {
  const steps = Object.values(wf.jobs).flatMap((job) => job.steps);
  const gates = steps.filter((s) => s.uses?.startsWith("evidence-gate/evidence-gate@"));
  expect(gates).toHaveLength(1);
  return gates[0]!;
}

describe("docs/examples: the two-stage workflows", () => {
  const pr = workflow("evidence-gate-pr.yml");
  const report = workflow("evidence-gate-report.yml");

  it.each([
    ["evidence-gate-pr.yml", pr],
    ["evidence-gate-report.yml", report],
  ])("%s gives only inputs action.yml declares", (_file, wf) => {
    const given = Object.keys(gateStep(wf).with ?? {});
    expect(given.length).toBeGreaterThan(0);
    expect(given.filter((name) => !declared.includes(name))).toEqual([]);
  });

  it("stage 1 runs on pull_request, never pull_request_target, reading contents (checks: write and pull-requests: write, for the sticky comment, are capped to read on a fork)", () => {
    expect(Object.keys(pr.on)).toEqual(["pull_request"]);
    expect(pr.permissions).toEqual({ contents: "read", checks: "write", "pull-requests": "write" });
    expect(Object.values(pr.jobs).every((job) => job.permissions === undefined)).toBe(true);
  });

  it("stage 2 is mode report on the stage-1 workflow's completed runs, with actions: read and checks: write only, and runs no pull request code", () => {
    expect(Object.keys(report.on)).toEqual(["workflow_run"]);
    expect(report.on.workflow_run).toEqual({ workflows: [pr.name], types: ["completed"] });
    expect(report.permissions).toEqual({ actions: "read", checks: "write" });
    const step = gateStep(report);
    expect(step.with?.mode).toBe("report");
    // The same check name in both stages (the ledger artifact is `<check-name>-ledger`).
    expect(step.with?.["check-name"]).toBe(gateStep(pr).with?.["check-name"]);
    // No checkout and no model credential in the job that holds the write token.
    const steps = Object.values(report.jobs).flatMap((job) => job.steps);
    expect(steps.some((s) => s.uses?.startsWith("actions/checkout"))).toBe(false);
    expect(Object.keys(step.with ?? {}).some((k) => /api-key|oauth-token/.test(k))).toBe(false);
  });
});

/** The package-manager installs in `text` (a `run:` script) that would run install scripts. */
function installsWithScripts(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => /\b(npm (ci|install|i)|yarn( install)?|pnpm (install|i))\b/.test(line))
    .filter((line) => !/--ignore-scripts\b/.test(line) && !/^\s*#/.test(line));
}

describe("docs/examples and README: dependencies install with scripts off before the action (issue 12 item 4)", () => {
  it("every run step before the evidence-gate step of the pull-request workflow installs with --ignore-scripts", () => {
    const wf = workflow("evidence-gate-pr.yml");
    const steps = Object.values(wf.jobs).flatMap((job) => job.steps);
    const gate = steps.findIndex((s) => s.uses?.startsWith("evidence-gate/evidence-gate@"));
    expect(gate).toBeGreaterThan(0);
    const before = steps.slice(0, gate).flatMap((s) => (s.run === undefined ? [] : [s.run]));
    expect(before.some((run) => run.includes("npm ci"))).toBe(true);
    expect(before.flatMap(installsWithScripts)).toEqual([]);
  });

  it("the README's workflow snippets install with --ignore-scripts before the action", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const beforeGate = blocks
      .filter((block) => block.includes("evidence-gate/evidence-gate@"))
      .map((block) => block.slice(0, block.indexOf("evidence-gate/evidence-gate@")));
    expect(beforeGate.some((text) => text.includes("npm ci"))).toBe(true);
    expect(beforeGate.flatMap(installsWithScripts)).toEqual([]);
  });
});
