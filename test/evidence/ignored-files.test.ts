/**
 * The fingerprint of the git-ignored files (ADR 0003, amendment 2026-11-29): what it sees, what it leaves
 * out, how a change is named, and how the verify queue compares and re-baselines it.
 */
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  acceptVerifyChanges,
  compareIgnoredFiles,
  type IgnoredFiles,
  ignoredFilesFingerprint,
} from "../../src/evidence/ignored-files.js";
import { type RunVerifyOptions, runVerify, VerifyQueue } from "../../src/evidence/verify.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({
    commit: true,
    files: {
      ".gitignore": "node_modules/\n*.local.js\ndist/\n",
      "src/app.js": "export const app = 1;\n",
    },
  });
  await repo.write("node_modules/minitest/cli.js", "process.exit(1);\n");
  await repo.write("node_modules/minitest/package.json", '{"name":"minitest"}\n');
  await repo.write("config.local.js", "export default { strict: true };\n");
});
afterEach(async () => {
  await repo.cleanup();
});

const fingerprint = (dir = repo.dir, extra: { exclude?: string[]; maxEntries?: number } = {}) =>
  ignoredFilesFingerprint(dir, { baseEnv: hermeticGitEnv, ...extra });

function assertFingerprint(f: IgnoredFiles): asserts f is Extract<IgnoredFiles, { kind: "fingerprint" }> {
  if (f.kind !== "fingerprint") throw new Error(`expected a fingerprint, got unknown: ${f.reason}`);
}

describe("ignoredFilesFingerprint", () => {
  it("unchanged ignored files give the same fingerprint; it lists exactly the ignored files", async () => {
    const a = await fingerprint();
    const b = await fingerprint();
    assertFingerprint(a);
    assertFingerprint(b);
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.files).toBe(3);
    expect(a.entries.paths).toEqual([
      "config.local.js",
      "node_modules/minitest/cli.js",
      "node_modules/minitest/package.json",
    ]);
    expect(compareIgnoredFiles(a, b)).toEqual({ kind: "unchanged" });
  });

  it("a same-size edit of an ignored file is a change, named with its path", async () => {
    const before = await fingerprint();
    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const after = await fingerprint();
    expect(compareIgnoredFiles(before, after)).toEqual({
      kind: "changed",
      total: 1,
      examples: [{ path: "node_modules/minitest/cli.js", change: "modified" }],
    });
  });

  it("adding and removing ignored files are changes, named with their paths", async () => {
    const before = await fingerprint();
    await repo.write("node_modules/minitest/extra.js", "module.exports = 1;\n");
    await unlink(join(repo.dir, "config.local.js"));
    const after = await fingerprint();
    expect(compareIgnoredFiles(before, after)).toEqual({
      kind: "changed",
      total: 2,
      examples: [
        { path: "config.local.js", change: "removed" },
        { path: "node_modules/minitest/extra.js", change: "added" },
      ],
    });
  });

  it("an edit that restores the old mtime still shows (ctime)", async () => {
    const { stat, utimes } = await import("node:fs/promises");
    const file = join(repo.dir, "config.local.js");
    const old = await stat(file);
    const before = await fingerprint();
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(file, "export default { strict: !!0 };\n".slice(0, old.size));
    await utimes(file, old.atime, old.mtime);
    const after = await fingerprint();
    expect(compareIgnoredFiles(before, after).kind).toBe("changed");
  });

  it("leaves out only the folders in `exclude` (the run's own directory); the rest of .evidence-gate/ counts", async () => {
    const runDir = join(repo.dir, ".evidence-gate", "runs", "r1");
    await repo.write(".evidence-gate/runs/.gitignore", "*\n");
    await repo.write(".evidence-gate/runs/r1/state.json", "{}\n");
    const before = await fingerprint(repo.dir, { exclude: [runDir] });
    assertFingerprint(before);
    expect(before.entries.paths.some((p) => p.startsWith(".evidence-gate/runs/r1/"))).toBe(false);

    // The engine writing its own run directory changes nothing.
    await repo.write(".evidence-gate/runs/r1/state.json", '{"changed":true}\n');
    await repo.write(".evidence-gate/runs/r1/events.jsonl", "{}\n");
    expect(compareIgnoredFiles(before, await fingerprint(repo.dir, { exclude: [runDir] }))).toEqual({
      kind: "unchanged",
    });

    // A node planting a file the build imports elsewhere under the runs folder is a change.
    await repo.write(".evidence-gate/runs/h.js", "export const h = (a, b) => a + b;\n");
    const after = await fingerprint(repo.dir, { exclude: [runDir] });
    const compared = compareIgnoredFiles(before, after);
    expect(compared.kind).toBe("changed");
    expect(JSON.stringify(compared)).toContain(".evidence-gate/runs/h.js");
  });

  it("tracked and untracked-but-not-ignored files are not in it (the evidence tree has them)", async () => {
    const before = await fingerprint();
    await repo.write("src/app.js", "export const app = 2;\n");
    await repo.write("notes.txt", "untracked, not ignored\n");
    expect(compareIgnoredFiles(before, await fingerprint())).toEqual({ kind: "unchanged" });
  });

  it("an ignored file force-added to the repository's index (in no evidence tree) is in it, and its edit shows", async () => {
    // The listing reads no index: `git add -f` in the repository's index, which the pull request can
    // write, hid such a file from this record while the evidence tree (taken from HEAD's entries) left it
    // out too.
    await repo.git(["add", "-f", "config.local.js"]);
    const before = await fingerprint();
    assertFingerprint(before);
    expect(before.entries.paths).toContain("config.local.js");
    await repo.write("config.local.js", "export default { strict: false };\n");
    const compared = compareIgnoredFiles(before, await fingerprint());
    expect(compared.kind).toBe("changed");
    expect(JSON.stringify(compared)).toContain("config.local.js");
  });

  it("a repository inside an ignored folder (listed by git as the folder alone): an edit deep inside shows", async () => {
    await repo.git(["init", "--quiet", join(repo.dir, "node_modules")]);
    const before = await fingerprint();
    assertFingerprint(before);
    expect(before.entries.paths).toContain("node_modules/minitest/cli.js");
    // Same size, so only the file's own stat can tell.
    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const compared = compareIgnoredFiles(before, await fingerprint());
    expect(compared.kind).toBe("changed");
    expect(JSON.stringify(compared)).toContain("node_modules/minitest/cli.js");
  });

  it("covers the whole work tree from a sub-folder, with root-relative paths", async () => {
    const sub = join(repo.dir, "src");
    const before = await fingerprint(sub);
    assertFingerprint(before);
    expect(before.entries.paths).toContain("node_modules/minitest/cli.js");
    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const after = await fingerprint(sub);
    expect(compareIgnoredFiles(before, after)).toMatchObject({
      kind: "changed",
      examples: [{ path: "node_modules/minitest/cli.js" }],
    });
  });

  it("keeps odd path bytes: a name with a newline and non-ASCII characters is listed and its edit seen", async () => {
    const name = "node_modules/odd\nname ü.js";
    await repo.write(name, "a\n");
    const before = await fingerprint();
    await repo.write(name, "b\n");
    const after = await fingerprint();
    expect(compareIgnoredFiles(before, after)).toMatchObject({
      kind: "changed",
      total: 1,
      examples: [{ path: name, change: "modified" }],
    });
  });

  it("is `unknown` over the bound, and a baseline within the bound against a listing over it is `changed`", async () => {
    const within = await fingerprint(repo.dir, { maxEntries: 3 });
    assertFingerprint(within);
    await repo.write("node_modules/minitest/more.js", "1\n");
    const over = await fingerprint(repo.dir, { maxEntries: 3 });
    expect(over).toMatchObject({ kind: "unknown", overBound: true });
    if (over.kind === "unknown") expect(over.reason).toContain("more than 3 git-ignored files");
    expect(compareIgnoredFiles(within, over)).toMatchObject({ kind: "changed", total: null, examples: [] });
    expect(compareIgnoredFiles(over, over).kind).toBe("unknown");
  });

  it("is `unknown` outside a git work tree, and never rejects", async () => {
    const plain = await mkdtemp(join(tmpdir(), "eg-ignored-plain-"));
    try {
      const f = await fingerprint(plain);
      expect(f.kind).toBe("unknown");
      if (f.kind === "unknown") expect(f.reason).toContain("not inside a git working tree");
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it("an empty ignored set is a fingerprint of 0 files", async () => {
    const clean = await makeTempRepo({ commit: true, files: { "a.txt": "a\n" } });
    try {
      const f = await ignoredFilesFingerprint(clean.dir, { baseEnv: hermeticGitEnv });
      expect(f).toMatchObject({ kind: "fingerprint", files: 0 });
    } finally {
      await clean.cleanup();
    }
  });
});

describe("acceptVerifyChanges: the baseline after a verify", () => {
  it("accepts what the verify wrote and keeps what was already changed before it ran", async () => {
    const baseline = await fingerprint();
    await repo.write("config.local.js", "export default { strict: false };\n"); // a node's change
    const before = await fingerprint();
    await repo.write("dist/bundle.js", "built\n"); // the verify's output
    const after = await fingerprint();

    const next = acceptVerifyChanges(baseline, before, after);
    expect(compareIgnoredFiles(next, after)).toEqual({
      kind: "changed",
      total: 1,
      examples: [{ path: "config.local.js", change: "modified" }],
    });
    // Unknown inputs leave the baseline as it was.
    const unknown: IgnoredFiles = { kind: "unknown", reason: "x", overBound: false };
    expect(acceptVerifyChanges(baseline, unknown, after)).toBe(baseline);
  });

  it("a path the verify removed is removed from the baseline", async () => {
    await repo.write("dist/old.js", "old\n");
    const baseline = await fingerprint();
    const before = baseline;
    await rm(join(repo.dir, "dist"), { recursive: true });
    const after = await fingerprint();
    expect(compareIgnoredFiles(acceptVerifyChanges(baseline, before, after), after)).toEqual({
      kind: "unchanged",
    });
  });
});

function options(overrides: Partial<RunVerifyOptions>): RunVerifyOptions {
  return verifyOptions(repo.dir, overrides);
}

describe("runVerify and VerifyQueue record the ignored files", () => {
  it("runVerify with a baseline records `unchanged`, or `changed` with the paths; without one, nothing", async () => {
    const baseline = await fingerprint();
    const clean = await runVerify(options({ ignoredFiles: { baseline } }));
    expect(clean.ignoredFiles).toBe("unchanged");
    expect(clean.ignoredFilesChanges).toBeUndefined();

    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const dirty = await runVerify(options({ ignoredFiles: { baseline } }));
    expect(dirty.outcome).toBe("passed");
    expect(dirty.ignoredFiles).toBe("changed");
    expect(dirty.ignoredFilesChanges).toEqual({
      total: 1,
      examples: [{ path: "node_modules/minitest/cli.js", change: "modified" }],
    });

    const unmeasured = await runVerify(options({}));
    expect(unmeasured.ignoredFiles).toBeUndefined();
  });

  it("runVerify with an unknown baseline records `unknown` with the reason", async () => {
    const evidence = await runVerify(
      options({ ignoredFiles: { baseline: { kind: "unknown", reason: "too many", overBound: true } } }),
    );
    expect(evidence).toMatchObject({ ignoredFiles: "unknown", ignoredFilesReason: "too many" });
  });

  const settings = (baseline: IgnoredFiles) => ({
    baseEnv: hermeticGitEnv,
    passThrough: [],
    knownSecrets: [],
    ignoredFiles: { baseline },
  });
  // Writes a fresh ignored build output each time it runs (different content and mtime).
  const building = "mkdir -p dist && date +%s%N > dist/stamp.txt";

  it("a second sink's verify does not count the first verify's own ignored outputs (re-baselined after it)", async () => {
    const queue = new VerifyQueue(settings(await fingerprint()));
    const first = await queue.run({
      nodeId: "a",
      command: building,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    const second = await queue.run({
      nodeId: "b",
      command: `${building} # b`,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    expect(first.ignoredFiles).toBe("unchanged");
    expect(second.ignoredFiles).toBe("unchanged");
  });

  it("a node's change before a verify still counts for every later sink", async () => {
    const queue = new VerifyQueue(settings(await fingerprint()));
    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const first = await queue.run({
      nodeId: "a",
      command: building,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    const second = await queue.run({
      nodeId: "b",
      command: `${building} # b`,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    for (const evidence of [first, second]) {
      expect(evidence.ignoredFiles).toBe("changed");
      expect(evidence.ignoredFilesChanges?.examples).toEqual([
        { path: "node_modules/minitest/cli.js", change: "modified" },
      ]);
    }
  });

  it("when a node's work overlaps a verify the baseline stays: the next sink sees the build outputs (fails safe)", async () => {
    const queue = new VerifyQueue(settings(await fingerprint()));
    const working = queue.nodeWorking();
    const first = await queue.run({
      nodeId: "a",
      command: building,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    working();
    const second = await queue.run({
      nodeId: "b",
      command: `${building} # b`,
      cwd: repo.dir,
      timeoutMs: 60_000,
      expectExit: 0,
    });
    expect(first.ignoredFiles).toBe("unchanged");
    expect(second.ignoredFiles).toBe("changed");
    expect(second.ignoredFilesChanges?.examples).toEqual([{ path: "dist/stamp.txt", change: "added" }]);
  });

  it("a result is reused for the same tree and command only while the ignored files are unchanged", async () => {
    const queue = new VerifyQueue(settings(await fingerprint()));
    const request = { command: "true", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 };
    const a = await queue.run({ nodeId: "a", ...request });
    const b = await queue.run({ nodeId: "b", ...request });
    expect(a.reusedFrom).toBeUndefined();
    expect(b).toMatchObject({ reusedFrom: "a", ignoredFiles: "unchanged" });

    await repo.write("config.local.js", "export default { strict: false };\n");
    const c = await queue.run({ nodeId: "c", ...request });
    expect(c.reusedFrom).toBeUndefined();
    expect(c.ignoredFiles).toBe("changed");
    // Still changed against the baseline: still not reused.
    const d = await queue.run({ nodeId: "d", ...request });
    expect(d.reusedFrom).toBeUndefined();
  });
});

describe("the sample scenario of the bug", () => {
  it("a passing run of a runner edited in node_modules is recorded as changed, on the commit's own tree", async () => {
    await repo.write(
      "package.json",
      `${JSON.stringify({ name: "s", private: true, scripts: { test: "node node_modules/minitest/cli.js" } })}\n`,
    );
    await commitAll(repo, "package.json");
    const baseline = await fingerprint();
    const failing = await runVerify(options({ command: "npm test --silent", ignoredFiles: { baseline } }));
    expect(failing.outcome).toBe("failed");
    await mkdir(join(repo.dir, "node_modules", "minitest"), { recursive: true });
    await repo.write("node_modules/minitest/cli.js", "process.exit(0);\n");
    const passing = await runVerify(options({ command: "npm test --silent", ignoredFiles: { baseline } }));
    expect(passing.outcome).toBe("passed");
    expect(passing.evidenceTree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(passing.ignoredFiles).toBe("changed");
  });
});
