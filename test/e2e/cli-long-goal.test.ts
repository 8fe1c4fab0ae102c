/**
 * A goal longer than the ledger holds (issue 26): `auto` with a 100,000-character goal finishes, and its
 * own ledger.json is then read back by `evidence-gate ledger RUN` — the writer cuts the goal with a
 * visible marker to the one limit the reader checks (`LEDGER_TEXT_MAX_CHARS`). The planner reads at most
 * 8,000 characters of a goal (a longer one is refused before anything runs: test/cli/goal-length.test.ts),
 * not counting HTML comments; so the goal here is the instruction and a 100,000-character comment, which
 * the planner does not read and the ledger records (cut).
 */
import { expect, test } from "vitest";
import { runCliLedger } from "../../src/cli/ledger-command.js";
import { LEDGER_TEXT_MAX_CHARS } from "../../src/ledger/render-json.js";
import { cliHarness, DEFAULT_GOAL } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";

test("a 100,000-character goal (most of it an HTML comment): the run's ledger.json holds it cut with a marker, and `ledger RUN` reads it back; the starting check run stays within GitHub's summary limit", async () => {
  const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  const goal = `${DEFAULT_GOAL} <!-- ${"x".repeat(100_000)} -->`;

  const r = await h.run(["--verify-cmd", "npm test", "--commit"], { goal });

  expect(r.exitCode, r.stderr).toBe(0);
  // The run's own check-run summary needed no emergency cut (the recorder says so on stderr when it does).
  expect(r.stderr).not.toContain("over GitHub's 65535");
  const written = r.ledger!.goal!;
  expect(written.length).toBeLessThanOrEqual(LEDGER_TEXT_MAX_CHARS);
  expect(written.startsWith(DEFAULT_GOAL)).toBe(true);
  expect(written).toMatch(/\[cut: \d+ more characters\]$/);

  let stdout = "";
  let stderr = "";
  const code = await runCliLedger([r.ledger!.runId, "--repo", h.repo.dir, "--json"], {
    cwd: h.repo.dir,
    env: h.baseEnv(),
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  expect(code, stderr).toBe(0);
  expect(JSON.parse(stdout).goal).toBe(written);
});
