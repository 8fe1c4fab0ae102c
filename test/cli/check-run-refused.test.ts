/**
 * `--repository` with a token GitHub refuses to create the check run with (a new user's trial, closing note
 * of the sixth session): like every other setup problem it exits 64, naming `checks: write` and the fix —
 * not 1, a failed run's code. `verify` (a fresh run) is test/cli/verify-command.test.ts; this is `resume`,
 * whose check run is created once the engine accepted the resume and before it records the leg: a refused
 * resume changes nothing (new user's trial: it used to spend the gate decision and cancel the run).
 * In-process against the OpenAPI-validating GitHub double; the one model call is the working resume's node.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCliResume } from "../../src/cli/resume-command.js";
import { runCliRun } from "../../src/cli/run-command.js";
import { type Plays, replied } from "../engine/port-harness.js";
import { scriptedCallsByLabel } from "../engine/scripted-calls.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { commitAll, hermeticGitEnv, makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/** A gate first: the run pauses before any model call. */
const GATED = [
  "name: gated",
  'version: "1"',
  "nodes:",
  "  - id: sign-off",
  "    type: gate",
  "  - id: after",
  "    depends_on: [sign-off]",
  "    prompt: Look at the project.",
  "    allowed_tools: [Read]",
  "",
].join("\n");

/** One node that fails its first execution (the model CLI exits 1) and passes when retried. */
const ONE_NODE = [
  "name: one-node",
  'version: "1"',
  "nodes:",
  "  - id: after",
  "    prompt: Look at the project.",
  "    allowed_tools: [Read]",
  "",
].join("\n");

/**
 * A repository holding `graph` (as `graph.yaml`), its `run` stopped with `ranCode`, and `resume` with a
 * token against the GitHub double; the run directory's `state.json` and `events.jsonl` as the run left them.
 */
async function stoppedRun(graph: string, plays: Plays, ranCode: number) {
  const repo = await makeFixedSampleRepo();
  repos.push(repo);
  await repo.write("graph.yaml", graph);
  await commitAll(repo, "add the graph");
  const scripted = scriptedCallsByLabel(plays);
  const io = (env: Record<string, string | undefined> = {}) => {
    const out = { stdout: "", stderr: "" };
    return {
      out,
      io: {
        cwd: repo.dir,
        env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: "sk-ant-api03-resume-test", ...env },
        out: { write: (t: string) => (out.stdout += t) },
        err: { write: (t: string) => (out.stderr += t) },
        modelCalls: scripted.calls,
      },
    };
  };
  const first = io();
  const ran = await runCliRun(
    ["graph.yaml", "--repo", repo.dir, "--claude-path", process.execPath],
    first.io,
  );
  expect(ran, first.out.stderr + first.out.stdout).toBe(ranCode);
  const runId = /^run (\S+) \(/m.exec(first.out.stdout)?.[1];
  if (runId === undefined) throw new Error(`no run id printed: ${first.out.stdout}`);
  const runDir = join(repo.dir, ".evidence-gate", "runs", runId);
  const files = () => ({
    state: readFileSync(join(runDir, "state.json"), "utf8"),
    events: readFileSync(join(runDir, "events.jsonl"), "utf8"),
  });

  const github = await startGitHubServer({ repository: "octo-org/widgets" });
  onTestFinished(() => github.close());
  const resume = async (decision: readonly string[]) => {
    const r = io({ GITHUB_TOKEN: "ghs_resumetoken1234", GITHUB_API_URL: github.url });
    const args = ["--repo", repo.dir, "--claude-path", process.execPath, "--repository", "octo-org/widgets"];
    const code = await runCliResume([runId, ...decision, ...args], r.io);
    return { code, ...r.out };
  };
  /** `resume` with the check-run create refused (403): exit 64, nothing changed, no check run. */
  const refusedResume = async (decision: readonly string[], asItWas: string) => {
    const before = files();
    github.failNext({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status: 403 });
    const refused = await resume(decision);
    expect(refused.code, refused.stderr + refused.stdout).toBe(64);
    // The run is as it was: no decision, no leg, no superseded row, no lock left behind (a later leg runs).
    expect(files()).toEqual(before);
    expect(refused.stderr).toContain("`checks: write`");
    expect(refused.stderr).toContain(
      `Nothing was run and nothing was recorded: run ${runId} is as it was (${asItWas}`,
    );
    expect(refused.stderr).not.toContain("interrupted");
    // Nothing says the leg started: no "resume run …: running …" line.
    expect(refused.stdout).toBe("");
    expect(refused.stderr).not.toContain("ghs_resumetoken1234");
    expect(github.state.checkRuns).toEqual([]);
  };
  return { scripted, github, resume, refusedResume };
}

describe("resume --repository: GitHub refuses to create the check run", () => {
  it("a 403: exit 64 naming checks: write, nothing run or recorded — the run still waits at its gate (for a rejection too); a later resume with a working token approves and runs it, no check run left in progress", async () => {
    const { scripted, github, resume, refusedResume } = await stoppedRun(
      GATED,
      { after: [replied("claude", "Looked at the project.")] },
      2,
    );
    await refusedResume(["--approve", "sign-off", "--by", "octocat"], 'still waiting at gate "sign-off"');
    await refusedResume(["--reject", "sign-off", "--by", "mallory"], 'still waiting at gate "sign-off"');
    expect(scripted.madeFor("after")).toHaveLength(0);

    // The token works now: the same decision is still there to make, and the leg runs.
    const approved = await resume(["--approve", "sign-off", "--by", "octocat"]);
    expect([0, 4], approved.stderr + approved.stdout).toContain(approved.code);
    expect(approved.stdout).toContain("approved by octocat");
    expect(approved.stdout).not.toContain("mallory");
    expect(scripted.madeFor("after")).toHaveLength(1);
    expect(github.state.checkRuns.map((r) => r.status)).toEqual(["completed"]);
    github.assertNoViolations();
  });

  it("--retry-failed, a 403: exit 64, the failed run stays failed and unsuperseded; with a working token the retry runs and passes", async () => {
    const { scripted, github, resume, refusedResume } = await stoppedRun(
      ONE_NODE,
      {
        after: [
          replied("claude", "Could not look.", { exitCode: 1 }),
          replied("claude", "Looked at the project."),
        ],
      },
      1,
    );
    await refusedResume(["--retry-failed"], "run --retry-failed again");
    expect(scripted.madeFor("after")).toHaveLength(1);

    const retried = await resume(["--retry-failed"]);
    expect([0, 4], retried.stderr + retried.stdout).toContain(retried.code);
    expect(scripted.madeFor("after")).toHaveLength(2);
    expect(github.state.checkRuns.map((r) => r.status)).toEqual(["completed"]);
    github.assertNoViolations();
  });
});
