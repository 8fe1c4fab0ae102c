/**
 * How every command reads its argv (SPEC §2, §11): the command line itself, parsed strictly (every repeated
 * flag named), typed values out of it, one positional, `--input NAME=VALUE` pairs. The groups of flags
 * several commands take are `flag-groups.ts`'s.
 */
import { parseArgs } from "node:util";
import { MAX_VERIFY_REPEAT } from "../core/ledger-row.js";
import type { LegFlags, ReportFlags } from "../local-run/local-setup.js";
import { MAX_CYCLES } from "../run/max-cycles.js";
import { MAX_REPAIR_ATTEMPTS } from "../run/repair-attempts.js";
import type { Parsed } from "./parse-command.js";

export type { LegFlags, ReportFlags };

/** One flag as `node:util` `parseArgs` takes it. */
export interface FlagSpec {
  readonly type: "string" | "boolean";
  /** Repeatable (`--input a=1 --input b=2`); any other flag given twice is an error. */
  readonly multiple?: boolean;
}

/** What `parseArgs` produced, before any flag is checked. */
export interface CommandLine {
  readonly values: Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses argv strictly. A flag that is not repeatable and was given twice is an error naming it: a
 * second `--goal` or `--approve` is more likely a mistake than an override.
 */
export function parseCommandLine(
  argv: readonly string[],
  options: Readonly<Record<string, FlagSpec>>,
  allowPositionals: boolean,
): { readonly ok: true; readonly line: CommandLine } | { readonly ok: false; readonly errors: string[] } {
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      strict: true,
      allowPositionals,
      tokens: true,
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          { type: spec.type, ...(spec.multiple === true ? { multiple: true } : {}) },
        ]),
      ),
    });
    const seen = new Map<string, number>();
    for (const token of parsed.tokens) {
      if (token.kind === "option" && options[token.name]?.multiple !== true)
        seen.set(token.name, (seen.get(token.name) ?? 0) + 1);
    }
    const repeated = [...seen].filter(([, count]) => count > 1).map(([name]) => name);
    if (repeated.length > 0)
      return {
        ok: false,
        errors: repeated.map((name) => `--${name} was given more than once: give it once`),
      };
    return { ok: true, line: { values: parsed.values, positionals: parsed.positionals } };
  } catch (error) {
    return { ok: false, errors: [parserProblem(error)] };
  }
}

/**
 * A `node:util` `parseArgs` error in the CLI's words (issue 17 item 9: Node's raw message, "Unknown
 * option '--bogus'. To specify a positional argument starting with a '-', …", read as a crash): the flag
 * or argument named, and what to do. Codes from Node's `parseArgs` (ERR_PARSE_ARGS_*); any other error
 * keeps its message.
 */
export function parserProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== undefined)
    return `unknown flag ${quoted}: check its spelling against the flags --help lists`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted !== undefined) {
    const flag = quoted.split(" ")[0]!;
    if (message.includes("ambiguous"))
      return `${flag} needs a value, and the word after it starts with "-": give it as ${flag}=VALUE`;
    return message.includes("argument missing")
      ? `${flag} needs a value: ${flag} VALUE`
      : `${flag} takes no value: give ${flag} alone`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted !== undefined)
    return `unexpected argument ${JSON.stringify(quoted)}: this command takes only flags (a flag's value goes right after it)`;
  return message;
}

/**
 * `--flag -1` as `--flag=-1` for a string flag: `parseArgs` would call the value "ambiguous" (it starts
 * with a dash), when it is a number the flag's own check should refuse or take. Only a value that looks
 * like a negative number is joined, and nothing after `--`: `--model -x` still says the value is missing.
 */
function joinNegativeValues(argv: readonly string[], options: Readonly<Record<string, FlagSpec>>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (
      arg.startsWith("--") &&
      options[arg.slice(2)]?.type === "string" &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Typed values out of a {@link CommandLine}. */
export interface FlagReader {
  str(name: string): string | undefined;
  bool(name: string): boolean;
  list(name: string): readonly string[];
  /** True when the flag was given at all. */
  given(name: string): boolean;
  readonly positionals: readonly string[];
}

/** Reads typed values out of a {@link CommandLine}. */
export function flagReader(line: CommandLine): FlagReader {
  return {
    str: (name) => {
      const v = line.values[name];
      return typeof v === "string" ? v : undefined;
    },
    bool: (name) => line.values[name] === true,
    list: (name) => {
      const v = line.values[name];
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    },
    given: (name) => line.values[name] !== undefined,
    positionals: line.positionals,
  };
}

/**
 * Flags whose empty (or blank) value is a usage error rather than "absent": the shared readers treat an
 * empty value as unset because the action's inputs arrive empty when not given (`INPUT_X=""`), but on the
 * command line `--verify-repeat ""` is a mistake (a failed variable expansion) that must not silently run
 * with the default. Each maps to what to give instead. (`--concurrency`, `--timeout` and
 * `--verify-timeout` already refuse an empty value in their own readers.)
 */
const NOT_EMPTY: Readonly<Record<string, string>> = {
  "verify-repeat": `a whole number from 1 to ${MAX_VERIFY_REPEAT}`,
  "max-cycles": `a whole number from 1 to ${MAX_CYCLES}`,
  "repair-attempts": `a whole number from 0 to ${MAX_REPAIR_ATTEMPTS}`,
  model: "a model name the runtime accepts (e.g. sonnet)",
};

/**
 * A command's flags: argv parsed strictly ({@link parseCommandLine}), then `read` into the typed flags,
 * pushing every problem onto `errors`.
 *
 * @returns the flags, or every problem (`read` returns `undefined` only after pushing one).
 */
export function parseFlags<F>(
  argv: readonly string[],
  options: Readonly<Record<string, FlagSpec>>,
  allowPositionals: boolean,
  read: (f: FlagReader, errors: string[]) => F | undefined,
): Parsed<F> {
  const parsed = parseCommandLine(argv, options, allowPositionals);
  if (!parsed.ok) return parsed;
  const errors: string[] = [];
  for (const [name, wanted] of Object.entries(NOT_EMPTY)) {
    const value = parsed.line.values[name];
    if (name in options && typeof value === "string" && value.trim() === "")
      errors.push(`--${name} ${JSON.stringify(value)}: give ${wanted}, or leave the flag out`);
  }
  const flags = read(flagReader(parsed.line), errors);
  return errors.length > 0 || flags === undefined ? { ok: false, errors } : { ok: true, flags };
}

/**
 * The command's one positional argument; a problem onto `errors` when it is missing or blank (`missing`)
 * and when more were given (`extra`, told the others, quoted).
 */
export function onePositional(
  f: FlagReader,
  errors: string[],
  problems: { readonly missing: string; readonly extra: (others: string) => string },
): string | undefined {
  const [first, ...extra] = f.positionals;
  if (first === undefined || first.trim() === "") errors.push(problems.missing);
  if (extra.length > 0) errors.push(problems.extra(extra.map((arg) => JSON.stringify(arg)).join(", ")));
  return first;
}

/** `{[key]: value}` when the value is defined, else `{}` (exactOptionalPropertyTypes-friendly spreads). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

// What `{{ inputs.NAME }}` can name (placeholders.ts REF): an --input no placeholder can name is a typo.
const INPUT_NAME = /^[A-Za-z0-9._/-]+$/;

/** `--input NAME=VALUE`, repeatable: the values by name (a null-prototype object), problems onto `errors`. */
/**
 * The problem with a `--repository` value, or `null` when it is `OWNER/NAME` as GitHub spells them: an owner
 * of letters, digits and `-`; a name of letters, digits, `.`, `_` and `-`, never `.` or `..`. The value is
 * put into API paths (`/repos/OWNER/NAME/check-runs`) with the token: `../x` would send it to
 * `/x/check-runs` on the same API host.
 */
export function repositoryFlagProblem(repository: string): string | null {
  const [owner, name, ...rest] = repository.split("/");
  const ok =
    rest.length === 0 &&
    owner !== undefined &&
    /^[A-Za-z0-9-]+$/.test(owner) &&
    name !== undefined &&
    /^[A-Za-z0-9._-]+$/.test(name) &&
    name !== "." &&
    name !== "..";
  return ok
    ? null
    : `--repository ${JSON.stringify(repository)}: give OWNER/NAME (the owner letters, digits and -; the name letters, digits, ., _ and -)`;
}

export function inputFlags(pairs: readonly string[], errors: string[]): Record<string, string> {
  const inputs: Record<string, string> = Object.create(null);
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || name === "") {
      errors.push(`--input ${JSON.stringify(pair)}: give NAME=VALUE, e.g. --input task="fix the login bug"`);
    } else if (!INPUT_NAME.test(name)) {
      errors.push(
        `--input ${JSON.stringify(pair)}: NAME may hold only letters, digits, ".", "_", "-" or "/" ` +
          "(it is what {{ inputs.NAME }} names)",
      );
    } else if (Object.hasOwn(inputs, name)) {
      errors.push(`--input ${name} was given more than once: give each input once`);
    } else {
      inputs[name] = pair.slice(at + 1);
    }
  }
  return inputs;
}

/** A group of flags several commands take: its `parseArgs` options, its usage lines and its reader. */
export interface FlagGroup<F> {
  readonly options: Readonly<Record<string, FlagSpec>>;
  readonly usage: string;
  readonly read: (f: FlagReader, errors: string[]) => F;
}
