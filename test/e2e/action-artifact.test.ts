/**
 * The run's workflow artifacts (SPEC §6, §10, §11): `evidence-gate-run-<run id>` (the run directory with
 * `patch.diff`) and `<check-name>-ledger`, uploaded through `@actions/artifact` from the bundled action to a
 * local stand-in of the runner's artifact service, secrets redacted. Moved to the port tier
 * (test/action-run/artifact.test.ts; issue 24): the upload skipped with a notice where the service is
 * absent (in-process), and the unit tests of `redact`, the artifact names and a refused upload.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
