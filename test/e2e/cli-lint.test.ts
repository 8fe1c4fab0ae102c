/**
 * `lint` through the shipped CLI: `node dist/cli.js lint …` as a child process, so the subcommand is
 * registered in `main.ts`, bundled, and its exit codes reach the shell. No model and no server is
 * involved, so a synchronous spawn is fine here.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { DIST_CLI } from "../support/cli-harness.js";

function distLint(cwd: string, ...argv: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [DIST_CLI, "lint", ...argv], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("dist/cli.js lint prints every error and advisory with the summary, and exits 1 / 0 / 64", () => {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), "eg-lint-dist-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "broken.yaml"),
    "nodes:\n  - id: a\n    prompt: Reply PASS or FAIL.\n    allowed_tools: [Read]\n  - id: b\n    depends_on: [a, zz]\n    prompt: b\n",
  );
  writeFileSync(
    join(dir, "advised.yaml"),
    // `a` checks its reply with no verify command: the advisory; the sink `b` verifies (no advisory).
    "nodes:\n  - id: a\n    prompt: hi\n    allowed_tools: [Read]\n    success_check: { result_matches: '^OK' }\n" +
      "  - id: b\n    depends_on: [a]\n    prompt: hi\n    allowed_tools: [Read]\n    success_check: { result_matches: '^OK', verify: { command: 'true' } }\n",
  );

  const broken = distLint(dir, "broken.yaml");
  expect(broken.status, broken.stderr).toBe(1);
  expect(broken.stdout).toBe(
    'invalid graph: node "b": depends_on unknown node "zz"\n1 error, 0 advisories\n',
  );

  const advised = distLint(dir, "advised.yaml", "--input", "task=x");
  expect(advised.status, advised.stderr).toBe(0);
  expect(advised.stdout).toBe(
    'advisory: node "a": success_check.result_matches is set without exit_zero: true; the Go CLI does not check ' +
      "the exit code then, so this graph can pass a crashed run there (evidence-gate fails any non-zero exit " +
      "either way); add exit_zero: true to success_check\n" +
      "0 errors, 1 advisory\n",
  );

  const missing = distLint(dir, "nope.yaml");
  expect(missing.status).toBe(64);
  expect(missing.stderr).toContain('evidence-gate lint: no graph file at "nope.yaml"');
});
