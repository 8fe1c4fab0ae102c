/**
 * `npm run model-server -- SCRIPT.json` (scripts/model-server.mjs): the scripted model server for trying the
 * CLI offline on one's own repository. Started as its own process with a JSON script, it prints the shell
 * settings; the bundled CLI run with exactly those settings, the real `claude`, plans and runs against it
 * and the server logs each request. A script the validator refuses exits 64 naming the problem. SIGTERM or
 * SIGINT to the wrapper alone (not its process group) stops the server: the port is free, the wrapper's
 * temp folder is gone, and no process of the group is left.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../proc/process-probe.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const ROOT = resolve(import.meta.dirname, "../..");
const started: ChildProcess[] = [];
const dirs: string[] = [];
const repos: TempRepo[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch {
      // ESRCH: the group is gone already (a test stopped it).
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/**
 * Starts `node scripts/model-server.mjs FILE` in its own process group (with `env` over this process's);
 * resolves once it printed its settings.
 */
function startServer(
  file: string,
  env: Record<string, string> = {},
): Promise<{ out: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, "scripts/model-server.mjs"), file], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  started.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((done, fail) => {
    const tick = setInterval(() => {
      if (out.includes("--codex-config")) {
        clearInterval(tick);
        done({ out: () => out, child });
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(tick);
      fail(new Error(`model-server exited ${code}: ${out}`));
    });
  });
}

/** The `export NAME='value'` lines it printed, as an environment. */
function exportsOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^ {2}export (\w+)='([^']*)'$/gm)) env[m[1]!] = m[2]!;
  return env;
}

describe("npm run model-server", () => {
  it("prints the settings that point the CLI at it; the bundled CLI with those settings runs a real claude plan and the server logs each request", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const dir = mkdtempSync(join(tmpdir(), "eg-model-server-"));
    dirs.push(dir);
    const file = join(dir, "script.json");
    writeFileSync(
      file,
      JSON.stringify(fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] })),
    );
    const server = await startServer(file);
    const settings = server.out();
    expect(settings).toMatch(/^scripted model server on http:\/\/127\.0\.0\.1:\d+ \(4 conversations from /m);
    const exported = exportsOf(settings);
    expect(Object.keys(exported)).toEqual(
      expect.arrayContaining(["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"]),
    );
    const home = join(dir, "home");
    const cli = spawnSync(
      process.execPath,
      [
        join(ROOT, "dist/cli.js"),
        "auto",
        "--goal",
        `${MARKS.plannerGoal}.`,
        "--verify-cmd",
        "npm test",
        "--repo",
        repo.dir,
        "--claude-path",
        CLAUDE_BIN,
      ],
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...exported },
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(cli.status, cli.stderr + cli.stdout).toBe(0);
    expect(cli.stdout).toContain("CONCLUSION:    success");
    // The server logs a request when it answers it; the CLI may exit before the last line is read.
    await eventually(() => server.out().includes("request 2: review"), 10_000);
    expect(server.out()).toContain("request 1: planner");
    expect(server.out()).toContain("request 2: review");
  });

  it("a script the validator refuses exits 64 naming the problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-model-server-"));
    dirs.push(dir);
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ conversations: [{ name: "x", turns: [] }] }));
    const r = spawnSync(process.execPath, [join(ROOT, "scripts/model-server.mjs"), file], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status).toBe(64);
    expect(r.stderr).toContain(`model-server: ${file}:`);
    expect(r.stderr).toContain("usage: npm run model-server -- SCRIPT.json");
  });
});

/** True when nothing listens on 127.0.0.1:`port` (this process can listen there itself). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => done(true)));
  });
}

/**
 * The live processes of the group `pgid`, as `pid (comm)`, read from /proc (Linux): a zombie has exited
 * and holds nothing, so it is not listed (in this container nobody reaps re-parented orphans).
 */
function liveGroupMembers(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone between the listing and the read
    }
    const close = stat.lastIndexOf(")");
    const [state, , pgrp] = stat.slice(close + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") members.push(stat.slice(0, close + 1));
  }
  return members;
}

describe("stopping npm run model-server", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s to the wrapper alone stops the server: the port is free, the temp folder gone, no process left",
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), "eg-model-server-stop-"));
      dirs.push(dir);
      const tmp = join(dir, "tmp");
      mkdirSync(tmp);
      const file = join(dir, "script.json");
      writeFileSync(file, JSON.stringify(fixSumScript({ repoDir: dir, plannerReplies: [reviewOnlyPlan()] })));
      // TMPDIR: the wrapper's temp folder (the bundled server) is made in a folder this test can watch.
      const server = await startServer(file, { TMPDIR: tmp });
      const port = Number(/on http:\/\/127\.0\.0\.1:(\d+) /.exec(server.out())?.[1]);
      expect(port).toBeGreaterThan(0);
      expect(await portIsFree(port)).toBe(false);
      expect(readdirSync(tmp).filter((name) => name.startsWith("evidence-gate-script-"))).toHaveLength(1);

      const exited = new Promise<number | null>((done) => server.child.once("exit", (code) => done(code)));
      process.kill(server.child.pid!, signal);
      expect(await exited).toBe(0);

      expect(server.out()).toContain("stopped after 0 requests");
      expect(await portIsFree(port)).toBe(true);
      expect(readdirSync(tmp)).toEqual([]);
      await eventually(() => liveGroupMembers(server.child.pid!).length === 0, 10_000);
      expect(liveGroupMembers(server.child.pid!)).toEqual([]);
    },
    60_000,
  );
});
