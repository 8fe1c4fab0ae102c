/**
 * The run's workflow artifacts (SPEC §6, §10, §11): `evidence-gate-run-<run id>` (the run directory with
 * `patch.diff`) and `<check-name>-ledger`, uploaded through `@actions/artifact` from the bundled action —
 * skipped with a notice where the runner's artifact service is absent, and really uploaded to a local
 * stand-in of that service where it is present.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
import {
  actionTestResources,
  completion,
  readZip,
  startArtifactService,
  TEST_GITHUB_TOKEN,
} from "../support/action-harness.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;

const open = actionTestResources();

/** The sample repository and both servers, the model playing the fix-sum scenario. */
async function start() {
  const repo = open.keep(await makeSampleNodeRepo());
  return { repo, ...(await open.servers(fixSumScript({ repoDir: repo.dir }))) };
}

describe("action: run artifacts", () => {
  it("without ACTIONS_RUNTIME_TOKEN / ACTIONS_RESULTS_URL the upload is skipped with one notice, and the summary names both artifacts and where the run directory is", async () => {
    const { repo, github, model } = await start();
    const result = await open.run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      model,
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

  it("with the runner's artifact service, the run directory (patch.diff included) and the ledger JSON are uploaded with secrets redacted, and the check run names the artifact that holds the patch", async () => {
    const { repo, github, model } = await start();
    const service = await startArtifactService();
    open.service = service;
    const result = await open.run({
      workspace: repo.dir,
      // The build prints the token: every uploaded copy must have it redacted.
      inputs: {
        goal: GOAL,
        "verify-cmd": `echo "build token ${TEST_GITHUB_TOKEN}" && npm test`,
        "check-name": "evidence/gate",
      },
      github,
      model,
      env: service.env,
    });
    expect(result.exitCode, result.stdout.slice(-3000)).toBe(0);
    const runId = result.outputs["run-id"]!;
    expect(result.outputs.conclusion).toBe("action_required");

    // The check name's "/" is not allowed in an artifact name.
    expect(service.artifacts.map((a) => [a.name, a.finalized])).toEqual([
      [`evidence-gate-run-${runId}`, true],
      ["evidence-gate-ledger", true],
    ]);
    const runFiles = await readZip(service.artifacts[0]!.zip);
    for (const name of ["state.json", "events.jsonl", "graph.json", "ledger.json", "patch.diff"]) {
      expect([...runFiles.keys()]).toContain(name);
    }
    const runDir = join(result.runnerTemp, "evidence-gate", "runs", runId);
    expect(runFiles.get("patch.diff")!.equals(readFileSync(join(runDir, "patch.diff")))).toBe(true);
    expect(runFiles.get("patch.diff")!.toString("utf8")).toContain("+  return a + b;");

    const ledgerFiles = await readZip(service.artifacts[1]!.zip);
    // The ledger, and the run-state digests beside it (for the App's check run, `report-to: bot`).
    expect([...ledgerFiles.keys()].sort()).toEqual(["ledger.json", "run-state-digest.json"]);
    const ledger = JSON.parse(ledgerFiles.get("ledger.json")!.toString("utf8")) as { runId: string };
    expect(ledger.runId).toBe(runId);
    const digests = JSON.parse(ledgerFiles.get("run-state-digest.json")!.toString("utf8")) as {
      runId: string;
      state: string;
    };
    expect(digests.runId).toBe(runId);
    expect(digests.state).toBe(
      createHash("sha256")
        .update(readFileSync(join(runDir, "state.json")))
        .digest("hex"),
    );

    // The token was in the verify output, and in no uploaded byte. The run directory on the runner is
    // redacted at the source too (runAuto); only patch.diff keeps the nodes' bytes as they are.
    expect(readFileSync(join(runDir, "ledger.json"), "utf8")).not.toContain(TEST_GITHUB_TOKEN);
    expect(readFileSync(join(runDir, "ledger.json"), "utf8")).toContain("build token ***");
    for (const files of [runFiles, ledgerFiles]) {
      for (const [name, content] of files) {
        expect(content.includes(TEST_GITHUB_TOKEN), name).toBe(false);
      }
    }
    expect(ledgerFiles.get("ledger.json")!.toString("utf8")).toContain("build token ***");

    expect(result.commands.some((c) => c.includes("artifact upload skipped"))).toBe(false);
    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toHaveLength(1);
    const output = completion(result)!.output!;
    expect(output.summary).toContain(`patch.diff in artifact evidence-gate-run-${runId}`);
    expect(output.summary).not.toContain(TEST_GITHUB_TOKEN);
    expect(result.summary).toContain("uploaded to this workflow run's artifacts");
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
