/**
 * Which `evidence-gate` command runs, and nothing more: the top-level `--help` and `--version` answered from
 * this module alone, and each command's code loaded only when that command is asked for (a dynamic
 * `import()` per command; issue 24 item 5: `evidence-gate --version` costs about what `node -e 0` does, and
 * `lint` does not load the engine). This module imports no command code statically:
 * test/cli/dispatch.test.ts reads its static imports, and the e2e tier checks the bundle keeps the split.
 */
import type { CliIo } from "../local-run/local-setup.js";
import { VERSION } from "./version.js";

/** The top-level usage (`evidence-gate --help`); one line per entry of {@link COMMANDS}. */
export const USAGE = `usage: evidence-gate <command> [options]

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

/** One command's entry point: its argv (after the command's name) and the process's streams → exit code. */
export type CommandMain = (argv: readonly string[], io: CliIo) => Promise<number>;

/** A command: how to load its code, and whether SIGINT/SIGTERM must stop what it spawns. */
export interface Command {
  /** Loads the command's module (its own code and what it imports, no other command's) on demand. */
  readonly load: () => Promise<CommandMain>;
  /**
   * True for the commands that spawn model CLIs (a leg of a run, or `plan`'s planner): the first
   * SIGINT/SIGTERM aborts `io.signal`, which stops the running nodes and ends the ledger cancelled (exit 130).
   * The others get no signal (`bot` stops itself on SIGINT/SIGTERM when it is given none).
   */
  readonly interruptible: boolean;
}

/** Every command, by the name typed after `evidence-gate`. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  auto: { interruptible: true, load: async () => (await import("./run-auto-command.js")).runCliAuto },
  // No node runs, but the planner call is a child the interrupt must stop.
  plan: { interruptible: true, load: async () => (await import("./plan-command.js")).runCliPlan },
  run: { interruptible: true, load: async () => (await import("./run-command.js")).runCliRun },
  verify: { interruptible: true, load: async () => (await import("./verify-command.js")).runCliVerify },
  resume: { interruptible: true, load: async () => (await import("./resume-command.js")).runCliResume },
  lint: { interruptible: false, load: async () => (await import("./lint-command.js")).runCliLint },
  ledger: { interruptible: false, load: async () => (await import("./ledger-command.js")).runCliLedger },
  report: { interruptible: false, load: async () => (await import("./report-command.js")).runCliReport },
  bot: { interruptible: false, load: async () => (await import("../bot/bot-command.js")).runBotCommand },
  resolve: { interruptible: false, load: async () => (await import("./resolve-command.js")).runCliResolve },
};

/** What {@link runCli} needs from the process. */
export interface RunCliOptions {
  /** The working directory, environment and output streams every command gets (`signal` is ignored). */
  readonly io: Omit<CliIo, "signal">;
  /**
   * Called once, only for an interruptible command, just before it starts: arms the process's
   * SIGINT/SIGTERM handling and returns the signal they abort.
   */
  readonly armInterrupt: () => AbortSignal;
}

/**
 * Runs `evidence-gate ARGV`: no command prints the usage (exit 64); `--help`, `-h`, `help` print it (exit 0);
 * `--version`, `-v`, `version` print `evidence-gate VERSION` (exit 0); a known command loads and runs with
 * the rest of argv; an unknown one prints its name and the usage on stderr (exit 64).
 *
 * @returns the exit code (SPEC §2, §10). A command's own error rejects, for the caller to word.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const { io } = options;
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out.write(USAGE);
    return name === undefined ? 64 : 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    io.out.write(`evidence-gate ${VERSION}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    const reordered = optionsBeforeCommand(argv);
    io.err.write(
      reordered !== null
        ? `evidence-gate: ${JSON.stringify(name)} is an option, and options follow the command (the Go CLI takes some before it): ${reordered}\n`
        : `evidence-gate: unknown command ${JSON.stringify(name)}\n\n${USAGE}`,
    );
    return 64;
  }
  const main = await command.load();
  return main(rest, command.interruptible ? { ...io, signal: options.armInterrupt() } : io);
}

/**
 * The command line to type when `argv` starts with options and names a command after them
 * (`--runtime codex run g.yaml` → `evidence-gate run --runtime codex g.yaml`), as the Go CLI's global flags
 * are written (issue 26); `null` when `argv` does not start with an option or names no command.
 */
function optionsBeforeCommand(argv: readonly string[]): string | null {
  if (!argv[0]?.startsWith("-")) return null;
  const at = argv.findIndex((word) => Object.hasOwn(COMMANDS, word));
  if (at < 0) return null;
  const words = [argv[at]!, ...argv.slice(0, at), ...argv.slice(at + 1)];
  return `evidence-gate ${words.map(shellWord).join(" ")}`;
}

/** `word` as one POSIX shell word: bare when it holds only safe characters, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
