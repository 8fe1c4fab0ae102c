/**
 * A goal longer than the ledger holds (issue 26): `auto` with a 100,000-character goal finishes, and its
 * own ledger.json is then read back by `evidence-gate ledger RUN` — the writer cuts the goal with a
 * visible marker to the one limit the reader checks (`LEDGER_TEXT_MAX_CHARS`).
 */
import { expect, test } from "vitest";
import { runCliLedger } from "../../src/cli/ledger-command.js";
import { LEDGER_TEXT_MAX_CHARS } from "../../src/ledger/render-json.js";
import { cliHarness, DEFAULT_GOAL } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";

test("a 100,000-character goal: the run's ledger.json holds it cut with a marker, and `ledger RUN` reads it back", async () => {
  const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  const goal = `${DEFAULT_GOAL} ${"x".repeat(100_000)}`;

  const r = await h.run(["--verify-cmd", "npm test", "--commit"], { goal });

  expect(r.exitCode, r.stderr).toBe(0);
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
