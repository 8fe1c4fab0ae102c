/**
 * The embedded default (README command 1): a sample Node repository whose test fails until sum() is
 * fixed, the scripted model server on loopback driving the real `claude` CLI, and `evidence-gate auto
 * --commit --verify-cmd "npm test"` run against it. Prints the plan, the node lines and the ledger;
 * writes demo-out/check-run.json (the check-run requests, in order), demo-out/summary.md,
 * demo-out/patch.diff (what the nodes changed: the starting commit against the commit --commit made) and
 * a copy of the sample repository after the run, demo-out/sample-repo. No API key, no network.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeEnvFor, startModelServer } from "../test/support/model-server/index.js";
import { fixSumScript, MARKS } from "../test/support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../test/support/temp-repo.js";

const root = resolve(process.argv[2] ?? ".");
// The outputs' folder: demo-out under the repository root, or the second argument (the tests use a temp one).
const outDir = resolve(process.argv[3] ?? join(root, "demo-out"));
// A path that exists and is not a folder would fail mkdir with a raw EEXIST stack: say what to give instead.
const existing = statSync(outDir, { throwIfNoEntry: false });
if (existing !== undefined && !existing.isDirectory()) {
  process.stderr.write(
    `npm run demo: the output folder ${outDir} exists and is not a folder: give the path of a folder (new or existing), e.g. npm run demo -- ./demo-out, or nothing for demo-out\n`,
  );
  process.exit(64);
}
mkdirSync(outDir, { recursive: true });
const repo = await makeSampleNodeRepo();
const start = await repo.git(["rev-parse", "HEAD"]);
const home = mkdtempSync(join(tmpdir(), "evidence-gate-demo-home-"));
const server = await startModelServer({ script: fixSumScript({ repoDir: repo.dir }) });
try {
  process.stdout.write(
    `demo repository: ${repo.dir} (a temp folder, copied to ${join(outDir, "sample-repo")} at the end; npm test fails until sum() is fixed)\n`,
  );
  process.stdout.write(`scripted model server: ${server.url}\n\n`);
  // Async spawn: the scripted model server lives in this process and must keep answering.
  const child = spawn(
    process.execPath,
    [
      join(root, "dist", "cli.js"),
      "auto",
      "--goal",
      `${MARKS.plannerGoal}.`,
      "--verify-cmd",
      "npm test",
      "--commit",
      "--repo",
      repo.dir,
      "--claude-path",
      join(root, "node_modules", ".bin", "claude"),
      "--check-run-out",
      join(outDir, "check-run.json"),
      "--summary-out",
      join(outDir, "summary.md"),
      // The run directory (state.json, events.jsonl, ledger.json, node outputs) outlives the temp repo.
      "--runs-dir",
      join(outDir, "runs"),
    ],
    {
      stdio: "inherit",
      env: {
        PATH: process.env.PATH ?? "",
        LANG: process.env.LANG ?? "C.UTF-8",
        GIT_CONFIG_NOSYSTEM: "1",
        ...claudeEnvFor(server.url, home),
      },
    },
  );
  const status = await new Promise<number>((done) => child.on("close", (code) => done(code ?? 1)));
  // What the nodes changed, kept for a reviewer: the sample repository is a temp folder removed below.
  const patch = await repo.git(["diff", start, "HEAD"]);
  writeFileSync(join(outDir, "patch.diff"), patch === "" ? "" : `${patch}\n`);
  const kept = join(outDir, "sample-repo");
  rmSync(kept, { recursive: true, force: true });
  cpSync(repo.dir, kept, { recursive: true });
  process.stdout.write(
    `\nthe nodes' changes: ${join(outDir, "patch.diff")}; the sample repository after the run: ${kept} (the temp folder named above is removed: a \`git show\` printed above works there, as \`git -C ${kept} show …\`)\n`,
  );
  process.stdout.write(
    `the model server answered ${server.requests.length} requests; outputs in ${outDir}\n`,
  );
  process.exitCode = status;
} finally {
  await server.close();
  await repo.cleanup();
  rmSync(home, { recursive: true, force: true });
}
