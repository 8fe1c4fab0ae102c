/**
 * The `evidence-gate` CLI entry point: parse, call the engine once, map the result to an exit code
 * (SPEC §2, §10: 0 passed, 1 failed, 2 paused, 3 refused, 4 passed but action_required, 64 usage error,
 * 124 timed out, 130 interrupted). The command is chosen by ./dispatch.ts, which loads only that command's
 * code; this module imports nothing else a command would not need.
 */
import { resolve } from "node:path";
import { EXIT } from "../local-run/exit-codes.js";
import { runCli } from "./dispatch.js";
import { pipeSafe } from "./pipe-safe-output.js";

/**
 * The process's stdout and stderr, made once: a reader that goes away (`… | head -1`) drops the rest of
 * that stream's output instead of killing the run before it writes its ledger (`pipeSafe`).
 */
const stdout = pipeSafe(process.stdout);
const stderr = pipeSafe(process.stderr);

/** First SIGINT/SIGTERM: stop the running nodes and finish the ledger as cancelled (exit 130). */
function armInterrupt(): AbortSignal {
  const controller = new AbortController();
  const stop = (): void => {
    stderr.write("evidence-gate: interrupted — stopping the running nodes\n");
    controller.abort();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return controller.signal;
}

runCli(process.argv.slice(2), {
  io: { cwd: resolve("."), env: process.env, out: stdout, err: stderr },
  armInterrupt,
}).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    // A place the run could not write (a full disk, a folder made read-only meanwhile) is the operator's to
    // fix, not a crash: checked before the run starts (`checkedRepository`), and worded here if it happens anyway.
    const { writeFailureProblem } = await import("../local-run/writable-paths.js");
    const unwritable = writeFailureProblem(error);
    if (unwritable !== null) {
      stderr.write(`evidence-gate: ${unwritable}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    stderr.write(
      `evidence-gate: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
