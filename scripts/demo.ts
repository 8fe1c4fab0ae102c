/**
 * The embedded default (README command 1): a sample Node repository whose test fails until sum() is
 * fixed, the scripted model server on loopback driving the real `claude` CLI, and `evidence-gate auto
 * --commit --verify-cmd "npm test"` run against it. Prints the plan, the node lines and the ledger;
 * writes demo-out/check-run.json (the check-run requests, in order) and demo-out/summary.md.
 * No API key, no network.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeEnvFor, startModelServer } from "../test/support/model-server/index.js";
import { fixSumScript, MARKS } from "../test/support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../test/support/temp-repo.js";

const root = resolve(process.argv[2] ?? ".");
const outDir = join(root, "demo-out");
mkdirSync(outDir, { recursive: true });
const repo = await makeSampleNodeRepo();
const home = mkdtempSync(join(tmpdir(), "evidence-gate-demo-home-"));
const server = await startModelServer({ script: fixSumScript({ repoDir: repo.dir }) });
try {
  process.stdout.write(`demo repository: ${repo.dir} (npm test fails until sum() is fixed)\n`);
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
  process.stdout.write(
    `\nthe model server answered ${server.requests.length} requests; outputs in ${outDir}\n`,
  );
  process.exitCode = status;
} finally {
  await server.close();
  await repo.cleanup();
  rmSync(home, { recursive: true, force: true });
}
