#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  LEDGER_USAGE,
  parseLedgerFlags,
  readSavedLedger,
  renderSavedLedger
} from "./cli-chunk-4WBDRU74.js";
import "./cli-chunk-5KWKE5IC.js";
import "./cli-chunk-QIRV2OXE.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-65TFX77S.js";
import {
  parseOrExit,
  refuseUsage,
  savedRunsDir
} from "./cli-chunk-OU6P7TWF.js";
import "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/ledger-command.ts
async function runCliLedger(argv, io) {
  const parsed = parseOrExit(argv, io, "ledger", LEDGER_USAGE, parseLedgerFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const runsDir = await savedRunsDir(io, f.repo, f.runsDir);
  const saved = readSavedLedger(runsDir, f.runId);
  if ("problem" in saved) return refuseUsage(io, "ledger", [saved.problem]);
  io.out.write(renderSavedLedger(saved, f.format));
  return EXIT.passed;
}
export {
  runCliLedger
};
