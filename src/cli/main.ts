/**
 * The `evidence-gate` CLI entry point: parse, call the engine once, map the result to an exit code
 * (SPEC §2: 0 passed, 1 failed, 2 paused, 3 refused, 64 usage error, 124 timed out, 130 interrupted).
 */
import { resolve } from "node:path";
import { runCliLint } from "./lint-command.js";
import { runCliAuto } from "./run-auto-command.js";
import { VERSION } from "./version.js";

const USAGE = `usage: evidence-gate <command> [options]

commands:
  auto    plan a graph from a goal, run it, run your verify command at its sinks, print the ledger
  lint    check a graph file: every error and every advisory (free: nothing runs)

options:
  --version   print the version

run \`evidence-gate auto --help\` for auto's options.
`;

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 64 : 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`evidence-gate ${VERSION}\n`);
    return 0;
  }
  switch (command) {
    case "auto": {
      // First SIGINT/SIGTERM: stop the running nodes and finish the ledger as cancelled (exit 130).
      const controller = new AbortController();
      const stop = (): void => {
        process.stderr.write("evidence-gate: interrupted — stopping the running nodes\n");
        controller.abort();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return runCliAuto(rest, {
        cwd: resolve("."),
        env: process.env,
        out: process.stdout,
        err: process.stderr,
        signal: controller.signal,
      });
    }
    case "lint":
      return runCliLint(rest, { cwd: resolve("."), out: process.stdout, err: process.stderr });
    default:
      process.stderr.write(`evidence-gate: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 64;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `evidence-gate: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
