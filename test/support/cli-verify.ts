import { readFileSync } from "node:fs";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { hermeticGitEnv, type TempRepo } from "./temp-repo.js";

/**
 * Runs `evidence-gate verify --repo REPO FLAGS` in-process (no model credential in its environment; `env`
 * adds variables, e.g. `GITHUB_TOKEN` and `GITHUB_API_URL` for `--repository`) and returns its exit code,
 * what it printed, and the ledger.json it names (`null` when it printed none).
 */
export async function cliVerify(
  repo: TempRepo,
  flags: readonly string[],
  env: Readonly<Record<string, string>> = {},
) {
  let stdout = "";
  let stderr = "";
  const code = await runCliVerify(["--repo", repo.dir, ...flags], {
    cwd: repo.dir,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined, ...env },
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1];
  const ledger = ledgerPath ? (JSON.parse(readFileSync(ledgerPath, "utf8")) as Ledger) : null;
  return { code, stdout, stderr, ledger };
}
