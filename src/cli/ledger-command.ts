/**
 * `evidence-gate ledger RUN_ID [--json | --markdown]` (SPEC §11): a saved run's ledger printed again from
 * its run directory — the text table by default, the ledger JSON (the artifact's bytes) under `--json`,
 * the Markdown ledger under `--markdown`. Nothing runs; what can be read back is `saved-ledger.ts`'s rule.
 */

import { EXIT } from "../local-run/exit-codes.js";
import { type CliIo, refuseUsage, savedRunsDir } from "../local-run/local-setup.js";
import { readSavedLedger, renderSavedLedger } from "../local-run/saved-ledger.js";
import { parseOrExit } from "./parse-command.js";
import { LEDGER_USAGE, parseLedgerFlags } from "./parse-saved-run-flags.js";

/** Runs `ledger` and returns the process exit code (0 printed, 64 the run cannot be read back). */
export async function runCliLedger(
  argv: readonly string[],
  io: Pick<CliIo, "cwd" | "env" | "out" | "err">,
): Promise<number> {
  const parsed = parseOrExit(argv, io, "ledger", LEDGER_USAGE, parseLedgerFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const runsDir = await savedRunsDir(io, f.repo, f.runsDir);
  const saved = readSavedLedger(runsDir, f.runId);
  if ("problem" in saved) return refuseUsage(io, "ledger", [saved.problem])!;
  io.out.write(renderSavedLedger(saved, f.format));
  return EXIT.passed;
}
