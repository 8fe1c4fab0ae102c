/**
 * `evidence-gate lint GRAPH [--input NAME=VALUE]... [--json]` (SPEC §2, §3, §10): load a graph file,
 * print every error (`invalid graph: …`) and every advisory (`advisory: …`), then a summary line. Free:
 * nothing runs, no model is called. Exit 1 on any error, 0 otherwise (advisories alone pass), 64 on a
 * usage error (bad flags, unreadable file).
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Advisory, formatAdvisory, lintGraph } from "../graph/lint.js";
import { formatIssue, type GraphIssue } from "../graph/validate.js";
import { EXIT } from "./exit-codes.js";

/** What `lint` needs of its process: the directory GRAPH is relative to, and where to print. */
export interface LintIo {
  readonly cwd: string;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
}

/** Usage text of `lint`. */
export const LINT_USAGE = `usage: evidence-gate lint GRAPH [--input NAME=VALUE]... [--json]

  GRAPH                 the graph file (YAML or JSON) to check; nothing runs, nothing is billed
  --input NAME=VALUE    an input the run would be given (repeatable); a {{ inputs.NAME }} with no
                        --input is reported as an advisory
  --json                print {graph, errors, advisories} as JSON instead of lines

Exit: 0 no errors (advisories alone pass), 1 errors found, 64 usage error.
`;

/** `lint`'s flags, parsed once. `inputs` maps each `--input` name to its value. */
export interface LintFlags {
  readonly graph: string;
  readonly inputs: Readonly<Record<string, string>>;
  readonly json: boolean;
}

/** Parsed flags, or every usage problem (each names the flag and the fix). */
export type ParsedLintFlags =
  | { readonly ok: true; readonly flags: LintFlags }
  | { readonly ok: false; readonly errors: readonly string[] };

// What `{{ inputs.NAME }}` can name (placeholders.ts REF): an --input no placeholder can name is a typo.
const INPUT_NAME = /^[A-Za-z0-9._/-]+$/;

/** Parses `lint`'s argv (after the subcommand). */
export function parseLintFlags(argv: readonly string[]): ParsedLintFlags {
  let values: { input?: string[]; json?: boolean };
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: { input: { type: "string", multiple: true }, json: { type: "boolean" } },
    });
    values = parsed.values;
    positionals = parsed.positionals;
  } catch (error) {
    return { ok: false, errors: [error instanceof Error ? error.message : String(error)] };
  }
  const errors: string[] = [];
  const [graph, ...extra] = positionals;
  if (graph === undefined || graph.trim() === "") {
    errors.push("lint needs the graph file to check: evidence-gate lint GRAPH");
  }
  if (extra.length > 0) {
    errors.push(
      `lint checks one graph file; also got ${extra.map((arg) => JSON.stringify(arg)).join(", ")}: lint them one at a time`,
    );
  }
  const inputs: Record<string, string> = Object.create(null);
  for (const pair of values.input ?? []) {
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
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, flags: { graph: graph!, inputs, json: values.json === true } };
}

/**
 * Runs `lint` and returns the process exit code. Errors and advisories go to `io.out` (they are the
 * command's output), one per line, then `N errors, M advisories`; with `--json`, `io.out` holds only the
 * JSON `{graph, errors: [{nodeId, reason, text}], advisories: [{nodeId, kind, reason, text}]}`. Usage
 * problems go to `io.err`.
 */
export async function runCliLint(argv: readonly string[], io: LintIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(LINT_USAGE);
    return EXIT.passed;
  }
  const parsed = parseLintFlags(argv);
  if (!parsed.ok) {
    io.err.write(`evidence-gate lint: ${parsed.errors.join("\nevidence-gate lint: ")}\n\n${LINT_USAGE}`);
    return EXIT.usage;
  }
  const { graph, inputs, json } = parsed.flags;
  const read = readGraphFile(resolve(io.cwd, graph), graph);
  if (!read.ok) {
    io.err.write(`evidence-gate lint: ${read.error}\n`);
    return EXIT.usage;
  }
  const { errors, advisories } = lintGraph(read.text, graph, { inputs: Object.keys(inputs) });
  io.out.write(json ? renderJson(graph, errors, advisories) : renderLines(errors, advisories));
  return errors.length > 0 ? EXIT.failed : EXIT.passed;
}

function renderLines(errors: readonly GraphIssue[], advisories: readonly Advisory[]): string {
  const lines = [...errors.map(formatIssue), ...advisories.map(formatAdvisory)];
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  lines.push(
    `${count(errors.length, "error", "errors")}, ${count(advisories.length, "advisory", "advisories")}`,
  );
  return `${lines.join("\n")}\n`;
}

function renderJson(graph: string, errors: readonly GraphIssue[], advisories: readonly Advisory[]): string {
  const report = {
    graph,
    errors: errors.map((issue) => ({ ...issue, text: formatIssue(issue) })),
    advisories: advisories.map((advisory) => ({ ...advisory, text: formatAdvisory(advisory) })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

type ReadResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

/** Reads the graph file, or says why not (naming the path as given and as resolved) and what to do. */
function readGraphFile(path: string, given: string): ReadResult {
  const where = path === given ? JSON.stringify(given) : `${JSON.stringify(given)} (${path})`;
  try {
    if (statSync(path).isDirectory()) {
      return { ok: false, error: `${where} is a directory: give the path of a graph file (YAML or JSON)` };
    }
    return { ok: true, text: readFileSync(path, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return {
        ok: false,
        error: `no graph file at ${where}: check the path (it is relative to the current directory)`,
      };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `cannot read the graph file ${where}: ${why}` };
  }
}
