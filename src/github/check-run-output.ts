/**
 * A check run's `output` within GitHub's limits (https://docs.github.com/rest/checks/runs): the title, the
 * summary and text, and the annotations, each redacted and cut before it leaves the process.
 *
 * - `output.summary` and `output.text` ≤ 65535 UTF-8 bytes (GitHub counts bytes: github/docs#35252).
 *   Callers cut with the ledger renderer; a text that still arrives too long is cut here with a visible
 *   notice and a warning, so the verdict is posted rather than refused with 422.
 * - `output.title` is clamped to {@link CHECK_RUN_TITLE_MAX_CHARS}.
 * - `output.annotations` go at most {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} per request ("To create more
 *   than 50 annotations, you have to make multiple requests to the Update a check run endpoint").
 */
import { CHECK_RUN_TEXT_MAX_BYTES, truncateUtf8, utf8Bytes } from "../ledger/byte-budget.js";

export { CHECK_RUN_TEXT_MAX_BYTES };

export const CHECK_RUN_TITLE_MAX_CHARS = 255;
/** "The Checks API limits the number of annotations to a maximum of 50 per API request." */
export const CHECK_RUN_ANNOTATIONS_PER_REQUEST = 50;
/**
 * An annotation's `message` and `raw_details`: "The maximum size is 64 KB". Cut to 64 000 UTF-8 bytes, which
 * is within the limit whichever kilobyte GitHub means.
 */
export const ANNOTATION_TEXT_MAX_BYTES = 64_000;

/** One line range of one file, marked on the check run and in the pull request's "Files changed". */
export interface CheckRunAnnotation {
  /** Repository-relative path with `/` separators, e.g. `src/sum.ts` or `.github/workflows/gate.yml`. */
  readonly path: string;
  /** 1-based. */
  readonly startLine: number;
  readonly endLine: number;
  /** 1-based; sent only when the annotation is on one line (GitHub refuses columns across lines). */
  readonly startColumn?: number;
  readonly endColumn?: number;
  readonly level: "notice" | "warning" | "failure";
  /** Cut to {@link ANNOTATION_TEXT_MAX_BYTES}. */
  readonly message: string;
  /** Cut to 255 characters. */
  readonly title?: string;
  /** Cut to {@link ANNOTATION_TEXT_MAX_BYTES}. */
  readonly rawDetails?: string;
}

/** The output fields every write replaces: title and summary, optionally the text. */
export interface CheckRunOutputInput {
  readonly title: string;
  readonly summary: string;
  readonly text?: string;
}

/** How output leaves the process: `redact` is applied to every text, `warn` told of a defensive cut. */
export interface OutputShaping {
  readonly redact: (text: string) => string;
  readonly warn: (message: string) => void;
}

const OVERSIZE_NOTICE =
  "**Cut by evidence-gate:** this text exceeded GitHub's 65535-byte limit for check runs. " +
  "The full ledger is in the job summary and the run's ledger artifact.";

/** `output.title` clamped to 255 characters (code points), ending in `…` when cut. */
export function clampCheckRunTitle(title: string): string {
  const chars = Array.from(title);
  if (chars.length <= CHECK_RUN_TITLE_MAX_CHARS) return title;
  return `${chars.slice(0, CHECK_RUN_TITLE_MAX_CHARS - 1).join("")}…`;
}

/** `items` in consecutive batches of at most {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST}. */
export function annotationBatches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST)
    out.push(items.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  return out;
}

/** GitHub's `output` object: redacted, the title clamped, summary and text cut to their byte limit. */
export function checkRunOutput(
  input: CheckRunOutputInput,
  shaping: OutputShaping,
): { title: string; summary: string; text?: string } {
  const { redact } = shaping;
  return {
    title: clampCheckRunTitle(redact(input.title)),
    summary: cutToLimit("summary", redact(input.summary), shaping.warn),
    ...(input.text === undefined ? {} : { text: cutToLimit("text", redact(input.text), shaping.warn) }),
  };
}

/** GitHub's annotation object: redacted, cut to its limits, columns only on one line. */
export function annotationObject(
  a: CheckRunAnnotation,
  redact: (text: string) => string,
): Record<string, unknown> {
  const oneLine = a.startLine === a.endLine;
  const cut = (text: string) =>
    truncateUtf8(redact(text), ANNOTATION_TEXT_MAX_BYTES, "… (cut by evidence-gate: over 64 KB)");
  return {
    path: a.path,
    start_line: a.startLine,
    end_line: a.endLine,
    ...(oneLine && a.startColumn !== undefined ? { start_column: a.startColumn } : {}),
    ...(oneLine && a.endColumn !== undefined ? { end_column: a.endColumn } : {}),
    annotation_level: a.level,
    message: cut(a.message),
    ...(a.title === undefined ? {} : { title: clampCheckRunTitle(redact(a.title)) }),
    ...(a.rawDetails === undefined ? {} : { raw_details: cut(a.rawDetails) }),
  };
}

/** The defensive byte cut; the ledger renderer should already have cut (and said where the rest is). */
function cutToLimit(field: "summary" | "text", value: string, warn: (message: string) => void): string {
  const bytes = utf8Bytes(value);
  if (bytes <= CHECK_RUN_TEXT_MAX_BYTES) return value;
  warn(
    `check run output.${field} was ${bytes} bytes, over GitHub's ${CHECK_RUN_TEXT_MAX_BYTES}; cut here with a notice ` +
      "(the caller should have cut it with the ledger renderer).",
  );
  return truncateUtf8(value, CHECK_RUN_TEXT_MAX_BYTES, OVERSIZE_NOTICE);
}
