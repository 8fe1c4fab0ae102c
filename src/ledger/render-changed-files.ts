/**
 * The ledger's changed-files section (the `changedFiles` record, `core/changed-files-record.ts`), for the text
 * ledger and the Markdown one (check run summary, job summary): the counts, then at most
 * {@link CHANGED_FILES_SHOWN} paths — those that touch what defines the verify command first, marked, with
 * what changed — then "and N more". Pure; paths are untrusted (a node named them): the Markdown puts them in
 * code spans.
 */
import type { ChangedFile, ChangedFiles } from "../core/changed-files-record.js";
import { codeSpan, escapeInline } from "./markdown-syntax.js";

/** Most paths a rendering lists. */
export const CHANGED_FILES_SHOWN = 30;

/** One listed path: its change, and what it changed in the verify command's definition (`""`: nothing). */
interface ShownFile {
  readonly path: string;
  /** Absent when the flagged path is beyond the record's kept files. */
  readonly status?: ChangedFile["status"];
  /** A rename's path in the starting tree. */
  readonly from?: string;
  readonly flagged: string;
}

/** `3 files changed: 1 added, 2 modified` (statuses with a zero count left out). */
function countWords(record: ChangedFiles): string {
  const parts = (["added", "modified", "deleted", "renamed"] as const)
    .filter((status) => record.counts[status] > 0)
    .map((status) => `${record.counts[status]} ${status}`);
  const files = `${record.total} ${record.total === 1 ? "file" : "files"} changed`;
  return parts.length === 0 ? files : `${files}: ${parts.join(", ")}`;
}

/** The listed paths: the flagged ones first (path order), then the others, at most {@link CHANGED_FILES_SHOWN}. */
function shownFiles(record: ChangedFiles): { readonly shown: ShownFile[]; readonly more: number } {
  const flags = new Map<string, string[]>();
  for (const change of record.verifyDefinition) {
    flags.set(change.path, [...(flags.get(change.path) ?? []), change.detail]);
  }
  const byPath = new Map(record.files.map((file) => [file.path, file]));
  const shownOf = (path: string, file: ChangedFile | undefined, flagged: string): ShownFile => ({
    path,
    ...(file !== undefined ? { status: file.status } : {}),
    ...(file?.from !== undefined ? { from: file.from } : {}),
    flagged,
  });
  const flagged = [...flags.keys()]
    .sort()
    .map((path) => shownOf(path, byPath.get(path), flags.get(path)!.join("; ")));
  const others = record.files.filter((file) => !flags.has(file.path)).map((f) => shownOf(f.path, f, ""));
  const shown = [...flagged, ...others].slice(0, CHANGED_FILES_SHOWN);
  // Every listed path is one of the `total` changes, kept in `files` or not.
  return { shown, more: Math.max(0, record.total - shown.length) };
}

/** The section's headline sentence's flagged part, or `""` when no change is flagged. */
function flaggedWords(record: ChangedFiles): string {
  const n = record.flaggedTotal;
  if (n === 0) return "";
  return `${n} ${n === 1 ? "change touches" : "changes touch"} what the verify command runs`;
}

/** The text ledger's lines: `CHANGED FILES: …`, then one indented line per path (`!` marks a flagged one). */
export function changedFilesText(record: ChangedFiles | undefined): string[] {
  if (record === undefined) return [];
  const flagged = flaggedWords(record);
  const lines = [`CHANGED FILES: ${countWords(record)}${flagged === "" ? "" : ` — ${flagged} (marked !)`}`];
  const { shown, more } = shownFiles(record);
  for (const file of shown) {
    const mark = file.flagged === "" ? " " : "!";
    // The status in a fixed column ("modified" is the longest), a rename's old path after the new one.
    const from = file.from !== undefined ? ` (from ${oneLine(file.from)})` : "";
    const what = file.flagged === "" ? "" : ` — ${oneLine(file.flagged)}`;
    lines.push(`  ${mark} ${(file.status ?? "").padEnd(8)}  ${oneLine(file.path)}${from}${what}`.trimEnd());
  }
  if (more > 0) lines.push(`    … and ${more} more`);
  return lines;
}

/** The Markdown section (`### Changed files`), or `""` when the ledger has no record. */
export function changedFilesMarkdown(record: ChangedFiles | undefined): string {
  if (record === undefined) return "";
  const flagged = flaggedWords(record);
  const lines = [
    "### Changed files",
    "",
    `${escapeInline(countWords(record))}.${flagged === "" ? "" : ` **${escapeInline(flagged)}** (marked ⚠️).`}`,
    "",
  ];
  const { shown, more } = shownFiles(record);
  for (const file of shown) {
    const mark = file.flagged === "" ? "" : "⚠️ ";
    const from = file.from !== undefined ? ` from ${codeSpan(file.from, { inTable: false })}` : "";
    const change = file.status === undefined ? "" : ` (${file.status}${from})`;
    const what = file.flagged === "" ? "" : ` — ${escapeInline(file.flagged)}`;
    lines.push(`- ${mark}${codeSpan(file.path, { inTable: false })}${change}${what}`);
  }
  if (more > 0) lines.push(`- … and ${more} more`);
  return lines.join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}
