/**
 * Finding the test report files a verify command wrote (issue 25 item 1; policy key `test-reports`, CLI
 * flag `--test-reports`): glob patterns relative to the command's directory, matched after it ended,
 * bounded however large the tree is. Only files the command itself wrote count (modified at or after it
 * started): a report left by an earlier run would be a guess. A symbolic link is refused (PR code could
 * point one at a file of the runner's), and so is a pattern that leaves the directory.
 */
import { constants, type Dirent } from "node:fs";
import { lstat, open, readdir, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { testReportsPatternProblem } from "../core/test-reports-pattern.js";
import type { ReportsRead } from "./test-receipt.js";
import { readTestReport } from "./test-reports.js";

/** The most report files read per verify. */
export const MAX_REPORT_FILES = 200;
/** The largest report file read, in bytes (16 MiB); a larger one is passed over with that reason. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
/** The most directory entries looked at while matching (the walk stops there, and says so: `truncated`). */
export const MAX_ENTRIES = 50_000;
/** The deepest folder the walk enters, counted from the pattern's fixed prefix (deeper: `truncated`). */
export const MAX_DEPTH = 16;
/** A file's modification time may read up to this much before the command's start (coarse clocks), in ms. */
const CLOCK_SLACK_MS = 100;

/** A pattern as a regular expression over `/`-separated relative paths. */
function patternRegExp(pattern: string): RegExp {
  const segments = pattern.split("/").filter((segment) => segment !== "" && segment !== ".");
  const parts = segments.map((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === "**") return last ? ".*" : "(?:[^/]+/)*";
    const body = segment
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]");
    return last ? body : `${body}/`;
  });
  return new RegExp(`^${parts.join("")}$`);
}

/** The leading segments of `pattern` without a wildcard: the folder the walk starts in. */
function fixedPrefix(pattern: string): string[] {
  const segments = pattern.split("/").filter((segment) => segment !== "" && segment !== ".");
  const fixed: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?]/.test(segment)) break;
    fixed.push(segment);
  }
  return fixed;
}

/**
 * The report files under `cwd` matching `patterns`, read; the ones matched and not read (older than
 * `startedAtMs`, symbolic links, too large) in `passedOver`. A walk that stopped at {@link MAX_ENTRIES},
 * {@link MAX_DEPTH} or {@link MAX_REPORT_FILES} says so in `truncated` (the receipt is then none). Never
 * rejects: an unreadable file is a reading that failed, with its reason.
 */
export async function readTestReportFiles(
  cwd: string,
  patterns: readonly string[],
  startedAtMs: number,
): Promise<ReportsRead> {
  const matched = new Set<string>();
  let budget = MAX_ENTRIES;
  let truncated: string | undefined;
  const stop = (reason: string): void => {
    truncated ??= reason;
  };
  const root = await realpath(cwd).catch(() => null);
  for (const pattern of patterns) {
    if (testReportsPatternProblem(pattern) !== null) continue;
    const regExp = patternRegExp(pattern.trim());
    const start = fixedPrefix(pattern.trim());
    // Without `**` a match is at most as deep as the pattern: deeper folders are not entered.
    const segments = pattern
      .trim()
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".");
    const deepest = segments.includes("**") ? Number.POSITIVE_INFINITY : segments.length - 1;
    const walk = async (relative: string, depth: number): Promise<void> => {
      if (budget <= 0) return stop(`over ${MAX_ENTRIES} directory entries looked at`);
      if (matched.size >= MAX_REPORT_FILES)
        return stop(`${MAX_REPORT_FILES} report files matched, the most read`);
      if (depth > MAX_DEPTH) return stop(`${relative} is deeper than ${MAX_DEPTH} folders`);
      let entries: Dirent[];
      try {
        entries = await readdir(join(cwd, relative), { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (--budget <= 0) return stop(`over ${MAX_ENTRIES} directory entries looked at`);
        if (matched.size >= MAX_REPORT_FILES)
          return stop(`${MAX_REPORT_FILES} report files matched, the most read`);
        const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) {
          // `.git` and `node_modules` only when the pattern names them.
          if ((entry.name === ".git" || entry.name === "node_modules") && !pattern.includes(entry.name))
            continue;
          if (path.split("/").length > deepest) continue;
          await walk(path, depth + 1);
        } else if (regExp.test(path)) {
          matched.add(path);
        }
      }
    };
    // The folder the walk starts in must be inside the command's directory once links are resolved.
    const from = await realpath(join(cwd, ...start)).catch(() => null);
    if (root === null || from === null || (from !== root && !from.startsWith(`${root}${sep}`))) continue;
    await walk(start.join("/"), 0);
  }
  const files: ReportsRead["files"][number][] = [];
  const passedOver: ReportsRead["passedOver"][number][] = [];
  for (const path of [...matched].sort()) {
    const full = join(cwd, path);
    try {
      const stat = await lstat(full);
      if (stat.isSymbolicLink()) {
        passedOver.push({ path, reason: "a symbolic link (not followed)" });
      } else if (!stat.isFile()) {
        passedOver.push({ path, reason: "not a regular file" });
      } else if (stat.mtimeMs < startedAtMs - CLOCK_SLACK_MS) {
        passedOver.push({ path, reason: "older than the verify command (not written by it)" });
      } else if (stat.size > MAX_REPORT_BYTES) {
        files.push({
          path,
          reading: { ok: false, reason: `${stat.size} bytes, over the ${MAX_REPORT_BYTES}-byte limit` },
        });
      } else {
        const text = await readBounded(full, stat, root);
        files.push(
          typeof text === "string"
            ? { path, reading: readTestReport(text) }
            : { path, reading: { ok: false, reason: text.refused } },
        );
      }
    } catch (error) {
      files.push({
        path,
        reading: {
          ok: false,
          reason: `could not be read: ${error instanceof Error ? error.message : String(error)}`,
        },
      });
    }
  }
  return { patterns, files, passedOver, ...(truncated !== undefined ? { truncated } : {}) };
}

/**
 * A file's text, at most `checked.size` bytes read (its size when checked; it may have grown since), or
 * why it was refused: the file opened must be the one `lstat` checked (opened without following a final
 * symbolic link, the same device and inode), and its real path inside `root` (a folder on the way swapped
 * for a link after the walk would lead elsewhere).
 */
async function readBounded(
  path: string,
  checked: { readonly dev: number; readonly ino: number; readonly size: number },
  root: string | null,
): Promise<string | { readonly refused: string }> {
  const real = await realpath(path);
  if (root === null || !real.startsWith(`${root}${sep}`)) {
    return { refused: "its real path leads outside the command's directory (not read)" };
  }
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) {
      return { refused: "it changed between being checked and being opened (not read)" };
    }
    const buffer = Buffer.alloc(Math.min(checked.size, MAX_REPORT_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
