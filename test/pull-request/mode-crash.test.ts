/**
 * The crash path of `mode: report` and `mode: resume` through each mode's real entry (`runReportMode`,
 * `runResumeMode`, called in-process as the action's `main` calls them; issue 24 item 3): an error thrown
 * AFTER the mode (re)started its check run must complete that check run `failure`, naming the error — never
 * leave it `in_progress`, never green — and reach the action's last-resort handler (which fails the step).
 * A `return promise` without `await` inside the mode's `try` once skipped `completeAfterCrash`; these tests
 * fail if it comes back. `completeAfterCrash` alone is test/pull-request/crash-report.test.ts's.
 *
 * The crash injected in both: the write that completes the check run with the run's verdict fails with a
 * 502 on every attempt (the client's retries do not clear it), so `postVerdict` throws
 * `VerdictNotPostedError`. Against the local GitHub double (every request checked against GitHub's
 * description); the resumed leg's run directory is a real engine run's (a gate-only graph: no model call in
 * either leg), uploaded as the artifact and vouched for by its check run as the action would.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readActionInputs } from "../../src/action/inputs.js";
import { CheckRunClient, CheckRunWriteError } from "../../src/github/check-run.js";
import { CheckRunReporter } from "../../src/github/check-run-reporter.js";
import { createOctokit } from "../../src/github/octokit.js";
import { runStateDigestMarker } from "../../src/github/run-state-digest.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerJson } from "../../src/ledger/render-json.js";
import type { ActionInputs } from "../../src/pull-request/action-inputs.js";
import { VerdictNotPostedError } from "../../src/pull-request/posted-verdict.js";
import { runReportMode } from "../../src/pull-request/report-mode.js";
import { runResumeMode } from "../../src/pull-request/resume-mode.js";
import { actionSecrets } from "../../src/run/credentials.js";
import { startPortHarness } from "../engine/port-harness.js";
import { FAILURE_LEDGER } from "../ledger/fixtures.js";
import { inputEnv } from "../support/action-inputs-env.js";
import {
  DEFAULT_REPOSITORY,
  type GitHubServer,
  startGitHubServer,
  TEST_TIMING,
} from "../support/github-server/index.js";
import { recordingRunner } from "../support/recording-runner.js";
import { WORKFLOW_RUN_ID, workflowRunPayload } from "../support/workflow-run-payload.js";
import { buildZip } from "../support/zip-builder.js";

const TOKEN = "ghs_modeCrashTestToken00000000000000000";
const HEAD = "0123456789abcdef0123456789abcdef01234567";
const CHECK_RUN = "/repos/{owner}/{repo}/check-runs/{check_run_id}";
/** The title `completeAfterCrash` completes a crashed run's check run with. */
const CRASH_TITLE = "evidence-gate: the run ended with an internal error";

let github: GitHubServer;
let dir: string;

beforeEach(async () => {
  github = await startGitHubServer({ token: TOKEN });
  dir = mkdtempSync(join(tmpdir(), "eg-mode-crash-"));
});
afterEach(async () => {
  await github.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The runner's environment for one step: the event (`name`, `payload` at `GITHUB_EVENT_PATH`), the
 * workflow's `inputs` over `action.yml`'s defaults, the API double, fast retries, and `workspace`.
 */
function stepEnv(o: {
  readonly event: string;
  readonly payload: Record<string, unknown>;
  readonly inputs: Record<string, string>;
  readonly workspace: string;
}): Record<string, string> {
  const files = mkdtempSync(join(dir, "step-"));
  const eventPath = join(files, "event.json");
  writeFileSync(eventPath, JSON.stringify(o.payload));
  const summary = join(files, "summary.md");
  writeFileSync(summary, "");
  const temp = join(files, "runner-temp");
  mkdirSync(temp);
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GITHUB_EVENT_NAME: o.event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: DEFAULT_REPOSITORY,
    GITHUB_RUN_ID: "7654321",
    GITHUB_ACTOR: "octo-maintainer",
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: temp,
    EVIDENCE_GATE_BACKOFF_SECOND_MS: "1",
    ...inputEnv(TOKEN, o.inputs),
  };
}

/** The inputs as the action's `main` reads them, and the secrets it masks. */
function readInputs(env: Record<string, string>): { inputs: ActionInputs; secrets: string[] } {
  const parsed = readActionInputs(env);
  if (!parsed.ok) throw new Error(`the test's inputs do not parse: ${parsed.errors.join("; ")}`);
  return { inputs: parsed.inputs, secrets: actionSecrets(parsed.inputs, env) };
}

/**
 * The crash: every attempt (the first and the client's three retries) at completing the check run with the
 * run's verdict gets a 502. `completeAfterCrash`'s own completion (its title) is let through.
 */
function failVerdictCompletion(): void {
  github.failNext({
    method: "PATCH",
    pathPattern: CHECK_RUN,
    status: 502,
    times: 4,
    bodyMatches: (body) => {
      const b = body as { status?: string; output?: { title?: string } };
      return b.status === "completed" && b.output?.title !== CRASH_TITLE;
    },
  });
}

/**
 * What every crash after the check run was (re)started must leave: the error reached the caller (the
 * action's last-resort handler fails the step with it); the one check run is completed `failure` with the
 * crash's title and a summary quoting the error; the verdict's completion was really refused, four times;
 * and no request broke GitHub's description. `thrown`: the error's class (default: the verdict not posted).
 */
async function expectCrashCompleted(
  crashed: Promise<void>,
  thrown: abstract new (...args: never[]) => Error = VerdictNotPostedError,
): Promise<void> {
  const error = await crashed.then(
    () => {
      throw new Error("the mode resolved: the crash did not reach the last-resort handler");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(thrown);
  expect(github.state.checkRuns).toHaveLength(1);
  const [checkRun] = github.state.checkRuns;
  expect(checkRun).toMatchObject({ status: "completed", conclusion: "failure" });
  expect(checkRun!.output.title).toBe(CRASH_TITLE);
  expect(checkRun!.output.summary).toContain((error as Error).message);
  const refused = github.callsTo("PATCH", CHECK_RUN).filter((c) => c.injected);
  expect(refused).toHaveLength(4);
  github.assertNoViolations();
}

/** `mode: report` on the `workflow_run` of a fork's pull request run that ended `conclusion` on {@link HEAD}. */
function reportEnv(conclusion: string): Record<string, string> {
  return stepEnv({
    event: "workflow_run",
    payload: workflowRunPayload({ headSha: HEAD, conclusion }),
    inputs: { mode: "report", "anthropic-api-key": "" },
    workspace: dir,
  });
}

describe("mode report prints the ledger it posts", () => {
  it("through the runner, fenced from workflow commands, the job's token redacted", async () => {
    // A row detail the upstream run wrote holding the job's token (the artifact is the fork's to write).
    const ledger: Ledger = {
      ...FAILURE_LEDGER,
      headSha: HEAD,
      rows: FAILURE_LEDGER.rows.map((row, i) =>
        i === 0 ? { ...row, detail: `token ${TOKEN} ::warning::planted` } : row,
      ),
    };
    github.state.addArtifact({
      name: "evidence-gate-ledger",
      zip: buildZip([{ name: "ledger.json", content: renderLedgerJson(ledger), deflate: true }]),
      headSha: HEAD,
      fromFork: true,
      workflowRunId: WORKFLOW_RUN_ID,
    });
    const env = reportEnv("failure");
    const runner = recordingRunner();
    await runReportMode({ runner, env, ...readInputs(env) });
    const printed = runner.log.join("\n");
    expect(printed).toContain("CONCLUSION:");
    expect(printed).toContain(ledger.runId);
    expect(printed).not.toContain(TOKEN);
    // The fence: no line of the ledger can start a workflow command.
    expect(printed).toMatch(/^::stop-commands::/m);
    expect(github.state.checkRuns[0]).toMatchObject({ headSha: HEAD, conclusion: "failure" });
  });
});

describe("mode report: a crash after the check run was started completes it failure (issue 24 item 3)", () => {
  it("the completion with the ledger's verdict fails 502 on every retry: the check run ends failure quoting the error, never in progress, and the error is rethrown", async () => {
    // A fork's run that failed and uploaded its (failure) ledger: posted without a provenance check.
    const ledger: Ledger = { ...FAILURE_LEDGER, headSha: HEAD };
    github.state.addArtifact({
      name: "evidence-gate-ledger",
      zip: buildZip([{ name: "ledger.json", content: renderLedgerJson(ledger), deflate: true }]),
      headSha: HEAD,
      fromFork: true,
      workflowRunId: WORKFLOW_RUN_ID,
    });
    const env = reportEnv("failure");
    failVerdictCompletion();
    const runner = recordingRunner();

    await expectCrashCompleted(runReportMode({ runner, env, ...readInputs(env) }));

    expect(github.state.checkRuns[0]).toMatchObject({ headSha: HEAD, externalId: ledger.runId });
    // The outputs never claim the verdict reached the check run.
    expect(runner.outputs.conclusion).toBe("failure (not posted)");
    expect(runner.errors).toEqual([]);
  });

  it("a run that uploaded no ledger: completing the refusal's failure check run fails 502 on every retry — the crash completes it, naming the error, and the error is rethrown", async () => {
    const env = reportEnv("cancelled");
    failVerdictCompletion();

    await expectCrashCompleted(
      runReportMode({ runner: recordingRunner(), env, ...readInputs(env) }),
      CheckRunWriteError,
    );

    expect(github.state.checkRuns[0]).toMatchObject({
      headSha: HEAD,
      externalId: `workflow-run-${WORKFLOW_RUN_ID}`,
    });
  });
});

/** The smallest graph a resumed leg can run without a model: one gate, so neither leg calls a model. */
const GATE_ONLY = ["name: sign-off-only", "nodes:", "  - id: sign-off", "    type: gate", ""].join("\n");

/** Every file under `root`, as zip entries named by their path relative to it. */
function zipEntries(root: string, prefix = ""): { name: string; content: Buffer }[] {
  return readdirSync(join(root, prefix)).flatMap((entry) => {
    const rel = prefix === "" ? entry : `${prefix}/${entry}`;
    return statSync(join(root, rel)).isDirectory()
      ? zipEntries(root, rel)
      : [{ name: rel, content: readFileSync(join(root, rel)) }];
  });
}

/** sha256 (hex) of a run directory's file, as the engine's digests name it. */
const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("mode resume: a crash after takeOverCheckRun restarted the check run completes it failure (issue 24 item 3)", () => {
  it("the completion with the resumed leg's verdict fails 502 on every retry: the restarted check run ends failure quoting the error, never in progress, and the error is rethrown", async () => {
    // The first leg, on another runner: a real engine run that pauses at the gate, its run directory
    // uploaded as the artifact and its check run (action_required) carrying the run-state digests.
    const first = await startPortHarness({ plays: {} });
    try {
      const paused = await first.run(GATE_ONLY);
      expect(paused.ledger.conclusion?.outcome).toBe("paused");
      const { runId, runDir } = paused;
      const head = await first.repo.git(["rev-parse", "HEAD"]);
      github.state.addArtifact({
        name: `evidence-gate-run-${runId}`,
        zip: buildZip(zipEntries(runDir)),
        headSha: head,
      });
      const octokit = createOctokit({ token: TOKEN, baseUrl: github.url, timing: TEST_TIMING });
      const firstReporter = new CheckRunReporter({
        client: new CheckRunClient({ octokit, owner: "octo-org", repo: "widgets" }),
        name: "evidence-gate",
        headSha: head,
      });
      const { id } = await firstReporter.start(runId, "starting");
      const digests = {
        state: sha256(join(runDir, "state.json")),
        graph: sha256(join(runDir, "graph.json")),
      };
      await firstReporter.end(
        "action_required",
        "paused at sign-off",
        `Paused.\n\n${runStateDigestMarker(runId, digests)}`,
      );

      // The dispatch: approve the gate, on this checkout.
      const env = stepEnv({
        event: "workflow_dispatch",
        payload: { inputs: { "run-id": runId }, ref: "refs/heads/main" },
        inputs: {
          mode: "resume",
          "resume-run-id": runId,
          "approve-gate": "sign-off",
          "isolate-user": "false",
          "anthropic-api-key": "",
        },
        workspace: first.repo.dir,
      });
      const parsed = readActionInputs(env);
      if (!parsed.ok || parsed.inputs.mode.kind !== "resume")
        throw new Error(`the test's inputs do not parse as resume: ${JSON.stringify(parsed)}`);
      failVerdictCompletion();
      const runner = recordingRunner();
      const callsBefore = github.calls.length;

      await expectCrashCompleted(
        runResumeMode({
          runner,
          env,
          inputs: parsed.inputs,
          mode: parsed.inputs.mode,
          secrets: actionSecrets(parsed.inputs, env),
        }),
      );

      // The same check run, taken over (in progress again) before the crash completed it.
      expect(github.state.checkRuns[0]).toMatchObject({ id, headSha: head, externalId: runId });
      const writes = github.calls
        .slice(callsBefore)
        .filter((c) => c.method === "PATCH" && c.route === CHECK_RUN && !c.injected)
        .map((c) => c.body);
      // Taken over first; completed once, by the crash (the progress updates in between are not completions).
      expect(writes[0]).toMatchObject({ status: "in_progress", external_id: runId });
      expect(writes.filter((w) => (w as { status?: string }).status === "completed")).toEqual([
        expect.objectContaining({
          conclusion: "failure",
          output: expect.objectContaining({ title: CRASH_TITLE }),
        }),
      ]);
      expect(runner.outputs["check-run-id"]).toBe(String(id));
      expect(runner.errors).toEqual([]);
    } finally {
      await first.cleanup();
    }
  });
});

/**
 * Not a crash, but the same first leg and dispatch: the resumed leg compares its verifies' git-ignored files
 * with the first leg's `ignored-baseline.json`, which a node of that leg could rewrite (it runs as the
 * runner's user unless PR code is isolated) to hide its own edit of `node_modules/`. The check run vouches
 * for it as for `state.json` and `graph.json`; a record from before it did not, and the leg then drops it.
 */
describe("mode resume: the first leg's ignored-files baseline is vouched for by its check run", () => {
  async function dispatchResume(o: {
    readonly tamper: (runDir: string) => void;
    readonly marker: (runId: string, runDir: string) => string;
  }): Promise<{ readonly runner: ReturnType<typeof recordingRunner>; readonly runDir: string }> {
    const first = await startPortHarness({ plays: {} });
    try {
      const paused = await first.run(GATE_ONLY);
      expect(paused.ledger.conclusion?.outcome).toBe("paused");
      const { runId, runDir } = paused;
      expect(readdirSync(runDir)).toContain("ignored-baseline.json");
      const marker = o.marker(runId, runDir);
      o.tamper(runDir);
      const head = await first.repo.git(["rev-parse", "HEAD"]);
      github.state.addArtifact({
        name: `evidence-gate-run-${runId}`,
        zip: buildZip(zipEntries(runDir)),
        headSha: head,
      });
      const octokit = createOctokit({ token: TOKEN, baseUrl: github.url, timing: TEST_TIMING });
      const reporter = new CheckRunReporter({
        client: new CheckRunClient({ octokit, owner: "octo-org", repo: "widgets" }),
        name: "evidence-gate",
        headSha: head,
      });
      await reporter.start(runId, "starting");
      await reporter.end("action_required", "paused at sign-off", `Paused.\n\n${marker}`);
      const env = stepEnv({
        event: "workflow_dispatch",
        payload: { inputs: { "run-id": runId }, ref: "refs/heads/main" },
        inputs: {
          mode: "resume",
          "resume-run-id": runId,
          "approve-gate": "sign-off",
          "isolate-user": "false",
          "anthropic-api-key": "",
        },
        workspace: first.repo.dir,
      });
      const { inputs, secrets } = readInputs(env);
      if (inputs.mode.kind !== "resume") throw new Error("the test's inputs do not parse as resume");
      const runner = recordingRunner();
      await runResumeMode({ runner, env, inputs, mode: inputs.mode, secrets });
      return { runner, runDir };
    } finally {
      await first.cleanup();
    }
  }
  const digestsOf = (runDir: string, withIgnored: boolean) => ({
    state: sha256(join(runDir, "state.json")),
    graph: sha256(join(runDir, "graph.json")),
    ...(withIgnored ? { ignored: sha256(join(runDir, "ignored-baseline.json")) } : {}),
  });

  it("a baseline rewritten after the check run recorded it: refused, nothing ran, the file named", async () => {
    const { runner } = await dispatchResume({
      marker: (runId, runDir) => runStateDigestMarker(runId, digestsOf(runDir, true)),
      tamper: (runDir) => writeFileSync(join(runDir, "ignored-baseline.json"), '{"kind":"unknown"}\n'),
    });
    expect(runner.failed.join("\n")).toMatch(
      /does not match what the engine wrote: ignored-baseline\.json has sha256 [0-9a-f]{64}, but the check run records [0-9a-f]{64}/,
    );
    // Refused before the leg: the first leg's check run is not taken over.
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
  });

  it("the same baseline as recorded: the leg runs and completes the check run, vouching for it again", async () => {
    let recorded = "";
    const { runner } = await dispatchResume({
      marker: (runId, runDir) => {
        recorded = sha256(join(runDir, "ignored-baseline.json"));
        return runStateDigestMarker(runId, digestsOf(runDir, true));
      },
      tamper: () => {},
    });
    expect(runner.failed).toEqual([]);
    // A gate-only graph verifies nothing: never green, but completed by the resumed leg, whose own record
    // vouches for the baseline again (for a next leg).
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "neutral" });
    expect(github.state.checkRuns[0]?.output?.summary).toContain(`ignored=${recorded}`);
  });

  it("a record from before the baseline was covered: the leg runs without that baseline, and says so", async () => {
    const { runner } = await dispatchResume({
      marker: (runId, runDir) => runStateDigestMarker(runId, digestsOf(runDir, false)),
      tamper: (runDir) => writeFileSync(join(runDir, "ignored-baseline.json"), '{"kind":"unknown"}\n'),
    });
    expect(runner.failed).toEqual([]);
    expect(runner.log.join("\n")).toContain(
      "does not cover ignored-baseline.json (an earlier version wrote it): the resumed leg does not use that baseline",
    );
  });
});
