/**
 * `evidence-gate lint GRAPH [--input NAME=VALUE]... [--verify-timeout D] [--json]` (SPEC §2, §3, §10): load a graph file,
 * print every error (`invalid graph: …`) and every advisory (`advisory: …`), then a summary line. Free:
 * nothing runs, no model is called. Exit 1 on any error, 0 otherwise (advisories alone pass), 64 on a
 * usage error (bad flags, unreadable file).
 */
import { resolve } from "node:path";
import { fragmentsBeside } from "../graph/fragment-source.js";
import { type Advisory, formatAdvisory, lintGraphFile } from "../graph/lint.js";
import { type FragmentSplice, formatSplice } from "../graph/load.js";
import { formatIssue, type GraphIssue } from "../graph/validate.js";
import { EXIT } from "../local-run/exit-codes.js";
import { refuseUsage } from "../local-run/local-setup.js";
import { VERIFY_TIMEOUT, type VerifyTimeoutFlags } from "./flag-groups.js";
import { readGraphFile } from "./graph-file.js";
import { type Parsed, parseOrExit } from "./parse-command.js";
import { inputFlags, onePositional, parseFlags } from "./shared-flags.js";

/** What `lint` needs of its process: the directory GRAPH is relative to, and where to print. */
export interface LintIo {
  readonly cwd: string;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
}

/** Usage text of `lint`. */
export const LINT_USAGE = `usage: evidence-gate lint GRAPH [--input NAME=VALUE]... [--verify-timeout D] [--json]

  GRAPH                 the graph file (YAML or JSON) to check, with the fragments its use: nodes
                        cite (fragments/NAME.yaml beside it); nothing runs, nothing is billed
  --input NAME=VALUE    an input the run would be given (repeatable); a {{ inputs.NAME }} with no
                        --input is reported as an advisory
  --verify-timeout D    the largest success_check.verify.timeout the graph may declare, as for
                        run --verify-timeout (default 10m)
  --json                print {graph, errors, advisories} as JSON instead of lines

Exit: 0 no errors (advisories alone pass), 1 errors found, 64 usage error.
`;

/**
 * `lint`'s flags, parsed once. `inputs` maps each `--input` name to its value; `verifyTimeoutMs` is the
 * verify timeout ceiling (absent: the graph default, 10m).
 */
export interface LintFlags extends VerifyTimeoutFlags {
  readonly graph: string;
  readonly inputs: Readonly<Record<string, string>>;
  readonly json: boolean;
}

/** Parsed flags, or every usage problem (each names the flag and the fix). */
export type ParsedLintFlags = Parsed<LintFlags>;

/** Parses `lint`'s argv (after the subcommand). */
export function parseLintFlags(argv: readonly string[]): ParsedLintFlags {
  return parseFlags(
    argv,
    { input: { type: "string", multiple: true }, ...VERIFY_TIMEOUT.options, json: { type: "boolean" } },
    true,
    (f, errors) => {
      const graph = onePositional(f, errors, {
        missing: "lint needs the graph file to check: evidence-gate lint GRAPH",
        extra: (others) => `lint checks one graph file; also got ${others}: lint them one at a time`,
      });
      const inputs = inputFlags(f.list("input"), errors);
      const timeout = VERIFY_TIMEOUT.read(f, errors);
      return { graph: graph!, inputs, ...timeout, json: f.bool("json") };
    },
  );
}

/**
 * Runs `lint` and returns the process exit code. The splice disclosure (one `fragment: …` line per
 * resolved `use:`), errors and advisories go to `io.out` (they are the command's output), one per line,
 * then `N errors, M advisories`; with `--json`, `io.out` holds only the JSON `{graph, fragments: [{nodeId,
 * fragment, …, text}], errors: [{nodeId, reason, text}], advisories: [{nodeId, kind, reason, text}]}`. Usage
 * problems go to `io.err`.
 */
export async function runCliLint(argv: readonly string[], io: LintIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "lint", LINT_USAGE, parseLintFlags);
  if ("exit" in parsed) return parsed.exit;
  const { graph, inputs, json, verifyTimeoutMs } = parsed.flags;
  const path = resolve(io.cwd, graph);
  const read = readGraphFile(path, graph);
  if (!read.ok) return refuseUsage(io, "lint", [read.error])!;
  // The spliced graph is what is linted: fragments are read from fragments/NAME.yaml beside the file.
  const { errors, advisories, splices } = await lintGraphFile(
    read.text,
    graph,
    fragmentsBeside(path, graph),
    {
      inputs: Object.keys(inputs),
      ...(verifyTimeoutMs !== undefined ? { verifyTimeoutCeilingMs: verifyTimeoutMs } : {}),
    },
  );
  io.out.write(
    json ? renderJson(graph, errors, advisories, splices) : renderLines(errors, advisories, splices),
  );
  return errors.length > 0 ? EXIT.failed : EXIT.passed;
}

function renderLines(
  errors: readonly GraphIssue[],
  advisories: readonly Advisory[],
  splices: readonly FragmentSplice[],
): string {
  const lines = [...splices.map(formatSplice), ...errors.map(formatIssue), ...advisories.map(formatAdvisory)];
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  lines.push(
    `${count(errors.length, "error", "errors")}, ${count(advisories.length, "advisory", "advisories")}`,
  );
  return `${lines.join("\n")}\n`;
}

function renderJson(
  graph: string,
  errors: readonly GraphIssue[],
  advisories: readonly Advisory[],
  splices: readonly FragmentSplice[],
): string {
  const report = {
    graph,
    fragments: splices.map((splice) => ({ ...splice, text: formatSplice(splice) })),
    errors: errors.map((issue) => ({ ...issue, text: formatIssue(issue) })),
    advisories: advisories.map((advisory) => ({ ...advisory, text: formatAdvisory(advisory) })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
