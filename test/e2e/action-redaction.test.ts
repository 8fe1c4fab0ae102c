/**
 * The bundled action sends no token-shaped value anywhere (SPEC §9; issue 12 item 5), one surface per
 * test: values no input declared as a secret — a GitHub PAT and an Anthropic key the verify command
 * prints, a fine-grained PAT in the implement node's reply — are absent from the check run (every create
 * and update), its annotations, the sticky PR comment, the job summary, both uploaded artifacts and the
 * step's log (children's output echoed to the runner).
 *
 * One run serves every test (the real `claude` CLI against the scripted model server, the local GitHub
 * server, the local artifact service). The verify command assembles each token with `printf`, so only
 * its output, never the command line, holds one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActionRun,
  actionTestResources,
  checkRunWrites,
  cleanupActionRun,
  readZip,
  startArtifactService,
  stepDebug,
} from "../support/action-harness.js";
import type { ModelScript } from "../support/model-server/index.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

/** `n` mixed-case base62 characters, a different sequence for each `seed` (so no two bodies share a tail). */
function filler(seed: number, n: number): string {
  const alphabet = "aB3dE5fG7hJ9kLmN2pQ4rS6tU8vW0xYzCoDiFuHeKaMoPi";
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[(i * seed + seed * 3) % alphabet.length];
  return out;
}
const PAT_BODY = filler(5, 36);
const KEY_BODY = `${filler(7, 86)}-${filler(11, 6)}AA`;
const FINE_BODY = `${filler(13, 22)}_${filler(17, 59)}`;
const TAILS = [PAT_BODY.slice(-16), KEY_BODY.slice(-16), FINE_BODY.slice(-16)];

/** fix-sum with a still-broken fix (the verify fails, so there are annotations) and a reply holding a PAT. */
function script(repoDir: string): ModelScript {
  const base = fixSumScript({ repoDir, newBody: "return a * b;" });
  return {
    conversations: base.conversations.map((c) =>
      c.name !== "implement"
        ? c
        : {
            ...c,
            turns: [
              ...c.turns.slice(0, -1),
              { text: `Fixed sum(); the registry token in .npmrc is github${"_pat_"}${FINE_BODY}.` },
            ],
          },
    ),
  };
}

/**
 * `npm test`, then two tokens printed by printf from pieces, keeping npm test's exit code. No piece holds
 * a token shape or a tail of {@link TAILS}: each body is cut 8 characters before its end.
 */
const VERIFY = [
  // The engine runs it with `sh -e`: `|| s=$?` keeps a failing npm test from ending the script there.
  "s=0",
  "npm test || s=$?",
  `printf 'GH_TOKEN=%s%s%s\\n' gh p_${PAT_BODY.slice(0, -8)} ${PAT_BODY.slice(-8)}`,
  `printf 'ANTHROPIC_API_KEY=%s%s%s\\n' sk- ant-api03-${KEY_BODY.slice(0, -8)} ${KEY_BODY.slice(-8)}`,
  "exit $s",
].join("; ");

/** A mask after `name=`, as written or as the Markdown renderers escape it (`\\_`, `\\*`). */
const masked = (name: string) =>
  new RegExp(`${name.replace(/_/g, "\\\\?_")}=(?:\\*\\*\\*|\\\\\\*\\\\\\*\\\\\\*)`);

function expectNoPlantedValue(text: string, what: string): void {
  for (const tail of TAILS) expect(text.includes(tail), `${what} holds …${tail}`).toBe(false);
}

const open = actionTestResources();

describe("action: token-shaped values nobody declared leave by no surface", () => {
  let result: ActionRun;
  let uploads: Map<string, Map<string, Buffer>>;
  /** The implement node's reply as the run directory on the runner keeps it. */
  let keptReply: string;

  beforeAll(async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const { github, model } = await open.servers(script(repo.dir));
    const service = await startArtifactService();
    open.service = service;
    result = await open.run({
      workspace: repo.dir,
      inputs: { goal: `${MARKS.plannerGoal}.`, "verify-cmd": VERIFY },
      github,
      model,
      env: {
        ...service.env,
        GITHUB_WORKFLOW_REF: "octo-org/widgets/.github/workflows/gate.yml@refs/pull/42/merge",
      },
    });
    uploads = new Map();
    for (const artifact of service.artifacts) uploads.set(artifact.name, await readZip(artifact.zip));
    const runDir = join(result.runnerTemp, "evidence-gate", "runs", result.outputs["run-id"] ?? "?");
    keptReply = readFileSync(join(runDir, "nodes", "implement.out"), "utf8");
    github.assertNoViolations();
    // Everything a test reads is captured above; RUNNER_TEMP is removed after the last test, not the first.
    open.runs.length = 0;
  }, 180_000);
  afterAll(() => cleanupActionRun(result));

  it("the run failed on the verify command, and the values were really produced", () => {
    for (const tail of TAILS)
      expect(VERIFY.includes(tail), "the command line holds no planted tail").toBe(false);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    // The node's reply is kept on the runner as the CLI gave it (the artifact is a redacted copy).
    expect(keptReply).toContain(FINE_BODY);
  });

  it("check run: no create or update carries one (title, summary, text)", () => {
    const writes = checkRunWrites(result);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const write of writes) expectNoPlantedValue(JSON.stringify(write.body), `${write.method} check run`);
    const done = writes.find((w) => w.body.conclusion !== undefined)!;
    expect(JSON.stringify(done.body)).toMatch(masked("GH_TOKEN"));
  });

  it("annotations: none carries one", () => {
    const done = checkRunWrites(result).find((w) => w.body.conclusion !== undefined)!;
    const annotations = (done.body.output as { annotations?: unknown[] }).annotations ?? [];
    expect(annotations.length).toBeGreaterThan(0);
    const sent = JSON.stringify(annotations);
    expectNoPlantedValue(sent, "the annotations");
    expect(sent).toMatch(masked("ANTHROPIC_API_KEY"));
  });

  it("PR comment: the sticky comment carries none", () => {
    const comments = result.calls.filter(
      (c) => c.route === "/repos/{owner}/{repo}/issues/{issue_number}/comments" && c.method === "POST",
    );
    expect(comments).toHaveLength(1);
    expectNoPlantedValue(JSON.stringify(comments[0]!.body), "the comment");
  });

  it("job summary: carries none", () => {
    expect(result.summary).toMatch(masked("GH_TOKEN"));
    expectNoPlantedValue(result.summary, "the job summary");
  });

  it("runner log: the echoed verify output carries none, and the echo was really there", () => {
    expect(result.stdout).toMatch(/GH_TOKEN=\*\*\*/);
    expectNoPlantedValue(result.stdout, "the step's log (stdout)");
    expectNoPlantedValue(result.stderr, "the step's stderr");
  });

  it("artifacts: no file of the run directory or the ledger artifact carries one", () => {
    const runId = result.outputs["run-id"]!;
    expect([...uploads.keys()]).toEqual([`evidence-gate-run-${runId}`, "evidence-gate-ledger"]);
    const runFiles = uploads.get(`evidence-gate-run-${runId}`)!;
    expect([...runFiles.keys()]).toContain("nodes/implement.out");
    for (const files of uploads.values())
      for (const [name, bytes] of files)
        expectNoPlantedValue(bytes.toString("latin1"), `artifact file ${name}`);
    expect(runFiles.get("nodes/implement.out")!.toString("utf8")).toContain("in .npmrc is ***.");
  });
});
