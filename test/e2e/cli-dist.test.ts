/**
 * Smoke test of the shipped CLI: `node dist/cli.js auto …` as an async child process (the scripted model
 * server answers from this process, so a synchronous spawn would deadlock), against the real `claude`
 * CLI and a real repository.
 */
import { existsSync } from "node:fs";
import { expect, onTestFinished, test } from "vitest";
import { DIST_CLI, startCliHarness } from "../support/cli-harness.js";
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
