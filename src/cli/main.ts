/**
 * The `evidence-gate` CLI entry point: parse, call the engine once, map the result to an exit code
 * (SPEC §2, §10: 0 passed, 1 failed, 2 paused, 3 refused, 4 passed but action_required, 64 usage error,
 * 124 timed out, 130 interrupted).
 */
import { resolve } from "node:path";
import { EXIT } from "../run/exit-codes.js";
import type { CliIo } from "../run/local-setup.js";
import { writeFailureProblem } from "../run/writable-paths.js";
import { runCliLedger } from "./ledger-command.js";
import { runCliLint } from "./lint-command.js";
import { pipeSafe } from "./pipe-safe-output.js";
import { runCliPlan } from "./plan-command.js";
import { runCliReport } from "./report-command.js";
import { runCliResolve } from "./resolve-command.js";
import { runCliResume } from "./resume-command.js";
import { runCliAuto } from "./run-auto-command.js";
import { runCliRun } from "./run-command.js";
import { runCliVerify } from "./verify-command.js";
import { VERSION } from "./version.js";

const USAGE = `usage: evidence-gate <command> [options]

commands:
  auto      plan a graph from a goal, run it, run your verify command at its sinks, print the ledger
  plan      plan a graph from a goal as auto would and print it with its tool ceiling; nothing runs
  run       run a hand-written graph file, print a line per node and the ledger
  verify    run your verify command once (no model) and print its one-row ledger
  resume    continue a paused or failed run: --approve GATE | --reject GATE | --retry-failed
  lint      check a graph file: every error and every advisory (free: nothing runs)
  ledger    print a saved run's ledger again: table, --json or --markdown (nothing runs)
  report    post a saved run's ledger as a check run: --repository OWNER/NAME [--sha SHA]
  bot       start the GitHub App server (docs/bot.md); --redeliver-failed asks GitHub to redeliver
  resolve   print a graph file with its use: fragments spliced in, as JSON (free: nothing runs)

options:
  --version   print the version

run \`evidence-gate <command> --help\` for a command's options.
Exit codes: 0 passed, 1 failed, 2 paused (gate or session limit), 3 refused (no build evidence),
4 passed but action_required (read CONCLUSION), 64 usage error, 124 run timed out, 130 interrupted.
`;

/** The commands that spawn model CLIs (a leg of a run, or `plan`'s planner): SIGINT/SIGTERM stops them. */
const RUN_COMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  auto: runCliAuto,
  // No node runs, but the planner call is a child the interrupt must stop.
  plan: runCliPlan,
  run: runCliRun,
  verify: runCliVerify,
  resume: runCliResume,
};

/**
 * The process's stdout and stderr, made once: a reader that goes away (`… | head -1`) drops the rest of
 * that stream's output instead of killing the run before it writes its ledger (`pipeSafe`).
 */
const stdout = pipeSafe(process.stdout);
const stderr = pipeSafe(process.stderr);

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    stdout.write(USAGE);
    return command === undefined ? 64 : 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    stdout.write(`evidence-gate ${VERSION}\n`);
    return 0;
  }
  const runCommand = Object.hasOwn(RUN_COMMANDS, command) ? RUN_COMMANDS[command] : undefined;
  if (runCommand !== undefined) {
    // First SIGINT/SIGTERM: stop the running nodes and finish the ledger as cancelled (exit 130).
    const controller = new AbortController();
    const stop = (): void => {
      stderr.write("evidence-gate: interrupted — stopping the running nodes\n");
      controller.abort();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return runCommand(rest, {
      cwd: resolve("."),
      env: process.env,
      out: stdout,
      err: stderr,
      signal: controller.signal,
    });
  }
  if (command === "bot") {
    // Loaded on demand: the App's dependencies are evaluated only by `evidence-gate bot`.
    const { runBotCommand } = await import("../bot/bot-command.js");
    return runBotCommand(rest, { env: process.env, out: stdout, err: stderr });
  }
  if (command === "lint") return runCliLint(rest, { cwd: resolve("."), out: stdout, err: stderr });
  if (command === "ledger")
    return runCliLedger(rest, { cwd: resolve("."), env: process.env, out: stdout, err: stderr });
  if (command === "report")
    return runCliReport(rest, { cwd: resolve("."), env: process.env, out: stdout, err: stderr });
  if (command === "resolve") return runCliResolve(rest, { cwd: resolve("."), out: stdout, err: stderr });
  stderr.write(`evidence-gate: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  return 64;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A place the run could not write (a full disk, a folder made read-only meanwhile) is the operator's to
    // fix, not a crash: checked before the run starts (`checkedRepository`), and worded here if it happens anyway.
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
