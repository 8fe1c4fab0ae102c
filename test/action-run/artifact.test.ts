/**
 * The run's workflow artifacts (SPEC §6, §10, §11), in-process (test/support/action-in-process.ts): the
 * action's `runAction` with the model calls played by the scripted stand-in skips the upload with a notice
 * where the runner's artifact service is absent; `redact`, the artifact names and a refused upload, unit by
 * unit. Moved from test/e2e/action-artifact.test.ts (issue 24), which keeps the one real run: the bundled
 * action uploading both artifacts to a local stand-in of the runner's artifact service.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  artifactsMarkdown,
  ledgerArtifactName,
  redact,
  runArtifactName,
  uploadRunArtifacts,
} from "../../src/github/artifact.js";
import { actionInProcessResources } from "../support/action-in-process.js";
import { completion } from "../support/action-step.js";
import { MARKS } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;

const open = actionInProcessResources();

/** The sample repository and the GitHub API double. */
async function start() {
  const repo = open.keep(await makeSampleNodeRepo());
  return { repo, github: await open.github() };
}

describe("action (in-process): run artifacts", () => {
  it("without ACTIONS_RUNTIME_TOKEN / ACTIONS_RESULTS_URL the upload is skipped with one notice, and the summary names both artifacts and where the run directory is", async () => {
    const { repo, github } = await start();
    const result = await open.run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
      env: { ACTIONS_RUNTIME_TOKEN: undefined, ACTIONS_RESULTS_URL: undefined },
    });
    expect(result.exitCode, result.stdout.slice(-3000)).toBe(0);
    const runId = result.outputs["run-id"]!;

    const notices = result.commands.filter((c) => c.startsWith("::notice::"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain("artifact upload skipped");
    expect(notices[0]).toContain("ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set");
    expect(notices[0]).toContain(`evidence-gate-run-${runId}`);
    expect(notices[0]).toContain("evidence-gate-ledger");

    expect(result.summary).toContain("### Artifacts");
    expect(result.summary).toContain(`\`evidence-gate-run-${runId}\``);
    expect(result.summary).toContain("`evidence-gate-ledger`");
    expect(result.summary).toContain("not uploaded");
    // The patch stays where the run directory is, and the summaries say so.
    const runDir = join(result.runnerTemp, "evidence-gate", "runs", runId);
    expect(result.summary).toContain(`\`${runDir}\``);
    expect(existsSync(join(runDir, "patch.diff"))).toBe(true);
    expect(completion(result)!.output!.summary).toContain(join(runDir, "patch.diff"));
    github.assertNoViolations();
  });
});

describe("artifact redaction", () => {
  it("replaces a secret as raw text and as JSON-escaped text, leaves short values and other bytes alone", () => {
    const secret = 'se"cr\\et-value';
    const text = `raw ${secret} json ${JSON.stringify(secret)} short ab`;
    const out = redact(Buffer.from(text), [secret, "ab"]).toString("utf8");
    expect(out).toBe('raw *** json "***" short ab');
    const binary = Buffer.from([0, 255, ...Buffer.from("tok-1234"), 254]);
    expect([...redact(binary, ["tok-1234"])]).toEqual([0, 255, 42, 42, 42, 254]);
  });
});

describe("uploadRunArtifacts (in process)", () => {
  it("a refused upload is reported as failed with a warning, never thrown, and the summary says the upload failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-artifact-unit-"));
    try {
      const runDir = join(dir, "runs", "20250101-000000-abcdef");
      mkdirSync(runDir, { recursive: true });
      writeFileSync(join(runDir, "ledger.json"), "{}\n");
      const warnings: string[] = [];
      const notices: string[] = [];
      const uploaded: string[] = [];
      const artifacts = await uploadRunArtifacts({
        runId: "20250101-000000-abcdef",
        runDir,
        ledgerPath: join(runDir, "ledger.json"),
        checkName: "evidence-gate",
        stagingDir: dir,
        env: { ACTIONS_RUNTIME_TOKEN: "t", ACTIONS_RESULTS_URL: "http://127.0.0.1:9/" },
        secrets: [],
        notice: (m) => notices.push(m),
        warn: (m) => warnings.push(m),
        client: {
          uploadArtifact: async (name) => {
            uploaded.push(name);
            if (name.startsWith("evidence-gate-run-")) throw new Error("Failed request: (403) Forbidden");
            return { id: 7, size: 3 };
          },
        },
      });
      expect(uploaded).toEqual(["evidence-gate-run-20250101-000000-abcdef", "evidence-gate-ledger"]);
      expect(artifacts.runDirectory).toMatchObject({
        kind: "failed",
        message: "Failed request: (403) Forbidden",
      });
      expect(artifacts.ledger).toEqual({
        kind: "uploaded",
        name: "evidence-gate-ledger",
        id: 7,
        size: 3,
        files: 1,
      });
      expect(notices).toEqual([]);
      expect(warnings).toEqual([
        "evidence-gate: could not upload artifact evidence-gate-run-20250101-000000-abcdef: Failed request: (403) Forbidden",
      ]);
      const markdown = artifactsMarkdown(artifacts, runDir);
      expect(markdown).toContain("**upload failed**");
      expect(markdown).toContain(`\`${runDir}\``);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("artifact names drop the characters the artifact service refuses", () => {
    expect(runArtifactName("20250101-000000-abcdef")).toBe("evidence-gate-run-20250101-000000-abcdef");
    expect(ledgerArtifactName('ci / "gate": <pr>')).toBe("ci - -gate-- -pr--ledger");
    expect(ledgerArtifactName("evidence-gate")).toBe("evidence-gate-ledger");
  });
});
