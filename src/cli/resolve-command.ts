/**
 * `evidence-gate resolve GRAPH [--verify-timeout D]` (SPEC §11): print the graph file with every `use:`
 * fragment spliced in, as JSON — the graph `run` would run and `graph.json` would snapshot (snake_case
 * fields as written, no defaults filled in). Fragments are read from `fragments/NAME.yaml` beside GRAPH.
 * Free: nothing runs. Exit 0 with the JSON on stdout; 1 when the graph does not load (every problem on
 * stderr, as `lint` words them); 64 on a usage error (bad flags, unreadable file).
 */
import { resolve } from "node:path";
import { fragmentsBeside } from "../graph/fragment-source.js";
import { formatIssue } from "../graph/issue.js";
import { formatSplice, loadGraphFile } from "../graph/load.js";
import { EXIT } from "../local-run/exit-codes.js";
import { refuseUsage } from "../local-run/local-setup.js";
import { VERIFY_TIMEOUT, type VerifyTimeoutFlags } from "./flag-groups.js";
import { readGraphFile } from "./graph-file.js";
import { type Parsed, parseOrExit } from "./parse-command.js";
import { onePositional, parseFlags } from "./shared-flags.js";

/** What `resolve` needs of its process: the directory GRAPH is relative to, and where to print. */
export interface ResolveIo {
  readonly cwd: string;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
}

/** Usage text of `resolve`. */
export const RESOLVE_USAGE = `usage: evidence-gate resolve GRAPH [--verify-timeout D]

  GRAPH                 the graph file (YAML or JSON); each use: NAME is spliced from
                        fragments/NAME.yaml beside it, and the result printed as JSON
  --verify-timeout D    the largest success_check.verify.timeout the graph may declare, as for
                        run --verify-timeout (default 10m)

Exit: 0 printed, 1 the graph does not load (every problem on stderr), 64 usage error.
`;

/** `resolve`'s flags, parsed once: the graph path as given, and the verify timeout ceiling (ms). */
export interface ResolveFlags extends VerifyTimeoutFlags {
  readonly graph: string;
}

/** Parses `resolve`'s argv (after the subcommand): flags, or every usage problem. */
export function parseResolveFlags(argv: readonly string[]): Parsed<ResolveFlags> {
  return parseFlags(argv, { ...VERIFY_TIMEOUT.options }, true, (f, errors) => {
    const graph = onePositional(f, errors, {
      missing: "resolve needs the graph file to splice: evidence-gate resolve GRAPH",
      extra: (others) => `resolve prints one graph file; also got ${others}: resolve them one at a time`,
    });
    return { graph: graph!, ...VERIFY_TIMEOUT.read(f, errors) };
  });
}

/**
 * Runs `resolve` and returns the process exit code: the spliced graph's spec as indented JSON on
 * `io.out` (with the splice disclosure, one `fragment: …` line per resolved `use:`, on `io.err`), or each `invalid graph: …` line and a count on `io.err`.
 */
export async function runCliResolve(argv: readonly string[], io: ResolveIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "resolve", RESOLVE_USAGE, parseResolveFlags);
  if ("exit" in parsed) return parsed.exit;
  const { graph, verifyTimeoutMs } = parsed.flags;
  const path = resolve(io.cwd, graph);
  const read = readGraphFile(path, graph);
  if (!read.ok) return refuseUsage(io, "resolve", [read.error])!;
  const loaded = await loadGraphFile(read.text, graph, fragmentsBeside(path, graph), {
    ...(verifyTimeoutMs !== undefined ? { verifyTimeoutCeilingMs: verifyTimeoutMs } : {}),
  });
  if (!loaded.ok) {
    const n = loaded.issues.length;
    io.err.write(
      `${[...loaded.issues.map(formatIssue), `${n} ${n === 1 ? "error" : "errors"}: ${graph} does not load`].join("\n")}\n`,
    );
    return EXIT.failed;
  }
  // The disclosure goes to stderr, so stdout stays the spliced spec, parseable as JSON.
  for (const splice of loaded.splices) io.err.write(`${formatSplice(splice)}\n`);
  io.out.write(`${JSON.stringify(loaded.graph.spec, null, 2)}\n`);
  return EXIT.passed;
}
