/**
 * Clearing values from this process's own initial environment (Linux). `/proc/<pid>/environ` shows the
 * environment block the process was started with — the bytes between `env_start` and `env_end` of its
 * memory — not `process.env`: deleting or overwriting a variable from Node allocates new strings and leaves
 * that block as it was, so any process of the same user keeps reading the original values there
 * (research/security.md §4.3; measured: a grandchild read a value from `/proc/$PPID/environ` after the
 * parent deleted it from `process.env`). The block is ordinary memory of the process, so the process can
 * overwrite it itself: the addresses are fields 50 and 51 of `/proc/self/stat` (`env_start`, `env_end`,
 * shown to the process itself), and `/proc/self/mem` opened read-write writes there. Each chosen
 * variable's value bytes are set to NUL; its name stays (`NAME=` followed by NULs, so the value's length
 * still shows). After the write, `/proc/self/environ` is read back and the result says whether every value
 * is gone.
 *
 * What it does not reach: copies elsewhere in this process's memory (the JavaScript strings read before
 * the scrub, readable through `/proc/<pid>/mem` by whoever may ptrace-attach: root, `sudo`, or the same user
 * where Yama's `ptrace_scope` is 0), and the parent's copy (the runner's `Runner.Worker` built the block).
 * On a kernel or sandbox where `/proc/self/mem` is not writable (gVisor, some hardened kernels) the result
 * is `failed` and nothing changed.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/** What {@link scrubInitialEnvironment} did. */
export type ScrubResult =
  /** Every chosen variable's value is now NULs in `/proc/self/environ` (names: those that had a value). */
  | { readonly kind: "scrubbed"; readonly names: readonly string[] }
  /** Not Linux: there is no `/proc/self/mem` to write (the block stays as it was). */
  | { readonly kind: "unsupported"; readonly platform: string }
  /** The block could not be located, written or verified; `reason` names the step (no value is in it). */
  | { readonly kind: "failed"; readonly reason: string };

/** `env_start` and `env_end` of this process (fields 50 and 51 of `/proc/self/stat`, Linux ≥ 3.5). */
function environBounds(): { start: number; end: number } | null {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // Fields after the command name, which sits in parentheses and may itself hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start) return null;
  return { start, end };
}

/** The `[offset, length]` of each chosen variable's value inside `block` (offsets relative to the block). */
function valueSpans(
  block: Buffer,
  chosen: (name: string) => boolean,
): { name: string; at: number; length: number }[] {
  const spans: { name: string; at: number; length: number }[] = [];
  let offset = 0;
  for (const entry of block.toString("latin1").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0 && eq < entry.length - 1 && chosen(entry.slice(0, eq)))
      spans.push({ name: entry.slice(0, eq), at: offset + eq + 1, length: entry.length - eq - 1 });
    offset += entry.length + 1;
  }
  return spans;
}

/** The names among `chosen` that still have a non-empty value in `/proc/self/environ`. */
function stillSet(chosen: (name: string) => boolean): string[] {
  const environ = readFileSync("/proc/self/environ");
  return valueSpans(environ, chosen)
    .filter((span) => environ.subarray(span.at, span.at + span.length).some((byte) => byte !== 0))
    .map((span) => span.name);
}

/**
 * Overwrites, in this process's own initial environment block, the value of every variable whose name
 * `chosen` accepts, so `/proc/<this pid>/environ` no longer shows it. Call it after the values were read
 * (`process.env` then holds empty strings for them). Never throws.
 *
 * @param chosen decides by the variable's name as written in the block (case preserved).
 */
export function scrubInitialEnvironment(
  chosen: (name: string) => boolean,
  platform: string = process.platform,
): ScrubResult {
  if (platform !== "linux") return { kind: "unsupported", platform };
  let step = "reading /proc/self/stat";
  try {
    const bounds = environBounds();
    if (bounds === null) return { kind: "failed", reason: "/proc/self/stat shows no environment bounds" };
    step = "opening /proc/self/mem";
    const fd = openSync("/proc/self/mem", "r+");
    try {
      step = "reading the environment block";
      const block = Buffer.alloc(bounds.end - bounds.start);
      readSync(fd, block, 0, block.length, bounds.start);
      const spans = valueSpans(block, chosen);
      step = "writing the environment block";
      for (const span of spans)
        writeSync(fd, Buffer.alloc(span.length), 0, span.length, bounds.start + span.at);
      step = "reading /proc/self/environ back";
      const left = stillSet(chosen);
      if (left.length > 0)
        return {
          kind: "failed",
          reason: `${left.length} value(s) still show in /proc/self/environ after the write`,
        };
      return { kind: "scrubbed", names: spans.map((span) => span.name) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: "failed", reason: `${step} failed${code ? ` (${code})` : ""}` };
  }
}
