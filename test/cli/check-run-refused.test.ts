/**
 * `--repository` with a token GitHub refuses to create the check run with (a new user's trial, closing note
 * of the sixth session): like every other setup problem it exits 64, naming `checks: write` and the fix —
 * not 1, a failed run's code. `verify` (a fresh run) is test/cli/verify-command.test.ts; this is `resume`,
 * whose check run is created once the engine accepted the resume, before any node of the leg runs.
 * In-process against the OpenAPI-validating GitHub double; no model call is scripted (any would fail the test).
 */
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCliResume } from "../../src/cli/resume-command.js";
import { runCliRun } from "../../src/cli/run-command.js";
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

describe("resume --repository: GitHub refuses to create the check run", () => {
  it("a 403: exit 64 naming checks: write, the leg stopped before its node ran", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    await repo.write("gated.yaml", GATED);
    await commitAll(repo, "add the gated graph");
    const scripted = scriptedCallsByLabel({});
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
    const paused = await runCliRun(
      ["gated.yaml", "--repo", repo.dir, "--claude-path", process.execPath],
      first.io,
    );
    expect(paused, first.out.stderr + first.out.stdout).toBe(2);
    const runId = /^run (\S+) \(/m.exec(first.out.stdout)?.[1];
    if (runId === undefined) throw new Error(`no run id printed: ${first.out.stdout}`);

    const github = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => github.close());
    github.failNext({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status: 403 });
    const second = io({ GITHUB_TOKEN: "ghs_resumetoken1234", GITHUB_API_URL: github.url });
    const code = await runCliResume(
      [
        runId,
        "--approve",
        "sign-off",
        "--by",
        "octocat",
        "--repo",
        repo.dir,
        "--claude-path",
        process.execPath,
        "--repository",
        "octo-org/widgets",
      ],
      second.io,
    );
    expect(code, second.out.stderr + second.out.stdout).toBe(64);
    expect(second.out.stderr).toContain("the check run could not be created, so the leg was stopped");
    expect(second.out.stderr).toContain("`checks: write`");
    expect(second.out.stderr).not.toContain("ghs_resumetoken1234");
    expect(scripted.madeFor("after")).toHaveLength(0);
    expect(github.state.checkRuns).toEqual([]);
    github.assertNoViolations();
  });
});
