/**
 * Large output through the exec seam (SPEC §9: output is kept bounded), with real children: one line of
 * 100 MB with no newline (which the seam once held whole, re-splitting it on every pipe read) and many
 * short lines. The timeouts only bound a broken test; nothing asserts how long anything took.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type OutputPiece,
  type ProcessResult,
  type RunProcessOptions,
  runProcess,
} from "../../src/proc/run-process.js";
import { minimalEnv } from "./process-probe.js";

const workDir = mkdtempSync(join(tmpdir(), "eg-large-output-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const MB = 1_000_000;
/** A shell command printing `bytes` bytes of `x` with no newline, then `END` and a newline. */
const oneLine = (bytes: number) => `head -c ${bytes} /dev/zero | tr '\\0' x; echo END`;

/** Runs a shell command as these tests do: a minimal environment, a 2-minute bound for a broken test. */
function sh(command: string, extra: Partial<RunProcessOptions>): Promise<ProcessResult> {
  return runProcess({ command, shell: true, cwd: workDir, env: minimalEnv(), timeoutMs: 120_000, ...extra });
}

function exited(result: ProcessResult): Extract<ProcessResult, { kind: "exited" }> {
  expect(result, JSON.stringify(result).slice(0, 500)).toMatchObject({ kind: "exited", exitCode: 0 });
  return result as Extract<ProcessResult, { kind: "exited" }>;
}

describe("one 100 MB line", () => {
  it("reaches a line callback cut to the bound with the count of what was not kept; the tail keeps the end", async () => {
    const seen: string[] = [];
    const result = exited(
      await sh(oneLine(100 * MB), {
        tailBytes: 1024,
        maxLineBytes: 4096,
        onStdoutLine: (line) => seen.push(line),
      }),
    );
    expect(seen).toEqual([
      `${"x".repeat(4096)}[… ${100 * MB + 3 - 4096} more bytes of this line not kept …]`,
    ]);
    expect(result.stdoutTail.endsWith("xxxEND\n")).toBe(true);
    expect(result.stdoutTail).toMatch(/^\[… \d+ earlier bytes not kept …\]\n/);
  }, 130_000);

  it("reaches onOutput as fragments and a final line piece whose bytes add up to the output", async () => {
    let bytes = 0;
    let largest = 0;
    const kinds = new Set<OutputPiece["kind"]>();
    // The stream's last bytes across pieces (a pipe read may end just before "END", so the final piece can
    // be "END\n" alone), and the kind of the final piece: the line's end arrives as a "lines" piece.
    let tail = "";
    let lastKind: OutputPiece["kind"] | null = null;
    exited(
      await sh(oneLine(100 * MB), {
        onOutput: (piece) => {
          bytes += piece.bytes.length;
          largest = Math.max(largest, piece.bytes.length);
          kinds.add(piece.kind);
          tail = (tail + piece.bytes.subarray(-8).toString("latin1")).slice(-8);
          lastKind = piece.kind;
        },
      }),
    );
    expect(bytes).toBe(100 * MB + 4);
    expect([...kinds].sort()).toEqual(["fragment", "lines"]);
    expect(tail).toBe("xxxxEND\n");
    expect(lastKind).toBe("lines");
    // A piece is at most the 64 KiB line bound plus one pipe read (64 KiB on Linux).
    expect(largest).toBeLessThanOrEqual(2 * 64 * 1024);
  }, 130_000);

  it("is echoed inside the fence, which still opens and closes on lines of their own", async () => {
    let echoed = 0;
    let first = "";
    let end = "";
    await sh(`${oneLine(100 * MB)}; printf '::add-mask::unterminated'`, {
      echo: {
        write: (text) => {
          if (first === "") first = text;
          echoed += text.length;
          end = (end + text).slice(-200);
        },
        fenceWorkflowCommands: true,
        // Above the output: the whole line is echoed (the bound itself is the next test's).
        limitBytes: 200 * MB,
      },
    });
    const token = /^::stop-commands::(eg-[0-9a-f]{32})\n$/.exec(first)?.[1];
    expect(token).toBeDefined();
    expect(end.endsWith(`xxxEND\n::add-mask::unterminated\n::${token}::\n`)).toBe(true);
    expect(echoed).toBe(
      first.length + 100 * MB + 4 + "::add-mask::unterminated\n".length + `::${token}::\n`.length,
    );
  }, 130_000);
});

describe("bounded in the log (issue 21 item 5: a verify printing `yes` sent 0.25–0.75 GB to the step log)", () => {
  it("by default 2 MiB reach the echo: the first MiB, a marker naming what was left out, the last MiB, in the fence", async () => {
    let echoed = 0;
    let first = "";
    let head = "";
    let end = "";
    let markers = 0;
    await sh(`${oneLine(100 * MB)}; printf '::add-mask::unterminated'`, {
      echo: {
        write: (text) => {
          if (first === "") first = text;
          else if (head.length < 64) head += text.slice(0, 64);
          if (text.includes("left out of the log")) markers++;
          echoed += text.length;
          end = (end + text).slice(-3 * 1024 * 1024);
        },
        fenceWorkflowCommands: true,
      },
    });
    const token = /^::stop-commands::(eg-[0-9a-f]{32})\n$/.exec(first)?.[1];
    expect(token).toBeDefined();
    const MiB = 1024 * 1024;
    const total = 100 * MB + 4 + "::add-mask::unterminated\n".length;
    // The head (exactly 1 MiB: the line has no newline to cut at), the marker, the last MiB, the fence.
    expect(head.startsWith("x".repeat(64))).toBe(true);
    const marker =
      /\n\[evidence-gate: (\d+) bytes of this command's output left out of the log here \(output-log-limit 2 MiB: about the first and the last 1 MiB are shown\)\]\n/.exec(
        end,
      );
    expect(marker).not.toBeNull();
    expect(markers).toBe(1);
    const leftOut = Number(marker![1]);
    expect(leftOut).toBe(total - 2 * MiB);
    expect(end.endsWith(`xxxEND\n::add-mask::unterminated\n::${token}::\n`)).toBe(true);
    expect(end.slice(marker!.index + marker![0].length).length).toBe(MiB + `::${token}::\n`.length);
    expect(echoed).toBe(first.length + 2 * MiB + 1 + marker![0].length - 1 + `::${token}::\n`.length);
  }, 130_000);

  it("a small limit keeps whole lines: the head ends and the tail starts at a line", async () => {
    let echoed = "";
    await sh("seq 1 100000", {
      echo: {
        write: (text) => {
          echoed += text;
        },
        fenceWorkflowCommands: false,
        limitBytes: 1024,
      },
    });
    const [head, marker, tail, ...rest] = echoed.split(/\n(?=\[evidence-gate)|(?<=shown\)\])\n/);
    expect(rest).toEqual([]);
    expect(head!.split("\n").slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(head!.endsWith("\n") || /\d$/.test(head!)).toBe(true);
    expect(Buffer.byteLength(`${head}\n`)).toBeLessThanOrEqual(512);
    expect(tail!.endsWith("99999\n100000\n")).toBe(true);
    expect(Number(tail!.split("\n")[0]) + 1).toBe(Number(tail!.split("\n")[1]));
    const leftOut = Number(/(\d+) bytes/.exec(marker!)![1]);
    const all = Buffer.byteLength(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(""));
    expect(Buffer.byteLength(`${head}\n`) + leftOut + Buffer.byteLength(tail!)).toBe(all);
  });
});

describe("many short lines", () => {
  it("2 million lines reach the line callback one by one, in order", async () => {
    let count = 0;
    let ordered = true;
    exited(
      await sh("seq 1 2000000", {
        onStdoutLine: (line) => {
          count++;
          if (line !== String(count)) ordered = false;
        },
      }),
    );
    expect(count).toBe(2_000_000);
    expect(ordered).toBe(true);
  }, 130_000);
});
