/**
 * Smoke test of the shipped CLI through README command 1 (`npm run demo`: `node dist/cli.js auto …` against
 * the real `claude` CLI, the scripted model server and the sample repository), and that a reader closing
 * stdout and stderr early (`| head -1`) does not kill the run before it writes its ledger.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, test } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { CLAUDE_BIN, DEFAULT_GOAL, DIST_CLI, startCliHarness } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM } from "../support/temp-repo.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GIT_ENV = { PATH: process.env.PATH ?? "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

test("`npm run demo -- FILE` with a path that exists and is not a folder: a usage error naming it, exit 64, no stack trace", () => {
  const scratch = mkdtempSync(join(tmpdir(), "evidence-gate-demo-file-"));
  onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
  const file = join(scratch, "notes.txt");
  writeFileSync(file, "not a folder\n");
  const r = spawnSync(process.execPath, ["scripts/demo.mjs", file], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", LANG: "C.UTF-8" },
  });
  expect(r.status, r.stderr).toBe(64);
  expect(r.stderr).toContain(`the output folder ${file} exists and is not a folder`);
  expect(r.stderr).not.toContain("EEXIST");
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(readFileSync(file, "utf8")).toBe("not a folder\n");
});

test("README command 1, `npm run demo`: dist/cli.js auto fixes, verifies and commits the sample project, prints the ledger table with both rows and success, and keeps check-run.json, summary.md, patch.diff and the sample repository", async () => {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const out = mkdtempSync(join(tmpdir(), "evidence-gate-demo-out-"));
  onTestFinished(() => rmSync(out, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, ["scripts/demo.mjs", out], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", LANG: "C.UTF-8" },
  });
  const shown = `stderr:\n${r.stderr}\nstdout:\n${r.stdout}`;

  expect(r.status, shown).toBe(0);
  expect(r.stdout).toMatch(/^NODE +VERDICT +SESSION +COST +DURATION +DENIED +DETAIL$/m);
  expect(r.stdout).toMatch(/^implement +PASS \(exit-only\) +[0-9a-f]{8} +\$\d+\.\d{4} /m);
  expect(r.stdout).toMatch(
    /^check +PASS \(verified\) +[0-9a-f]{8} +\$\d+\.\d{4} .*verify `npm test` exited 0/m,
  );
  expect(r.stdout).toMatch(/^CONCLUSION: +success \(outcome passed\)/m);
  const head = /--commit: the nodes' changes are committed as ([0-9a-f]{40}) /.exec(r.stdout)?.[1];
  expect(head, shown).toBeDefined();
  // What the nodes changed is kept: the patch, and the repository with the commit --commit made.
  const kept = join(out, "sample-repo");
  expect(readFileSync(join(kept, "src", "sum.js"), "utf8")).toBe(FIXED_SUM);
  const git = (args: string[]) =>
    spawnSync("git", args, { cwd: kept, encoding: "utf8", env: GIT_ENV }).stdout.trim();
  expect(git(["rev-parse", "HEAD"])).toBe(head);
  expect(readFileSync(join(out, "patch.diff"), "utf8")).toBe(`${git(["diff", "HEAD^", "HEAD"])}\n`);
  expect(readFileSync(join(out, "patch.diff"), "utf8")).toContain("+++ b/src/sum.js");
  const requests = JSON.parse(readFileSync(join(out, "check-run.json"), "utf8")) as unknown[];
  expect(requests.length).toBeGreaterThan(1);
  expect(readFileSync(join(out, "summary.md"), "utf8")).toContain("PASS (verified)");
  const ledgers = readdirSync(join(out, "runs")).filter((name) => name !== ".gitignore");
  expect(ledgers).toHaveLength(1);
  const ledger = JSON.parse(readFileSync(join(out, "runs", ledgers[0]!, "ledger.json"), "utf8")) as Ledger;
  expect(ledger.conclusion?.conclusion).toBe("success");
  expect(ledger.postedCommit?.sha).toBe(head);
});

test("dist/cli.js with both readers gone (`auto --json … 2>&1 >&- | head -1`: stdout closed, stderr read for one line): no EPIPE crash; the run finishes, writes ledger.json and releases run.lock", async () => {
  // One run for both streams: --json puts the progress lines on stderr (read one, then close: every later
  // line hits EPIPE) and the ledger JSON on stdout (closed from the start: the final write hits EPIPE).
  // Per-stream rules (later writes dropped, the other stream untouched): test/cli/pipe-safe-output.test.ts.
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const h = await startCliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  onTestFinished(() => h.cleanup());
  const dist = h.spawnDist([
    "auto",
    "--goal",
    DEFAULT_GOAL,
    "--repo",
    h.repo.dir,
    "--claude-path",
    CLAUDE_BIN,
    "--verify-cmd",
    "npm test",
    "--commit",
    "--json",
  ]);
  dist.child.stdout.destroy();
  // Like `head -1`: read one line, then close the read end.
  let firstLine: string | null = null;
  let seen = "";
  dist.child.stderr.on("data", (chunk: string) => {
    seen += chunk;
    if (firstLine === null && seen.includes("\n")) {
      firstLine = seen.slice(0, seen.indexOf("\n"));
      dist.child.stderr.destroy();
    }
  });
  const { code, signal } = await dist.closed;
  const { stdout, stderr } = dist.output();
  const shown = `code ${code} signal ${signal}\nstderr:\n${stderr}\nstdout:\n${stdout}`;

  expect(firstLine, shown).not.toBeNull();
  expect(stdout + stderr, shown).not.toMatch(/EPIPE|internal error/);
  expect(signal, shown).toBeNull();
  expect(code, shown).toBe(0);
  const dirs = h.runDirs();
  expect(dirs, shown).toHaveLength(1);
  const ledgerFile = join(dirs[0]!, "ledger.json");
  expect(existsSync(ledgerFile), shown).toBe(true);
  expect(existsSync(join(dirs[0]!, "run.lock")), shown).toBe(false);
  const ledger = JSON.parse(readFileSync(ledgerFile, "utf8")) as Ledger;
  expect(ledger.conclusion?.conclusion).toBe("success");
});
