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
    let last: string | null = null;
    exited(
      await sh(oneLine(100 * MB), {
        onOutput: (piece) => {
          bytes += piece.bytes.length;
          largest = Math.max(largest, piece.bytes.length);
          kinds.add(piece.kind);
          if (piece.kind === "lines") last = piece.bytes.subarray(-8).toString("latin1");
        },
      }),
    );
    expect(bytes).toBe(100 * MB + 4);
    expect([...kinds].sort()).toEqual(["fragment", "lines"]);
    expect(last).toBe("xxxxEND\n");
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
