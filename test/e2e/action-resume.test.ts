/**
 * `mode: resume` end to end (SPEC §4, §11): a `mode: run` job pauses at a gate and uploads its run directory
 * to the (stand-in) artifact service; a `workflow_dispatch` job on another checkout path finds that artifact
 * through the local GitHub server, downloads it through the redirect, extracts it safely, records the
 * dispatching user's approval and runs the rest — on the same check run.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRunState } from "../../src/engine/run-state.js";
import {
  type ActionRun,
  actionTestResources,
  checkRunWrites,
  completion,
  type RunActionOptions,
  startArtifactService,
  stepDebug,
  TEST_GITHUB_TOKEN,
} from "../support/action-harness.js";
import { type GitHubServer, startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { GATED_GRAPH, GRAPH_PATH, handGraphScript } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo, makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { buildZip } from "../support/zip-builder.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN_ID = "20250101-120000-abcdef";
const ARTIFACTS = "/repos/{owner}/{repo}/actions/artifacts";

const open = actionTestResources();
const { run } = open;

/** Every file under `dir`, as paths relative to it with `/` separators. */
function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(join(dir, prefix)).flatMap((entry) => {
    const rel = prefix === "" ? entry : `${prefix}/${entry}`;
    return statSync(join(dir, rel)).isDirectory() ? listFiles(dir, rel) : [rel];
  });
}

const debugOf = (result: ActionRun): string => stepDebug(result, 5000);

function fixedRepo(): Promise<TempRepo> {
  return makeFixedSampleRepo("the pull request").then(open.keep);
}

/**
 * The pull request's `mode: run` of the gated graph, paused at sign-off with its run directory uploaded
 * to the artifact service: the servers, the repository and its HEAD, and the paused run.
 */
async function pausedAtSignOff() {
  const repo = await fixedRepo();
  open.github = await startGitHubServer();
  open.model = await startModelServer({ script: handGraphScript() });
  open.service = await startArtifactService();
  const { github, model, service } = open;
  github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: GATED_GRAPH });
  const head = await repo.git(["rev-parse", "HEAD"]);
  const paused = await run({
    workspace: repo.dir,
    inputs: { graph: GRAPH_PATH, inputs: "file=src/sum.js" },
    github,
    model,
    env: service.env,
  });
  expect(paused.outputs.outcome, debugOf(paused)).toBe("paused");
  return { repo, github, model, service, head, paused, runId: paused.outputs["run-id"]! };
}

/** A dispatch of `mode: resume` (no model needed unless given). */
function dispatch(
  workspace: string,
  github: GitHubServer,
  inputs: Record<string, string>,
  extra: Partial<RunActionOptions> = {},
): Promise<ActionRun> {
  return run({
    workspace,
    github,
    event: { name: "workflow_dispatch", inputs: { "run-id": inputs["resume-run-id"] ?? "" } },
    inputs: { mode: "resume", ...inputs },
    ...extra,
  });
}

describe("action mode resume: a paused run continues from its artifact (SPEC §4, §11)", () => {
  it("approving the gate from a workflow_dispatch on another checkout runs the rest on the same check run: PASS (approved) by the dispatching user, the sink verified, success; a wrong gate first changes nothing", async () => {
    // 1. The pull request's run pauses at sign-off and uploads its run directory.
    const { repo, github, model, service, head, paused, runId } = await pausedAtSignOff();
    expect(paused.exitCode, debugOf(paused)).toBe(0);
    const uploaded = service.artifacts.find((a) => a.name === `evidence-gate-run-${runId}`);
    expect(uploaded).toBeDefined();
    // GitHub lists what the workflow run uploaded (the PR head is the workflow run's head commit).
    github.state.addArtifact({ name: uploaded!.name, zip: uploaded!.zip, headSha: head });
    const checkRun = github.state.checkRuns[0]!;
    expect(checkRun).toMatchObject({ conclusion: "action_required", externalId: runId });

    // The resume job runs on another runner: the same commit, checked out at another path.
    const other = open.keep(await makeTempRepo({ noGit: true }));
    const checkout = join(other.dir, "checkout");
    await repo.git(["clone", "--quiet", repo.dir, checkout]);

    // 2. A dispatch naming the wrong gate is refused by the engine: the check run is left as it was.
    const wrong = await dispatch(
      checkout,
      github,
      { "resume-run-id": runId, "reject-gate": "review" },
      { model },
    );
    expect(wrong.exitCode, debugOf(wrong)).toBe(1);
    expect(wrong.outputs.outcome).toBe("usage-error");
    expect(wrong.modelRequests).toHaveLength(0);
    expect(checkRunWrites(wrong)).toEqual([]);
    expect(github.state.checkRuns).toEqual([checkRun]);
    expect(checkRun).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(wrong.summary).toContain('waiting at gate "sign-off", not "review"');

    // 3. The approval.
    const approved = await dispatch(
      checkout,
      github,
      { "resume-run-id": runId, "approve-gate": "sign-off" },
      { model, env: { ...service.env, GITHUB_ACTOR: "octo-maintainer" } },
    );
    expect(approved.exitCode, debugOf(approved)).toBe(0);
    expect(approved.outputs).toMatchObject({ outcome: "passed", conclusion: "success", "run-id": runId });
    // Only the work after the gate ran.
    expect(approved.modelRequests.map((r) => r.conversation)).toEqual(["finish"]);
    // The artifact was found by name and downloaded through the redirect, without the token.
    expect(approved.calls.find((c) => c.route === ARTIFACTS)?.query.name).toBe(`evidence-gate-run-${runId}`);
    expect(github.blobRequests.at(-1)).toMatchObject({ status: 200, authorization: undefined });
    // The same check run, taken over (in_progress, this run id) and completed success.
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({
      id: checkRun.id,
      headSha: head,
      status: "completed",
      conclusion: "success",
      externalId: runId,
    });
    const writes = checkRunWrites(approved);
    expect(writes[0]).toMatchObject({ method: "PATCH", body: { status: "in_progress", external_id: runId } });
    expect(writes.at(-1)!.body.conclusion).toBe("success");
    expect(approved.outputs["check-run-id"]).toBe(String(checkRun.id));
    const summary = completion(approved)!.output!.summary!;
    expect(summary).toContain("PASS (approved)");
    expect(summary).toContain("octo-maintainer");
    expect(summary).toContain("PASS (verified)");
    // The state now names this checkout, and the run directory was uploaded again for a later leg.
    const state = readRunState(join(approved.runnerTemp, "evidence-gate", "runs", runId));
    expect(state.repo_dir).toBe(checkout);
    expect(state.gates["sign-off"]).toMatchObject({
      status: "approved",
      by: "octo-maintainer",
      head_sha: head,
    });
    expect(service.artifacts.filter((a) => a.name === `evidence-gate-run-${runId}`)).toHaveLength(2);
    github.assertNoViolations();
  });

  it("a run directory changed after the engine wrote it (a node widening its own tool policy in state.json) is refused against the digests on the check run: nothing runs, the check run is untouched", async () => {
    const { repo, github, model, service, head, paused, runId } = await pausedAtSignOff();
    const summary = github.state.checkRuns[0]!.output?.summary ?? "";
    expect(summary).toMatch(
      new RegExp(
        `<!-- evidence-gate-run-state run=${runId} state=[0-9a-f]{64} graph=[0-9a-f]{64} ignored=[0-9a-f]{64} -->`,
      ),
    );
    // The run directory as uploaded, with state.json edited: every node may now run any Bash command.
    const runDir = join(paused.runnerTemp, "evidence-gate", "runs", runId);
    const files = listFiles(runDir);
    const tampered = files.map((file) => {
      const content = readFileSync(join(runDir, file));
      if (file !== "state.json") return { name: file, content };
      const state = JSON.parse(content.toString("utf8"));
      for (const id of Object.keys(state.tool_policies)) state.tool_policies[id].allowedTools = ["Bash"];
      return { name: file, content: `${JSON.stringify(state, null, 2)}\n` };
    });
    github.state.addArtifact({ name: `evidence-gate-run-${runId}`, zip: buildZip(tampered), headSha: head });
    const before = structuredClone(github.state.checkRuns);

    const refused = await dispatch(
      repo.dir,
      github,
      { "resume-run-id": runId, "approve-gate": "sign-off" },
      { model, env: { ...service.env, GITHUB_ACTOR: "octo-maintainer" } },
    );
    expect(refused.exitCode, debugOf(refused)).toBe(1);
    expect(refused.modelRequests).toHaveLength(0);
    expect(checkRunWrites(refused)).toEqual([]);
    expect(github.state.checkRuns).toEqual(before);
    expect(refused.summary).toContain("state.json has sha256");
    expect(refused.summary).toContain("it was changed after the engine wrote it");
    github.assertNoViolations();
  });

  it("mode resume on a pull_request event is refused before any API call: a gate is decided by a dispatch", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const result = await run({
      workspace: repo.dir,
      github: open.github,
      inputs: { mode: "resume", "resume-run-id": RUN_ID, "approve-gate": "sign-off" },
    });
    expect(result.exitCode).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(result.calls).toEqual([]);
    expect(result.commands.find((c) => c.startsWith("::error::"))).toContain(
      "mode resume runs on workflow_dispatch",
    );
  });

  it("no usable artifact (none, expired, or a fork's) fails the step saying so, and touches no check run", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const head = await repo.git(["rev-parse", "HEAD"]);
    const zip = buildZip([{ name: "state.json", content: "{}" }]);
    const name = `evidence-gate-run-${RUN_ID}`;
    const fork = open.github.state.addArtifact({ name, zip, headSha: head, fromFork: true });
    open.github.state.addArtifact({ name, zip, headSha: head, expired: true });

    const result = await dispatch(repo.dir, open.github, { "resume-run-id": RUN_ID, "retry-failed": "true" });

    expect(result.exitCode).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(checkRunWrites(result)).toEqual([]);
    expect(open.github.blobRequests).toEqual([]);
    expect(result.summary).toContain(`No usable artifact ${name}`);
    expect(result.summary).toContain(`artifact ${fork.id} was uploaded by a workflow run of a fork`);
    expect(result.summary).toContain("has expired");
    open.github.assertNoViolations();
  });

  it("an artifact whose zip holds a ../ entry is refused: nothing is extracted, nothing runs, no check run is touched", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const head = await repo.git(["rev-parse", "HEAD"]);
    open.github.state.addArtifact({
      name: `evidence-gate-run-${RUN_ID}`,
      zip: buildZip([
        { name: "state.json", content: "{}" },
        { name: "../../escaped.txt", content: "owned" },
      ]),
      headSha: head,
    });

    const result = await dispatch(repo.dir, open.github, { "resume-run-id": RUN_ID, "retry-failed": "true" });

    expect(result.exitCode).toBe(1);
    expect(result.outputs.outcome).toBe("failed");
    expect(checkRunWrites(result)).toEqual([]);
    expect(result.summary).toContain(`Artifact evidence-gate-run-${RUN_ID}`);
    expect(result.summary).toContain("was refused");
    const runs = join(result.runnerTemp, "evidence-gate", "runs");
    expect(existsSync(join(runs, RUN_ID))).toBe(false);
    expect(readdirSync(runs)).toEqual([]);
    expect(existsSync(join(result.runnerTemp, "evidence-gate", "escaped.txt"))).toBe(false);
    // The token never went to the storage URL.
    expect(open.github.blobRequests.every((b) => b.authorization === undefined)).toBe(true);
    expect(JSON.stringify(open.github.blobRequests)).not.toContain(TEST_GITHUB_TOKEN);
    open.github.assertNoViolations();
  });
});
