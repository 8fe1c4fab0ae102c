/**
 * Smoke test of the shipped CLI: `node dist/cli.js auto …` as an async child process (the scripted model
 * server answers from this process, so a synchronous spawn would deadlock), against the real `claude`
 * CLI and a real repository; and that a reader closing stdout or stderr early (`| head -1`) does not kill
 * the run before it writes its ledger.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { CLAUDE_BIN, DEFAULT_GOAL, DIST_CLI, startCliHarness } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM } from "../support/temp-repo.js";

test("dist/cli.js auto fixes, verifies and commits the sample project: exit 0 and the printed ledger table shows both rows and success", async () => {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const h = await startCliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  onTestFinished(() => h.cleanup());
  const start = await h.repo.git(["rev-parse", "HEAD"]);

  const r = await h.runDist(["--verify-cmd", "npm test", "--commit"]);

  expect(r.exitCode, `stderr:\n${r.stderr}\nstdout:\n${r.stdout}`).toBe(0);
  expect(r.stdout).toMatch(/^NODE +VERDICT +SESSION +COST +DURATION +DENIED +DETAIL$/m);
  expect(r.stdout).toMatch(/^implement +PASS \(exit-only\) +[0-9a-f]{8} +\$\d+\.\d{4} /m);
  expect(r.stdout).toMatch(
    /^check +PASS \(verified\) +[0-9a-f]{8} +\$\d+\.\d{4} .*verify `npm test` exited 0/m,
  );
  expect(r.stdout).toMatch(/^CONCLUSION: +success \(outcome passed\)/m);
  expect(r.ledgerPath).not.toBeNull();
  expect(existsSync(r.ledgerPath!)).toBe(true);
  expect(r.ledger?.conclusion?.conclusion).toBe("success");
  const head = await h.repo.git(["rev-parse", "HEAD"]);
  expect(head).not.toBe(start);
  expect(r.ledger?.postedCommit?.sha).toBe(head);
  expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
});

describe("dist/cli.js with a reader that goes away after the first line (`auto … | head -1`)", () => {
  for (const stream of ["stdout", "stderr"] as const) {
    test(`${stream} closed: no EPIPE crash; the run finishes, writes ledger.json and releases run.lock`, async () => {
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
        // --json moves the progress lines to stderr, so stderr has lines to lose; stdout keeps the JSON.
        ...(stream === "stderr" ? ["--json"] : []),
      ]);
      // Like `head -1`: read one line, then close the read end; every later write of the CLI hits EPIPE.
      let firstLine: string | null = null;
      let seen = "";
      dist.child[stream].on("data", (chunk: string) => {
        seen += chunk;
        if (firstLine === null && seen.includes("\n")) {
          firstLine = seen.slice(0, seen.indexOf("\n"));
          dist.child[stream].destroy();
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
      if (stream === "stderr") {
        // The other stream is untouched: the whole JSON ledger still reaches stdout.
        expect((JSON.parse(stdout) as Ledger).runId).toBe(ledger.runId);
      }
    });
  }
});
