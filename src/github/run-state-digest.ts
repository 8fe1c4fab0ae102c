/**
 * The run-state digest posted on a check run: sha256 of the `state.json` and `graph.json` the engine last
 * wrote, in a hidden Markdown comment at the end of the check run's summary. A node can write into its own
 * run directory (it runs as the same user); it cannot write the check run (it holds no token). So a
 * resumed leg in the action proves the run directory it downloaded is the one the engine wrote, by
 * comparing the files with the digests on the check run, and refuses otherwise (SPEC §8: a resumed leg can
 * never widen a tool policy — nor, through an edited `state.json`, claim rows it never ran).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** The ignored-files baseline's file name in a run directory (the engine's `IGNORED_BASELINE_FILE`). */
const IGNORED_BASELINE = "ignored-baseline.json";

/**
 * sha256 (hex) of the run directory's state files; `null` for a file that was not written. `ignored` is
 * `ignored-baseline.json` — the git-ignored files a resumed leg's verifies are compared with, so a node
 * that rewrote it could hide its own edit of `node_modules/` from the next leg — and `undefined` when the
 * record predates it (a marker or digest file written before 2026-12-06): a resumed leg then does not use
 * the baseline it cannot check.
 */
export interface RunStateDigests {
  readonly state: string | null;
  readonly graph: string | null;
  readonly ignored?: string | null;
}

const MARKER =
  /<!-- evidence-gate-run-state run=(\S+) state=([0-9a-f]{64}|none) graph=([0-9a-f]{64}|none)(?: ignored=([0-9a-f]{64}|none))? -->/g;

/** The hidden comment carrying `digests` for `runId`, for the end of a check run's summary. */
export function runStateDigestMarker(runId: string, digests: RunStateDigests): string {
  const ignored = digests.ignored === undefined ? "" : ` ignored=${digests.ignored ?? "none"}`;
  return `<!-- evidence-gate-run-state run=${runId} state=${digests.state ?? "none"} graph=${digests.graph ?? "none"}${ignored} -->`;
}

/** The digests a check run's summary carries for `runId` (the last marker wins), or `null` when none. */
export function readRunStateDigests(summary: string | null, runId: string): RunStateDigests | null {
  if (summary === null) return null;
  let found: RunStateDigests | null = null;
  for (const match of summary.matchAll(MARKER)) {
    if (match[1] !== runId) continue;
    found = {
      state: match[2] === "none" ? null : match[2]!,
      graph: match[3] === "none" ? null : match[3]!,
      ...(match[4] !== undefined ? { ignored: match[4] === "none" ? null : match[4] } : {}),
    };
  }
  return found;
}

/**
 * Compares a downloaded run directory with the digests its check run carries.
 *
 * @returns `null` when every recorded file matches, else a sentence naming the file that differs (or is
 *   missing).
 */
export function runStateDigestProblem(runDir: string, expected: RunStateDigests): string | null {
  const files: [string, string | null][] = [
    ["state.json", expected.state],
    ["graph.json", expected.graph],
  ];
  if (expected.ignored !== undefined) files.push([IGNORED_BASELINE, expected.ignored]);
  for (const [file, digest] of files) {
    const path = join(runDir, file);
    const actual = existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : null;
    if (actual !== digest) {
      return actual === null
        ? `${file} is missing from the run directory, but the check run records it (sha256 ${digest})`
        : digest === null
          ? `${file} is in the run directory, but the check run records none`
          : `${file} has sha256 ${actual}, but the check run records ${digest}: it was changed after the engine wrote it`;
    }
  }
  return null;
}

/**
 * The file the ledger artifact carries beside `ledger.json` (issue 11): the run's digests, so that the
 * evidence-gate App — which posts the check run when the action does not (`report-to: bot`) — can put the
 * {@link runStateDigestMarker} on it for a later `mode: resume`. It is exactly as trusted as the ledger
 * next to it (the action writes both after the engine ended); the App posts it for same-repository runs only.
 */
export const RUN_STATE_DIGEST_FILE = "run-state-digest.json";

const digestFileSchema = z.strictObject({
  runId: z.string().min(1).max(64),
  state: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  graph: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  ignored: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
});

/** The text of {@link RUN_STATE_DIGEST_FILE} for `runId`. */
export function runStateDigestFileText(runId: string, digests: RunStateDigests): string {
  return `${JSON.stringify({ runId, state: digests.state, graph: digests.graph, ...(digests.ignored !== undefined ? { ignored: digests.ignored } : {}) })}\n`;
}

/**
 * The digests {@link RUN_STATE_DIGEST_FILE}'s text records for `runId`, or `null` when the text is not that
 * file's form (strict: an unknown key, a digest that is not 64 lower-case hex characters) or names another run.
 */
export function parseRunStateDigestFile(text: string, runId: string): RunStateDigests | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = digestFileSchema.safeParse(json);
  if (!parsed.success || parsed.data.runId !== runId) return null;
  return {
    state: parsed.data.state,
    graph: parsed.data.graph,
    ...(parsed.data.ignored !== undefined ? { ignored: parsed.data.ignored } : {}),
  };
}
