/**
 * The clean engine process (src/proc/clean-process.ts), measured on the bundle as the runner runs it
 * (`node dist/index.js`, `node dist/post.js`; build first). The runner's process holds every input as
 * `INPUT_*` (secrets included), `GITHUB_TOKEN` when the workflow sets it, the `ACTIONS_*` service tokens and
 * URLs and the file-command paths; `/proc/<pid>/environ` shows them to any process of the same user.
 *
 * - main step, `mode: verify`: the verify command (PR code) walks its own environment and every ancestor's
 *   `/proc/<pid>/environ` and `cmdline` up to pid 1 — the engine process, the launcher (the runner's
 *   process), this test's worker and above — and finds no secret value anywhere, and no held variable
 *   with a value; the launcher's block still names the held variables, with their values cleared (what is
 *   and is not closed). The run itself used the token (the GitHub server refuses any other).
 * - post step: this test plays a process the main step left behind, reading `/proc/<pid>/environ` of the
 *   post step's processes while they run: the engine never shows the token, and the launcher no longer does
 *   once the engine exists (before that, during Node's start-up, it may: the scrub runs first thing after).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_FLAG, isHeldVariable } from "../../src/proc/clean-process.js";
import {
  ACTION_ENTRY,
  actionTestResources,
  POST_ENTRY,
  runPostStep,
  stepDebug,
  TEST_GITHUB_TOKEN,
} from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const open = actionTestResources();

/** Every secret the step is started with, by where the runner would put it. */
const SECRETS = {
  anthropic: "sk-ant-api03-cleanProcessAnthropicKey-0123456789",
  openai: "sk-proj-cleanProcessOpenaiKey-0123456789",
  workflowToken: "ghs_cleanProcessWorkflowEnvToken0000000",
  runtime: "eyJ0eXAiOiJKV1QiLCJhbGciOi.cleanProcessRuntimeToken",
  idToken: "eyJ0eXAiOiJKV1QiLCJhbGciOi.cleanProcessIdRequestToken",
  npm: "npm_cleanProcessNpmToken000000000000000",
} as const;
const ALL_SECRETS = [TEST_GITHUB_TOKEN, ...Object.values(SECRETS)];

/** A variable in NUL-separated `environ` text: `undefined` when absent. */
function entries(environ: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of environ.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) map.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return map;
}

interface ProcEntry {
  readonly pid: number;
  readonly environ?: string;
  readonly cmdline?: string;
  readonly error?: string;
}

/** The verify command: its own environment and each ancestor's environ and cmdline, written to argv[2]. */
const PROBE = `
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
const chain = [];
let pid = process.pid;
for (;;) {
  const entry = { pid };
  try {
    entry.environ = readFileSync("/proc/" + pid + "/environ", "latin1");
    entry.cmdline = readFileSync("/proc/" + pid + "/cmdline", "latin1");
  } catch (error) {
    entry.error = error.code;
  }
  chain.push(entry);
  if (pid === 1) break;
  const stat = readFileSync("/proc/" + pid + "/stat", "utf8");
  pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  if (!(pid > 0)) break;
}
// Measured, not asserted: can this process read the engine's and the launcher's memory, and does it hold
// the token there? (needles come from a file, never from the environment.)
const needle = Buffer.from(JSON.parse(readFileSync(process.argv[3], "utf8")).token, "utf8");
const memory = {};
for (const entry of chain.slice(1, 4)) {
  const name = (entry.cmdline ?? "").includes("${ENGINE_FLAG}") ? "engine" : (entry.cmdline ?? "").includes("index.js") ? "launcher" : null;
  if (name === null) continue;
  const found = { readable: false, holdsToken: false };
  try {
    const fd = openSync("/proc/" + entry.pid + "/mem", "r");
    for (const line of readFileSync("/proc/" + entry.pid + "/maps", "utf8").split("\\n")) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) r/.exec(line);
      if (m === null || line.includes("[vvar]") || line.includes("[vsyscall]")) continue;
      const start = parseInt(m[1], 16), length = parseInt(m[2], 16) - start;
      if (length > 256 * 1024 * 1024) continue;
      const buffer = Buffer.alloc(length);
      try { readSync(fd, buffer, 0, length, start); found.readable = true; } catch { continue; }
      if (buffer.includes(needle)) { found.holdsToken = true; break; }
    }
    closeSync(fd);
  } catch (error) {
    found.error = error.code;
  }
  memory[name] = found;
}
writeFileSync(process.argv[2], JSON.stringify({ env: process.env, chain, memory }));
`;

describe("main step: the verify command finds no secret in its own or any ancestor's environment", () => {
  it("mode verify: no key, no token, no INPUT_* secret in /proc/<pid>/environ or cmdline of any ancestor; the launcher's block keeps the names with cleared values", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const github = await startGitHubServer({ token: TEST_GITHUB_TOKEN });
    open.github = github;
    const marks = mkdtempSync(join(tmpdir(), "eg-clean-process-"));
    open.dirs.push(marks);
    const probe = join(marks, "probe.mjs");
    const report = join(marks, "report.json");
    const needles = join(marks, "needles.json");
    writeFileSync(probe, PROBE);
    writeFileSync(needles, JSON.stringify({ token: TEST_GITHUB_TOKEN }));

    const result = await open.run({
      workspace: repo.dir,
      inputs: {
        mode: "verify",
        "verify-cmd": `node '${probe}' '${report}' '${needles}'`,
        "anthropic-api-key": SECRETS.anthropic,
        "openai-api-key": SECRETS.openai,
      },
      github,
      env: {
        GITHUB_TOKEN: SECRETS.workflowToken,
        ACTIONS_RUNTIME_TOKEN: SECRETS.runtime,
        ACTIONS_RUNTIME_URL: "https://pipelines.actions.example/runtime/",
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: SECRETS.idToken,
        ACTIONS_ID_TOKEN_REQUEST_URL: "https://pipelines.actions.example/idtoken?api-version=2.0",
        ACTIONS_CACHE_URL: "https://artifactcache.actions.example/",
        NPM_TOKEN: SECRETS.npm,
      },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    // The engine had the token: the GitHub server takes no other, and the check run was written with it.
    expect(github.state.checkRuns).toHaveLength(1);
    github.assertNoViolations();
    expect(existsSync(report), stepDebug(result)).toBe(true);
    const { env, chain, memory } = JSON.parse(readFileSync(report, "utf8")) as {
      env: Record<string, string>;
      chain: ProcEntry[];
      memory: Record<string, { readable: boolean; holdsToken: boolean; error?: string }>;
    };
    // Printed, never asserted (it depends on the machine: root, Yama's ptrace_scope, sudo; SECURITY.md).
    console.log(`measured: the verify command's view of /proc/<pid>/mem: ${JSON.stringify(memory)}`);

    // Its own environment: no held variable, no secret value.
    expect(Object.keys(env).filter(isHeldVariable)).toEqual([]);
    for (const secret of ALL_SECRETS) expect(JSON.stringify(env).includes(secret), secret).toBe(false);

    // No process of the chain that could be read holds a secret.
    for (const p of chain.filter((entry) => entry.error === undefined)) {
      for (const secret of ALL_SECRETS) {
        expect(p.environ!.includes(secret), `/proc/${p.pid}/environ holds ${secret}`).toBe(false);
        expect(p.cmdline!.includes(secret), `/proc/${p.pid}/cmdline holds ${secret}`).toBe(false);
      }
    }
    // The chain: verify → engine (node dist/index.js --evidence-gate-engine) → launcher (node dist/index.js,
    // the runner's process) → this test's worker → … → pid 1.
    const argv = (p: ProcEntry) => (p.cmdline ?? "").split("\0").filter((a) => a !== "");
    const engineAt = chain.findIndex((p) => argv(p).includes(ENGINE_FLAG));
    expect(engineAt).toBeGreaterThan(0);
    expect(argv(chain[engineAt]!).slice(1)).toEqual([ACTION_ENTRY, ENGINE_FLAG]);
    const launcher = chain[engineAt + 1]!;
    expect(argv(launcher).slice(1)).toEqual([ACTION_ENTRY]);
    expect(chain.at(-1)?.pid).toBe(1);
    // Readable up to the launcher at least (above it, this machine's pid 1 is not: EACCES).
    expect(chain.slice(0, engineAt + 2).filter((p) => p.error !== undefined)).toEqual([]);
    // No process of the step (verify, engine, launcher) shows a held variable with a value (above the
    // launcher, this machine's own environment has some, e.g. AWS_CA_BUNDLE).
    const shown = chain
      .slice(0, engineAt + 2)
      .flatMap((p) =>
        [...entries(p.environ!)]
          .filter(([name, value]) => isHeldVariable(name) && value !== "")
          .map(([name]) => `${p.pid} ${name}`),
      );
    expect(shown).toEqual([]);

    // The engine was started without them; the launcher (the runner's process) keeps each name, value cleared.
    const engineEnv = entries(chain[engineAt]!.environ!);
    const launcherEnv = entries(launcher.environ!);
    for (const name of [
      "INPUT_GITHUB-TOKEN",
      "INPUT_ANTHROPIC-API-KEY",
      "INPUT_OPENAI-API-KEY",
      "INPUT_VERIFY-CMD",
      "GITHUB_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
      "ACTIONS_ID_TOKEN_REQUEST_URL",
      "ACTIONS_RUNTIME_URL",
      "GITHUB_OUTPUT",
      "GITHUB_STATE",
      "GITHUB_STEP_SUMMARY",
      "NPM_TOKEN",
    ]) {
      expect(engineEnv.has(name), `engine ${name}`).toBe(false);
      expect(launcherEnv.get(name), `launcher ${name}`).toBe("");
    }
    // What the engine still starts with: the runner's ordinary context.
    expect(engineEnv.get("GITHUB_REPOSITORY")).toBe(launcherEnv.get("GITHUB_REPOSITORY"));
    expect(engineEnv.get("RUNNER_TEMP")).toBe(result.runnerTemp);
  }, 120_000);
});

/** `/proc/<pid>/environ` of each process whose argv runs `entry`, with whether it is the engine. */
function stepProcesses(entry: string): { pid: number; engine: boolean; environ: string }[] {
  const found: { pid: number; engine: boolean; environ: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0");
      if (!argv.includes(entry)) continue;
      found.push({
        pid: Number(name),
        engine: argv.includes(ENGINE_FLAG),
        environ: readFileSync(`/proc/${name}/environ`, "latin1"),
      });
    } catch {
      // gone while we looked
    }
  }
  return found;
}

describe("post step: a process left behind cannot read the token from the post step's environ", () => {
  it("the engine never shows the token; the launcher no longer does once the engine runs; the check run was completed with it", async () => {
    const github = await startGitHubServer({ token: TEST_GITHUB_TOKEN });
    open.github = github;
    const stored = github.state.seedCheckRun({
      name: "evidence-gate",
      headSha: "9f3c1e2d4b5a69788766554433221100ffeeddcc",
      status: "in_progress",
      externalId: "20250311-093000-a1b2c3",
    });
    const seen: { pid: number; engine: boolean; environ: string; engineSeen: boolean }[] = [];
    let engineSeen = false;
    const poll = setInterval(() => {
      for (const p of stepProcesses(POST_ENTRY)) {
        engineSeen ||= p.engine;
        seen.push({ ...p, engineSeen });
      }
    }, 5);
    let result: Awaited<ReturnType<typeof runPostStep>>;
    try {
      result = await runPostStep({
        github,
        state: { "check-run-id": String(stored.id), "run-id": "20250311-093000-a1b2c3" },
      });
    } finally {
      clearInterval(poll);
    }

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(stored).toMatchObject({ status: "completed", conclusion: "failure" });
    github.assertNoViolations();
    // The last look at each of the step's processes: none shows the token.
    const last = new Map(seen.map((p) => [p.pid, p]));
    expect(last.size).toBeGreaterThan(0);
    for (const p of last.values())
      expect(p.environ.includes(TEST_GITHUB_TOKEN), `/proc/${p.pid}/environ holds the token`).toBe(false);
    const engines = seen.filter((p) => p.engine);
    const launchersAfter = seen.filter((p) => !p.engine && p.engineSeen);
    expect(engines.length).toBeGreaterThan(0);
    expect(launchersAfter.length).toBeGreaterThan(0);
    for (const p of [...engines, ...launchersAfter]) {
      expect(p.environ.includes(TEST_GITHUB_TOKEN), `${p.engine ? "engine" : "launcher"} ${p.pid}`).toBe(
        false,
      );
      expect(entries(p.environ).get("INPUT_GITHUB-TOKEN") ?? "").toBe("");
    }
  }, 60_000);
});
