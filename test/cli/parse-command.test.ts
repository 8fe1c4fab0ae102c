/**
 * The start of every CLI command (src/cli/parse-command.ts, issue 17 item 9): a usage error is its own
 * lines in the CLI's words — the flag named and the fix, then one line pointing at `--help` — never Node's
 * raw `parseArgs` message nor the whole usage after it; every command's `--help` ends with its exit codes.
 */
import { describe, expect, test } from "vitest";
import { LINT_USAGE, parseLintFlags } from "../../src/cli/lint-command.js";
import { AUTO_USAGE, PLAN_USAGE, parseAutoFlags, parsePlanFlags } from "../../src/cli/parse-auto-flags.js";
import { type Parsed, parseOrExit } from "../../src/cli/parse-command.js";
import { parseResumeFlags, RESUME_USAGE } from "../../src/cli/parse-resume-flags.js";
import { parseRunFlags, RUN_USAGE } from "../../src/cli/parse-run-flags.js";
import { parseVerifyFlags, VERIFY_USAGE } from "../../src/cli/verify-command.js";

const COMMANDS: readonly [string, string, (argv: readonly string[]) => Parsed<unknown>][] = [
  ["auto", AUTO_USAGE, parseAutoFlags],
  ["plan", PLAN_USAGE, parsePlanFlags],
  ["run", RUN_USAGE, parseRunFlags],
  ["resume", RESUME_USAGE, parseResumeFlags],
  ["verify", VERIFY_USAGE, parseVerifyFlags],
  ["lint", LINT_USAGE, parseLintFlags],
];

function start(
  command: string,
  usage: string,
  parse: (argv: readonly string[]) => Parsed<unknown>,
  argv: string[],
): { readonly exit: number | null; readonly stdout: string; readonly stderr: string } {
  let stdout = "";
  let stderr = "";
  const r = parseOrExit(
    argv,
    { out: { write: (t: string) => (stdout += t) }, err: { write: (t: string) => (stderr += t) } },
    command,
    usage,
    parse,
  );
  return { exit: "exit" in r ? r.exit : null, stdout, stderr };
}

describe.each(COMMANDS)("evidence-gate %s", (command, usage, parse) => {
  test("an unknown flag: the flag named in the CLI's words and a pointer to --help, not the usage; exit 64", () => {
    expect(start(command, usage, parse, ["--bogus", "x"])).toEqual({
      exit: 64,
      stdout: "",
      stderr: `evidence-gate ${command}: unknown flag --bogus: check its spelling against the flags --help lists\nrun \`evidence-gate ${command} --help\` for its flags\n`,
    });
  });

  test("a boolean flag given a value says it takes none", () => {
    expect(start(command, usage, parse, ["--json=yes", "x"]).stderr.split("\n")[0]).toBe(
      `evidence-gate ${command}: --json takes no value: give --json alone`,
    );
  });

  test("--help ends with the exit codes, as every command's does", () => {
    const help = start(command, usage, parse, ["--help"]);
    expect(help.exit).toBe(0);
    expect(help.stdout).toMatch(/^Exit: 0 [\s\S]*64 usage\s+error/m);
    expect(help.stdout.endsWith("\n")).toBe(true);
  });
});

test("a string flag with no value says it needs one", () => {
  const [, usage, parse] = COMMANDS[0]!;
  expect(start("auto", usage, parse, ["--goal"]).stderr).toBe(
    "evidence-gate auto: --goal needs a value: --goal VALUE\nrun `evidence-gate auto --help` for its flags\n",
  );
});

test("an argument a command takes none of is named", () => {
  const [, usage, parse] = COMMANDS[0]!;
  expect(start("auto", usage, parse, ["--goal", "g", "stray"]).stderr.split("\n")[0]).toBe(
    'evidence-gate auto: unexpected argument "stray": this command takes only flags (a flag\'s value goes right after it)',
  );
});
