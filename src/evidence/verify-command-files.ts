/**
 * Which files a verify command line runs or reads as its definition (rule 3 of `verify-definition.ts`):
 * the program when it is a path, an interpreter's script, a file option's value. Judged by the words of
 * the command alone — nothing is run, no shell parses it — so it is a heuristic: variables, globs and
 * command substitutions name no file here.
 */
import { posix } from "node:path";

/** Programs whose first operand is the script they run (`bash test.sh`, `node scripts/check.mjs`). */
const INTERPRETERS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "source",
  ".",
  "node",
  "deno",
  "bun",
  "tsx",
  "ts-node",
  "python",
  "python3",
  "ruby",
  "perl",
  "php",
  "pwsh",
]);
/** Options whose value is a file that defines what runs (`make -f ci.mk`, `jest --config ci/jest.js`). */
const FILE_OPTIONS: ReadonlySet<string> = new Set([
  "-f",
  "--file",
  "--makefile",
  "-c",
  "--config",
  "--config-file",
  "--configfile",
  "--rcfile",
  "-p",
  "--project",
]);
/** Words before the program that do not name it (`env`, `exec`, `time`, `nohup`, `command`). */
const WRAPPERS: ReadonlySet<string> = new Set(["env", "exec", "time", "nohup", "command"]);

/**
 * The words of a command line that name a file it runs or reads as its definition: in each simple command
 * (split at `;`, `|`, `&`, `(`, `)` and newlines; quotes removed; leading `VAR=value` words and
 * {@link WRAPPERS} skipped), the program when it is a path (`./scripts/ci.sh`, `bin/check`), an
 * interpreter's script ({@link INTERPRETERS}: its first operand), and the value of a file option
 * ({@link FILE_OPTIONS}, `-f ci.mk` or `--config=ci/x.json`; not for `test` / `[`). A file a command only
 * reads as data (`grep -q done notes.txt`, `test -f README.md`) is not one.
 */
export function commandFiles(command: string): string[] {
  const files: string[] = [];
  for (const simple of command.split(/[;|&()\n]+/)) {
    const words = simple
      .split(/[\s<>]+/)
      .map((w) => w.replace(/["']/g, ""))
      .filter((w) => w.length > 0);
    let first = 0;
    while (
      first < words.length &&
      (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[first]!) || WRAPPERS.has(words[first]!))
    )
      first += 1;
    const program = words[first];
    if (program === undefined) continue;
    if (program.includes("/")) files.push(program);
    const operands = words.slice(first + 1);
    if (INTERPRETERS.has(posix.basename(program))) {
      const script = operands.find((w) => !w.startsWith("-"));
      if (script !== undefined) files.push(script);
    }
    // `test -f README.md` asks whether a file exists: its `-f` is no file option.
    if (program === "test" || program === "[") continue;
    operands.forEach((word, i) => {
      const eq = word.indexOf("=");
      if (eq > 0 && FILE_OPTIONS.has(word.slice(0, eq))) files.push(word.slice(eq + 1));
      else if (FILE_OPTIONS.has(word) && operands[i + 1] !== undefined) files.push(operands[i + 1]!);
    });
  }
  return files;
}
