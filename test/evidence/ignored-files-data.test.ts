/**
 * The ignored-files baseline saved between legs (`ignored-baseline.json`): a fingerprint survives a JSON
 * round trip exactly (a resumed leg compares against the same baseline), and anything malformed reads back
 * as `unknown` — never as a made-up baseline that could make changed files look unchanged.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  compareIgnoredFiles,
  ignoredFilesFingerprint,
  ignoredFilesFromData,
  ignoredFilesToData,
} from "../../src/evidence/ignored-files.js";
import { hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({
    commit: true,
    files: { ".gitignore": "node_modules/\n", "src/app.js": "export const app = 1;\n" },
  });
  await repo.write("node_modules/a/index.js", "module.exports = 1;\n");
  await repo.write("node_modules/b/index.js", "module.exports = 2;\n");
});
afterEach(async () => {
  await repo.cleanup();
});

describe("ignored-files baseline data", () => {
  it("a fingerprint survives JSON and still names what changed afterwards", async () => {
    const before = await ignoredFilesFingerprint(repo.dir, { baseEnv: hermeticGitEnv });
    expect(before.kind).toBe("fingerprint");
    const restored = ignoredFilesFromData(JSON.parse(JSON.stringify(ignoredFilesToData(before))));
    expect(restored).toEqual(before);
    expect(compareIgnoredFiles(restored, before)).toEqual({ kind: "unchanged" });
    await repo.write("node_modules/a/index.js", "module.exports = 'changed, longer';\n");
    const after = await ignoredFilesFingerprint(repo.dir, { baseEnv: hermeticGitEnv });
    const comparison = compareIgnoredFiles(restored, after);
    expect(comparison.kind).toBe("changed");
    expect(comparison.kind === "changed" ? comparison.examples.map((e) => e.path) : []).toEqual([
      "node_modules/a/index.js",
    ]);
  });

  it("an unknown fingerprint round-trips with its reason", () => {
    const unknown = { kind: "unknown", reason: "git failed", overBound: true } as const;
    expect(ignoredFilesFromData(JSON.parse(JSON.stringify(ignoredFilesToData(unknown))))).toEqual(unknown);
  });

  it.each([
    ["null", null],
    ["a string", "fingerprint"],
    ["stats of the wrong length", { kind: "fingerprint", hash: "x", files: 1, paths: ["a"], stats: [1, 2] }],
    ["a non-string path", { kind: "fingerprint", hash: "x", files: 1, paths: [1], stats: [1, 2, 3, 4, 5] }],
    ["no hash", { kind: "fingerprint", files: 0, paths: [], stats: [] }],
  ])("malformed data (%s) reads back as unknown, never as a baseline", (_what, data) => {
    const read = ignoredFilesFromData(data);
    expect(read.kind).toBe("unknown");
    expect(read.kind === "unknown" ? read.reason : "").toMatch(/could not be read/);
  });
});

describe("other runs' directories", () => {
  it("a run directory under the runs folder is left out; any other file there still counts", async () => {
    const runs = join(repo.dir, ".evidence-gate", "runs");
    await repo.write(".evidence-gate/runs/.gitignore", "*\n");
    const options = { baseEnv: hermeticGitEnv, excludeRunDirectoriesUnder: runs };
    const before = await ignoredFilesFingerprint(repo.dir, options);
    await repo.write(".evidence-gate/runs/20250101-120000-abcdef/events.jsonl", "{}\n");
    expect(compareIgnoredFiles(before, await ignoredFilesFingerprint(repo.dir, options))).toEqual({
      kind: "unchanged",
    });
    await repo.write(".evidence-gate/runs/evil.js", "module.exports = 1;\n");
    await repo.write(".evidence-gate/runs/not-a-run-id/x.js", "module.exports = 2;\n");
    const after = await ignoredFilesFingerprint(repo.dir, options);
    const comparison = compareIgnoredFiles(before, after);
    expect(comparison.kind === "changed" ? comparison.examples.map((e) => e.path).sort() : []).toEqual([
      ".evidence-gate/runs/evil.js",
      ".evidence-gate/runs/not-a-run-id/x.js",
    ]);
    // Without the option the run directory counts like any ignored file.
    const plain = await ignoredFilesFingerprint(repo.dir, { baseEnv: hermeticGitEnv });
    expect(plain.kind === "fingerprint" ? plain.files : 0).toBe(
      (after.kind === "fingerprint" ? after.files : 0) + 1,
    );
  });
});
