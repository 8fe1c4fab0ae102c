import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { type RunVerifyOptions, runVerify, VerifyQueue } from "../../src/evidence/verify.js";
import { VerifyCache } from "../../src/evidence/verify-cache.js";
import { VERIFY_TAIL_BYTES } from "../../src/evidence/verify-output.js";
import {
  FIXED_SUM,
  hermeticGitEnv,
  makeSampleNodeRepo,
  SAMPLE_TEST_NAME,
  type TempRepo,
} from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

let repo: TempRepo;
let scratch: string;
beforeEach(async () => {
  repo = await makeSampleNodeRepo();
  scratch = await mkdtemp(join(tmpdir(), "evidence-gate-verify-"));
});
afterEach(async () => {
  await repo.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

function options(overrides: Partial<RunVerifyOptions>): RunVerifyOptions {
  return verifyOptions(repo.dir, overrides);
}

/** True while `pid` is a live (not zombie) process. */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const state = readFileSync(stat, "utf8").split(") ")[1]?.[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

describe("runVerify judges the exit code on a recorded evidence tree", () => {
  it("a passing build is `passed` with exit 0 and the tree it ran on", async () => {
    await repo.write("src/sum.js", FIXED_SUM);
    const treeBefore = await evidenceTree(repo.dir, { baseEnv: hermeticGitEnv });

    const evidence = await runVerify(options({ command: "node --test" }));

    expect(evidence).toMatchObject({ outcome: "passed", exitCode: 0, command: "node --test", cwd: repo.dir });
    expect(evidence.evidenceTree).toBe(treeBefore);
    expect(evidence.evidenceTree).not.toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(evidence.outputTail).toContain(SAMPLE_TEST_NAME);
  });

  it("a failing `node --test` is `failed` with exit 1 and a tail naming the failing test", async () => {
    const evidence = await runVerify(options({ command: "node --test" }));
    expect(evidence.outcome).toBe("failed");
    expect(evidence.exitCode).toBe(1);
    expect(evidence.outputTail).toContain(SAMPLE_TEST_NAME);
    expect(evidence.evidenceTree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("the evidence tree is taken before the command runs: files it writes are not in it", async () => {
    const evidence = await runVerify(options({ command: "echo generated > generated.txt" }));
    expect(existsSync(join(repo.dir, "generated.txt"))).toBe(true);
    expect(evidence.evidenceTree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("passes on the expected exit code, which need not be 0", async () => {
    expect((await runVerify(options({ command: "exit 3", expectExit: 3 }))).outcome).toBe("passed");
    const zero = await runVerify(options({ command: "exit 0", expectExit: 3 }));
    expect(zero).toMatchObject({ outcome: "failed", exitCode: 0, expectExit: 3 });
  });

  it("a timeout kills the whole process group (a background `sleep 100` too) and is `timed_out`", async () => {
    const pidFile = join(scratch, "bg.pid");
    const evidence = await runVerify(
      options({ command: `sleep 100 & echo $! > '${pidFile}'; sleep 100`, timeoutMs: 1000 }),
    );
    expect(evidence).toMatchObject({ outcome: "timed_out", exitCode: null });
    expect(evidence.outputTail).toContain("timed out");
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    expect(pid).toBeGreaterThan(0);
    expect(alive(process.pid)).toBe(true);
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it("a verify that could not start is `spawn_failed`, never a pass", async () => {
    const evidence = await runVerify(options({ command: "true", cwd: join(scratch, "missing") }));
    expect(evidence).toMatchObject({ outcome: "spawn_failed", exitCode: null, evidenceTree: null });
    expect(evidence.outputTail).toContain("could not start");
  });

  it("a cancelled verify fails, never passes, and says it was cancelled", async () => {
    const controller = new AbortController();
    const pending = runVerify(options({ command: "sleep 100", signal: controller.signal }));
    setTimeout(() => controller.abort(), 300);
    const evidence = await pending;
    expect(evidence).toMatchObject({ outcome: "failed", exitCode: null });
    expect(evidence.outputTail).toContain("cancelled");
  });

  it("outside a git work tree the command still runs, with no evidence tree and the reason in the tail", async () => {
    const evidence = await runVerify(options({ command: "echo ran", cwd: scratch }));
    expect(evidence).toMatchObject({ outcome: "passed", evidenceTree: null });
    expect(evidence.outputTail).toContain("no evidence tree");
    expect(evidence.outputTail).toContain("ran");
  });
});

describe("the verify output tail", () => {
  it("keeps at most 4 KiB, ends with the last output, and starts on a whole UTF-8 character", async () => {
    const command = `node -e 'for (let i = 0; i < 5000; i++) console.log("line " + i + " é✓"); console.log("THE END")'`;
    const evidence = await runVerify(options({ command }));
    expect(Buffer.byteLength(evidence.outputTail, "utf8")).toBeLessThanOrEqual(VERIFY_TAIL_BYTES);
    expect(evidence.outputTail.trimEnd().endsWith("THE END")).toBe(true);
    expect(evidence.outputTail).not.toContain("\uFFFD");
    expect(evidence.outputTail).toContain("earlier bytes not kept");
  });

  it("interleaves stdout and stderr in the order they arrived", async () => {
    const evidence = await runVerify(
      options({
        command: "echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three; sleep 0.3; echo four >&2",
      }),
    );
    expect(evidence.outputTail.split("\n").filter(Boolean)).toEqual(["one", "two", "three", "four"]);
  });

  it("echoes output through a fence when asked, so workflow commands in it change nothing", async () => {
    const written: string[] = [];
    await runVerify(
      options({
        command: "echo '::add-mask::x'",
        echo: { write: (t) => written.push(t), fenceWorkflowCommands: true },
      }),
    );
    const log = written.join("");
    expect(log).toMatch(/^::stop-commands::\S+\n::add-mask::x\n::\S+::\n$/);
  });
});

describe("the verify environment (SPEC §9)", () => {
  const secret = "s3cr3t-value-for-test";
  const baseEnv = {
    PATH: process.env.PATH,
    HOME: tmpdir(),
    GIT_CONFIG_GLOBAL: "/dev/null",
    KEEP_ME: "kept",
    GITHUB_TOKEN: "ghs_token",
    GH_TOKEN: "gh_token",
    ACTIONS_RUNTIME_TOKEN: "runtime",
    INPUT_GOAL: "make it pass",
    "INPUT_ANTHROPIC-API-KEY": "sk-ant-input",
    ANTHROPIC_API_KEY: "sk-ant-env",
    CLAUDE_CODE_OAUTH_TOKEN: "oauth",
    OPENAI_API_KEY: "sk-openai",
    GITHUB_OUTPUT: "/tmp/output",
    COPY_OF_SECRET: secret,
    NPM_TOKEN: secret,
  };

  it("has no GitHub token, no INPUT_*, no model credential, no file-command path, no secret copy", async () => {
    const evidence = await runVerify(options({ command: "env", env: baseEnv, knownSecrets: [secret] }));
    expect(evidence.outcome).toBe("passed");
    const names = evidence.outputTail.split("\n").map((line) => line.split("=")[0]);
    expect(names).toContain("KEEP_ME");
    expect(names).toContain("PATH");
    for (const dropped of [
      "GITHUB_TOKEN",
      "GH_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "INPUT_GOAL",
      "INPUT_ANTHROPIC-API-KEY",
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "OPENAI_API_KEY",
      "GITHUB_OUTPUT",
      "COPY_OF_SECRET",
      "NPM_TOKEN",
    ]) {
      expect(names, dropped).not.toContain(dropped);
    }
    expect(evidence.outputTail).not.toContain(secret);
  });

  it("passes through what verify-env names (a registry token), but never an INPUT_*", async () => {
    const evidence = await runVerify(
      options({
        command: "env",
        // A registry token of its own: a passed-through variable whose value is a known secret is still dropped.
        env: { ...baseEnv, NPM_TOKEN: "npm_registry_token" },
        knownSecrets: [secret],
        passThrough: ["NPM_TOKEN", "INPUT_GOAL"],
      }),
    );
    const names = evidence.outputTail.split("\n").map((line) => line.split("=")[0]);
    expect(names).toContain("NPM_TOKEN");
    expect(names).not.toContain("INPUT_GOAL");
    expect(names).not.toContain("COPY_OF_SECRET");
  });
});

describe("VerifyCache: the run's evidence is not re-bought per sink", () => {
  it("a second sink with the same tree and command reuses the first result and says from which sink", async () => {
    const counter = join(scratch, "runs");
    const cache = new VerifyCache();
    const command = `echo ran >> '${counter}'; node --test`;

    const first = await runVerify(options({ command, reuse: { cache, nodeId: "build" } }));
    const second = await runVerify(options({ command, reuse: { cache, nodeId: "docs" } }));

    expect(first.outcome).toBe("failed");
    expect(first.reusedFrom).toBeUndefined();
    expect(second).toEqual({ ...first, reusedFrom: "build" });
    expect((await readFile(counter, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("a changed tree or a different command runs again", async () => {
    const cache = new VerifyCache();
    const first = await runVerify(options({ command: "node --test", reuse: { cache, nodeId: "a" } }));
    const otherCommand = await runVerify(options({ command: "node --test ", reuse: { cache, nodeId: "b" } }));
    await repo.write("src/sum.js", FIXED_SUM);
    const otherTree = await runVerify(options({ command: "node --test", reuse: { cache, nodeId: "c" } }));

    expect(first.outcome).toBe("failed");
    expect(otherCommand.reusedFrom).toBeUndefined();
    expect(otherTree).toMatchObject({ outcome: "passed" });
    expect(otherTree.reusedFrom).toBeUndefined();
    expect(otherTree.evidenceTree).not.toBe(first.evidenceTree);
  });

  it("a verify that could not finish is not reused: the next sink tries again", async () => {
    const cache = new VerifyCache();
    const first = await runVerify(
      options({ command: "sleep 100", timeoutMs: 300, reuse: { cache, nodeId: "a" } }),
    );
    const second = await runVerify(
      options({ command: "sleep 100", timeoutMs: 300, reuse: { cache, nodeId: "b" } }),
    );
    expect(first.outcome).toBe("timed_out");
    expect(second.outcome).toBe("timed_out");
    expect(second.reusedFrom).toBeUndefined();
  });

  it("outside a git work tree nothing is reused (there is no tree to compare)", async () => {
    const cache = new VerifyCache();
    await runVerify(options({ command: "true", cwd: scratch, reuse: { cache, nodeId: "a" } }));
    const second = await runVerify(options({ command: "true", cwd: scratch, reuse: { cache, nodeId: "b" } }));
    expect(second.reusedFrom).toBeUndefined();
  });
});

describe("VerifyQueue: attached verifies run one at a time, run-wide", () => {
  const settings = () => ({ baseEnv: hermeticGitEnv, passThrough: [], knownSecrets: [] });

  it("never runs two tasks at once, keeps queue order, and a failing task does not block the next", async () => {
    const queue = new VerifyQueue(settings());
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const task =
      (name: string, fail = false) =>
      async (): Promise<string> => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 20));
        order.push(name);
        active--;
        if (fail) throw new Error(`${name} failed`);
        return name;
      };
    const results = await Promise.allSettled([
      queue.exclusive(task("a")),
      queue.exclusive(task("b", true)),
      queue.exclusive(task("c")),
    ]);
    expect(maxActive).toBe(1);
    expect(order).toEqual(["a", "b", "c"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("serialises real verify commands: the second starts after the first finished", async () => {
    const queue = new VerifyQueue(settings());
    const log = join(scratch, "log");
    const step = (name: string) =>
      queue.run({
        nodeId: name,
        command: `echo start-${name} >> '${log}'; sleep 0.3; echo end-${name} >> '${log}'; echo ${name}`,
        cwd: repo.dir,
        timeoutMs: 60_000,
        expectExit: 0,
      });
    const [a, b] = await Promise.all([step("a"), step("b")]);
    expect((await readFile(log, "utf8")).trim().split("\n")).toEqual([
      "start-a",
      "end-a",
      "start-b",
      "end-b",
    ]);
    expect([a.outcome, b.outcome]).toEqual(["passed", "passed"]);
  });

  it("reuses the first sink's result for a second sink on the same tree and command", async () => {
    const queue = new VerifyQueue(settings());
    const counter = join(scratch, "runs");
    const request = { command: `echo ran >> '${counter}'`, cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 };
    const [first, second] = await Promise.all([
      queue.run({ ...request, nodeId: "build" }),
      queue.run({ ...request, nodeId: "docs" }),
    ]);
    expect(first.reusedFrom).toBeUndefined();
    expect(second.reusedFrom).toBe("build");
    expect((await readFile(counter, "utf8")).trim().split("\n")).toHaveLength(1);
  });
});
