#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  LEDGER_USAGE,
  parseLedgerFlags,
  readSavedLedger,
  renderSavedLedger
} from "./cli-chunk-IWQT2VKC.js";
import "./cli-chunk-5VNWYYNP.js";
import "./cli-chunk-XMBYELVR.js";
import "./cli-chunk-MJWJMW56.js";
import "./cli-chunk-UYHXKTBK.js";
import {
  parseOrExit,
  refuseUsage,
  savedRunsDir
} from "./cli-chunk-R2EV6RHO.js";
import "./cli-chunk-BUEDCLXK.js";
import {
  EXIT
} from "./cli-chunk-O74QMRSQ.js";
import "./cli-chunk-FG4O5OZX.js";
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
