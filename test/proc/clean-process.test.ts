/**
 * The clean engine process (src/proc/clean-process.ts) and the scrub of a process's own initial environment
 * (src/proc/initial-environ.ts). The rules are tested as functions; the processes are tested by running
 * test/proc/fixtures/clean-probe.ts, bundled with esbuild, as `node probe.mjs` — the launcher, the engine it
 * re-executes, and a grandchild reading both from `/proc`. The action's own bundle is measured end to end in
 * test/e2e/action-clean-process.test.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENGINE_FLAG,
  isHeldVariable,
  isLibraryVariable,
  splitEnvironment,
} from "../../src/proc/clean-process.js";
import { scrubInitialEnvironment } from "../../src/proc/initial-environ.js";
import { eventually, processIsGone } from "./process-probe.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/clean-probe.ts", import.meta.url));
let dir = "";
let probe = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "eg-clean-probe-"));
  probe = join(dir, "probe.mjs");
  await build({
    entryPoints: [FIXTURE],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: probe,
    logLevel: "warning",
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ProbeRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lines: Record<string, unknown>[];
  readonly stderr: string;
}

/** Runs the probe with `env` (over PATH); `onLine` sees each JSON line as it arrives. */
function runProbe(
  env: Record<string, string>,
  onLine: (line: Record<string, unknown>, child: ChildProcess) => void = () => {},
): Promise<ProbeRun> {
  const child = spawn(process.execPath, [probe], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let pending = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const part of parts) {
      const line = JSON.parse(part) as Record<string, unknown>;
      lines.push(line);
      onLine(line, child);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, lines, stderr });
    });
  });
}

describe("which variables the engine process is started without", () => {
  it("holds inputs, tokens, the runner's service variables, file-command paths, model settings and secret-like names", () => {
    for (const name of [
      "INPUT_ANTHROPIC-API-KEY",
      "INPUT_GITHUB-TOKEN",
      "INPUT_VERIFY-CMD",
      "GITHUB_TOKEN",
      "GH_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_RUNTIME_URL",
      "ACTIONS_RESULTS_URL",
      "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
      "ACTIONS_ID_TOKEN_REQUEST_URL",
      "ACTIONS_CACHE_URL",
      "GITHUB_ENV",
      "GITHUB_OUTPUT",
      "GITHUB_PATH",
      "GITHUB_STATE",
      "GITHUB_STEP_SUMMARY",
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "OPENAI_API_KEY",
      "NPM_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "DOCKER_PASSWORD",
    ])
      expect(isHeldVariable(name), name).toBe(true);
  });

  it("keeps the runner's ordinary context, saved state and injection settings (not secrets)", () => {
    for (const name of [
      "PATH",
      "HOME",
      "RUNNER_TEMP",
      "RUNNER_DEBUG",
      "GITHUB_REPOSITORY",
      "GITHUB_EVENT_PATH",
      "GITHUB_WORKSPACE",
      "GITHUB_API_URL",
      "STATE_check-run-id",
      "NODE_OPTIONS",
      "SSH_AUTH_SOCK",
    ])
      expect(isHeldVariable(name), name).toBe(false);
  });

  it("restores into process.env only what @actions/core and @actions/artifact read there", () => {
    for (const name of ["GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH"])
      expect(isLibraryVariable(name), name).toBe(true);
    for (const name of [
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_RESULTS_URL",
      "ACTIONS_RUNTIME_URL",
      "ACTIONS_ARTIFACT_UPLOAD_CONCURRENCY",
    ])
      expect(isLibraryVariable(name), name).toBe(true);
    for (const name of ["INPUT_GITHUB-TOKEN", "GITHUB_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "NPM_TOKEN"])
      expect(isLibraryVariable(name), name).toBe(false);
  });

  it("splitEnvironment partitions by that rule and drops undefined values", () => {
    expect(
      splitEnvironment({ PATH: "/bin", "INPUT_GITHUB-TOKEN": "t", GITHUB_OUTPUT: "/o", GONE: undefined }),
    ).toEqual({ clean: { PATH: "/bin" }, held: { "INPUT_GITHUB-TOKEN": "t", GITHUB_OUTPUT: "/o" } });
  });
});

describe("scrubInitialEnvironment", () => {
  it("clears the chosen values from /proc/<pid>/environ as another process reads it; process.env then holds empty strings; other variables stay", async () => {
    const run = await runProbe({
      PROBE_MODE: "scrub",
      PROBE_SECRET_A: "probe-secret-aaaaaaaaaaaaaaaa",
      PROBE_SECRET_B: "probe-secret-b",
      PROBE_EMPTY: "",
      PROBE_PLAIN: "plain",
    });
    expect(run.code, run.stderr).toBe(0);
    const [out] = run.lines as [
      {
        result: unknown;
        processEnv: Record<string, string>;
        ownEnvironHoldsSecret: boolean;
        view: Record<string, unknown>;
      },
    ];
    expect(out.result).toEqual({ kind: "scrubbed", names: ["PROBE_SECRET_A", "PROBE_SECRET_B"] });
    expect(out.ownEnvironHoldsSecret).toBe(false);
    const seen = Object.values(out.view).find(
      (v) => typeof v === "object" && v !== null && "secret" in v,
    ) as {
      secret: boolean;
      names: string[];
    };
    expect(seen.secret).toBe(false);
    expect(seen.names).toEqual(expect.arrayContaining(["PROBE_SECRET_A", "PROBE_SECRET_B", "PROBE_PLAIN"]));
    expect(out.processEnv).toEqual({
      PROBE_MODE: "scrub",
      PROBE_SECRET_A: "",
      PROBE_SECRET_B: "",
      PROBE_EMPTY: "",
      PROBE_PLAIN: "plain",
    });
  });

  it("is unsupported off Linux, and changes nothing", () => {
    expect(scrubInitialEnvironment(() => true, "darwin")).toEqual({
      kind: "unsupported",
      platform: "darwin",
    });
  });
});

describe("the launcher and the engine process", () => {
  it("the engine gets held values in its env object only (library variables also in process.env); neither its nor the launcher's /proc environ shows them; fd 3 is closed", async () => {
    const run = await runProbe({
      PROBE_MODE: "view",
      PROBE_PLAIN: "plain",
      "INPUT_API-KEY": "probe-secret-input",
      GITHUB_TOKEN: "probe-secret-token",
      GITHUB_OUTPUT: "/tmp/probe-output",
      ACTIONS_RUNTIME_TOKEN: "probe-secret-runtime",
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: "probe-secret-idtoken",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const out = run.lines[0] as {
      envObject: Record<string, boolean>;
      processEnv: Record<string, boolean>;
      ownFds: Record<string, string>;
      enginePid: number;
      launcherPid: number;
      view: Record<string, { secret: boolean; names: string[] } | string> & { fds: Record<string, string> };
    };
    expect(out.envObject).toEqual({ input: true, token: true, output: true, plain: true });
    expect(out.processEnv).toEqual({
      input: false,
      token: false,
      output: true,
      runtimeToken: true,
      idToken: false,
      flagStays: true,
    });
    // The handover socket (fd 3) is closed once read: no socket above stdio among the engine's fds, nor
    // among its grandchild's (stdout and stderr are this test's socket pairs).
    const sockets = (fds: Record<string, string>) =>
      Object.entries(fds).filter(([fd, target]) => Number(fd) > 2 && target.startsWith("socket:"));
    expect(sockets(out.ownFds)).toEqual([]);
    expect(sockets(out.view.fds)).toEqual([]);
    const views = Object.entries(out.view).filter(([key]) => key !== "fds");
    expect(views).toHaveLength(2);
    for (const [pid, view] of views) {
      expect(typeof view, `/proc/${pid}/environ unreadable: ${String(view)}`).toBe("object");
      // Neither a held value nor the one the engine set after it started (setenv leaves the block as it was).
      expect((view as { secret: boolean }).secret, pid).toBe(false);
    }
    const engineView = out.view[String(out.enginePid)] as { names: string[] } | undefined;
    const launcherView = out.view[String(out.launcherPid)] as { names: string[] } | undefined;
    expect(engineView!.names).not.toContain("INPUT_API-KEY");
    expect(engineView!.names).not.toContain("GITHUB_OUTPUT");
    expect(engineView!.names).toContain("PROBE_PLAIN");
    // The launcher keeps the names, values cleared.
    expect(launcherView!.names).toEqual(
      expect.arrayContaining(["INPUT_API-KEY", "GITHUB_TOKEN", "GITHUB_OUTPUT"]),
    );
  });

  it("the launcher exits with the engine's exit code", async () => {
    const run = await runProbe({ PROBE_MODE: "exit", PROBE_EXIT: "7" });
    expect(run).toMatchObject({ code: 7, signal: null });
  });

  it("an engine killed by a signal makes the launcher exit 128 + its number", async () => {
    const run = await runProbe({ PROBE_MODE: "self-kill" });
    expect(run).toMatchObject({ code: 137, signal: null });
  });

  it("SIGTERM to the launcher reaches the engine once, whose handler decides the exit", async () => {
    const run = await runProbe({ PROBE_MODE: "signal" }, (line, child) => {
      if ("ready" in line) child.kill("SIGTERM");
    });
    expect(run.lines.filter((l) => "got" in l)).toEqual([{ got: "SIGTERM" }]);
    expect(run).toMatchObject({ code: 3, signal: null });
  });

  it("a launcher killed with SIGKILL takes the engine with it (the engine watches its parent)", async () => {
    let engine = 0;
    const run = await runProbe({ PROBE_MODE: "orphan" }, (line, child) => {
      if ("engine" in line) {
        engine = Number(line.engine);
        child.kill("SIGKILL");
      }
    });
    expect(run.signal).toBe("SIGKILL");
    expect(engine).toBeGreaterThan(0);
    expect(await eventually(() => processIsGone(engine), 5_000)).toBe(true);
  });

  it(`${ENGINE_FLAG} without the launcher's pipe is refused with a message saying so`, async () => {
    const child = spawn(process.execPath, [probe, ENGINE_FLAG], {
      env: { PATH: process.env.PATH ?? "", PROBE_MODE: "view" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      "started as the engine process (--evidence-gate-engine) without the launcher's handover on fd 3",
    );
  });
});
