/**
 * The check run's annotations for a finished ledger (SPEC §6; peers.md table (b) case 12): each failed
 * execution is marked where its output says the problem is — a `file:line[:col]`, `file(line[,col])` or
 * Python `File "f", line N` that names a file of the repository — and, when its output names none, on the
 * workflow file, so every failure shows in "Files changed" and the Checks tab. Pure apart from the
 * `isFile` probe; batching to GitHub's 50 per request is the client's job (`CheckRunClient.complete`).
 *
 * Formats recognised (common compilers and test runners): `src/x.ts:12:5` (tsc --pretty false on Unix
 * runners is `src/x.ts(12,5)`, eslint, gcc/clang, go, rustc `--> src/main.rs:3:9`, vitest/jest frames
 * `at f (src/x.ts:12:5)` / `❯ test/x.test.ts:7:3`), `Foo.cs(12,5)` (MSBuild, tsc), and pytest/Python
 * tracebacks. A candidate counts only when it is a file inside the repository (never under
 * `node_modules/`), resolved against the verify command's working directory.
 */

import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { LedgerRow } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import type { Ledger } from "../ledger/ledger.js";
import type { CheckRunAnnotation } from "./check-run.js";

/** Locations marked per failed execution (the first ones its output names). */
export const MAX_LOCATIONS_PER_ROW = 10;
/** Annotations per run, at most (5 requests of 50). */
export const MAX_ANNOTATIONS = 250;
/** Output lines quoted in an annotation's details. */
const DETAIL_LINES = 40;

export interface FailureAnnotationsOptions {
  /** Absolute path of the checkout (`GITHUB_WORKSPACE`): annotation paths are relative to it. */
  readonly repoRoot: string;
  /** Repository-relative workflow file ({@link workflowFileFromEnv}); `null`: rows naming no file get none. */
  readonly workflowFile: string | null;
  /** Whether an absolute path is a regular file. Default: `fs.statSync`. */
  readonly isFile?: (path: string) => boolean;
}

/** A place an output line names: a path as written, 1-based line and optional column. */
export interface NamedLocation {
  readonly path: string;
  readonly line: number;
  readonly column?: number;
  /** The output line it was found on. */
  readonly text: string;
}

// The path starts where no path character (or `:`) precedes it, so `https://h:3000/a.js:1:2` and
// `node:internal/x:1:2` name nothing; it must end in `.ext`.
const PATH = String.raw`(?<![\w.:/\\@+~-])((?:[A-Za-z]:[\\/])?[\w.@+~/\\-]*[\w-]\.[A-Za-z][\w]*)`;
const COLON_FORM = new RegExp(`${PATH}:(\\d+)(?::(\\d+))?`, "g");
const PAREN_FORM = new RegExp(`${PATH}\\((\\d+)(?:,\\s*(\\d+))?\\)`, "g");
const PYTHON_FORM = /File "([^"]+)", line (\d+)/g;

/** Every location `output` names, in the order they appear (per line: the leftmost first). */
export function namedLocations(output: string): NamedLocation[] {
  const found: NamedLocation[] = [];
  for (const rawLine of output.split(/\r?\n/)) {
    // Colour codes out; `file:///abs/x.js:3:1` (Node's ESM stack frames) read as the path it names.
    const line = stripVTControlCharacters(rawLine).replace(/\bfile:\/\//g, "");
    const hits: { index: number; location: NamedLocation }[] = [];
    for (const form of [COLON_FORM, PAREN_FORM, PYTHON_FORM]) {
      for (const m of line.matchAll(form)) {
        const lineNo = Number(m[2]);
        if (!Number.isSafeInteger(lineNo) || lineNo < 1) continue;
        const column = m[3] === undefined ? undefined : Number(m[3]);
        hits.push({
          index: m.index ?? 0,
          location: {
            path: m[1]!,
            line: lineNo,
            ...(column !== undefined && column >= 1 ? { column } : {}),
            text: line.trim(),
          },
        });
      }
    }
    hits.sort((a, b) => a.index - b.index);
    for (const hit of hits) found.push(hit.location);
  }
  return found;
}

/**
 * The workflow file of the running job, repository-relative (`.github/workflows/gate.yml`), from the
 * runner's `GITHUB_WORKFLOW_REF` (`owner/repo/.github/workflows/gate.yml@refs/pull/42/merge`); `null`
 * when it is unset or has another shape.
 */
export function workflowFileFromEnv(env: Readonly<Record<string, string | undefined>>): string | null {
  const ref = env.GITHUB_WORKFLOW_REF?.trim();
  if (ref === undefined || ref === "") return null;
  const m = /^[^/]+\/[^/]+\/(\.github\/workflows\/[^@]+)@/.exec(ref);
  return m === null ? null : m[1]!;
}

/**
 * One or more `failure` annotations per failed execution of `ledger` (a FAIL row that still decides the
 * run, or any row whose verification did not pass): at most {@link MAX_LOCATIONS_PER_ROW} distinct files
 * and lines its verify output (else its detail) names inside `repoRoot`, else one on `workflowFile`
 * line 1. At most {@link MAX_ANNOTATIONS} in all. `[]` for a run without failures.
 */
export function failureAnnotations(ledger: Ledger, options: FailureAnnotationsOptions): CheckRunAnnotation[] {
  const isFile = options.isFile ?? defaultIsFile;
  const root = resolve(options.repoRoot);
  const annotations: CheckRunAnnotation[] = [];
  ledger.rows.forEach((row, i) => {
    if (!failed(ledger.rows, i)) return;
    const label = row.label ?? row.nodeId;
    const title = `evidence-gate: ${label} ${failureWords(row)}`;
    const output = row.verify?.outputTail ?? "";
    const details = lastLines(output === "" ? row.detail : output, DETAIL_LINES);
    const base = row.verify?.cwd ?? root;
    const seen = new Set<string>();
    let marked = 0;
    for (const location of namedLocations(`${output}\n${row.detail}`)) {
      if (marked >= MAX_LOCATIONS_PER_ROW) break;
      const path = repositoryPath(location.path, base, root, isFile);
      if (path === null) continue;
      const key = `${path}:${location.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      marked += 1;
      annotations.push({
        path,
        startLine: location.line,
        endLine: location.line,
        ...(location.column === undefined
          ? {}
          : { startColumn: location.column, endColumn: location.column }),
        level: "failure",
        title,
        message: `${label} ${failureWords(row)}. The output names this line:\n${location.text}`,
        ...(details === "" ? {} : { rawDetails: details }),
      });
    }
    if (marked === 0 && options.workflowFile !== null) {
      annotations.push({
        path: options.workflowFile,
        startLine: 1,
        endLine: 1,
        level: "failure",
        title,
        message: `${label} ${failureWords(row)}. Its output names no file of the repository; the ledger on this check run has the details.`,
        ...(details === "" ? {} : { rawDetails: details }),
      });
    }
  });
  return annotations.slice(0, MAX_ANNOTATIONS);
}

/** Row `i` failed and still counts: FAIL not replaced by a later execution, or a verification that failed. */
function failed(rows: readonly LedgerRow[], i: number): boolean {
  const row = rows[i]!;
  const replaced = rows.slice(i + 1).some((later) => later.nodeId === row.nodeId);
  if (row.verdict === "FAIL") return !(row.superseded === true && replaced);
  return row.verify !== undefined && row.verify.outcome !== "passed" && !replaced;
}

function failureWords(row: LedgerRow): string {
  const verify = row.verify;
  if (verify !== undefined && verify.outcome !== "passed") {
    const how =
      verify.outcome === "timed_out"
        ? "timed out"
        : verify.outcome === "spawn_failed"
          ? "could not start"
          : `exited ${verify.exitCode ?? "?"} (expected ${verify.expectExit})`;
    return `failed: verify command \`${shownCommand(verify.command)}\` ${how}`;
  }
  return row.verdict === "FAIL" ? `failed (${row.cause.replace(/_/g, " ")})` : "failed";
}

/** `written` as a repository-relative `/` path of an existing file outside `node_modules`, or `null`. */
function repositoryPath(
  written: string,
  base: string,
  root: string,
  isFile: (path: string) => boolean,
): string | null {
  const absolute = resolve(base, written);
  const rel = relative(root, absolute);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  const path = rel.split(sep).join("/");
  if (path.split("/").includes("node_modules") || path.startsWith(".git/")) return null;
  return isFile(absolute) ? path : null;
}

function defaultIsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function lastLines(text: string, n: number): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  return lines.slice(-n).join("\n");
}
