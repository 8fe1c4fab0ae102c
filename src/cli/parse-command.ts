/**
 * The start of every CLI command: `--help` prints the command's usage (exit 0); flags that do not parse
 * print every problem and one line pointing at `--help` (exit 64).
 */

import { EXIT } from "../local-run/exit-codes.js";
import type { CliIo } from "../local-run/local-setup.js";

/** Flags parsed into a typed object, or every problem. */
export type Parsed<F> =
  | { readonly ok: true; readonly flags: F }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * The start of every command: `--help` prints `usage` (exit 0); flags that do not parse print every
 * problem, one per line, then {@link helpHint} — not the whole usage, which buried the one line that
 * says what is wrong (issue 17 item 9) (exit 64).
 *
 * @returns the flags, or the exit code to return.
 */
export function parseOrExit<F>(
  argv: readonly string[],
  io: Pick<CliIo, "out" | "err">,
  command: string,
  usage: string,
  parse: (argv: readonly string[]) => Parsed<F>,
): { readonly flags: F } | { readonly exit: number } {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(usage);
    return { exit: EXIT.passed };
  }
  const parsed = parse(argv);
  if (parsed.ok) return { flags: parsed.flags };
  io.err.write(
    `evidence-gate ${command}: ${parsed.errors.join(`\nevidence-gate ${command}: `)}\n${helpHint(command)}\n`,
  );
  return { exit: EXIT.usage };
}

/** The line after a usage error: where the command's flags are listed. */
export function helpHint(command: string): string {
  return `run \`evidence-gate ${command} --help\` for its flags`;
}
