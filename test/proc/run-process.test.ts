/**
 * The exec seam's process state machine (SPEC §9; research/security.md §4.4–4.5), driven with real
 * children: `/bin/sh`, `sleep`, `cat` and this Node binary. Timeouts below only bound a broken test;
 * nothing asserts how long anything took.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ProcessResult, type RunProcessOptions, runProcess } from "../../src/proc/run-process.js";
import { eventually, killLeftovers, minimalEnv, parsePid, processIsGone } from "./process-probe.js";

const workDir = mkdtempSync(join(tmpdir(), "eg-run-process-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Pids a test recorded; SIGKILLed after each test so a failure leaks no sleepers. */
let recorded: number[] = [];
afterEach(() => {
  killLeftovers(recorded);
  recorded = [];
});

function sh(script: string, extra: Partial<RunProcessOptions> = {}): Promise<ProcessResult> {
  return runProcess({ command: script, shell: true, cwd: workDir, env: minimalEnv(), ...extra });
}

function node(script: string, extra: Partial<RunProcessOptions> = {}): Promise<ProcessResult> {
  return runProcess({
    command: process.execPath,
    args: ["-e", script],
    cwd: workDir,
    env: minimalEnv(),
    ...extra,
  });
}

/** Narrows a result to a kind, failing the test with the whole result when it is another. */
function expectKind<K extends ProcessResult["kind"]>(
  result: ProcessResult,
  kind: K,
): Extract<ProcessResult, { kind: K }> {
  expect(result, JSON.stringify(result).slice(0, 2000)).toMatchObject({ kind });
  return result as Extract<ProcessResult, { kind: K }>;
}

const MARKER = /^\[… (\d+) earlier bytes not kept …\]\n/;

describe("exit status", () => {
  it("a zero exit is an exited result with code 0 and the child's output", async () => {
    const result = expectKind(await sh("echo out; echo err >&2"), "exited");
    expect(result.exitCode).toBe(0);
    expect(result.stdoutTail).toBe("out\n");
    expect(result.stderrTail).toBe("err\n");
    expect(result.pid).toEqual(expect.any(Number));
  });

  it("a non-zero exit is a result carrying the exact code, not an error", async () => {
    for (const code of [1, 3, 255]) {
      const result = expectKind(await sh(`exit ${code}`), "exited");
      expect(result.exitCode).toBe(code);
    }
  });

  it("a child killed by a signal is signalled, not exited", async () => {
    const result = expectKind(await sh("kill -KILL $$"), "signalled");
    expect(result.signal).toBe("SIGKILL");
  });

  it("arguments reach the executable verbatim, without a shell", async () => {
    const result = expectKind(
      await node("process.stdout.write(JSON.stringify(process.argv.slice(1)))", {
        args: ["-e", "process.stdout.write(JSON.stringify(process.argv.slice(1)))", "$HOME", "a b", "'q'"],
      }),
      "exited",
    );
    expect(JSON.parse(result.stdoutTail)).toEqual(["$HOME", "a b", "'q'"]);
  });
});

describe("could not run", () => {
  it("a missing executable is spawn_failed, never an exit", async () => {
    const result = expectKind(
      await runProcess({ command: "eg-no-such-executable-7f3a", cwd: workDir, env: minimalEnv() }),
      "spawn_failed",
    );
    expect(result.message).toContain("ENOENT");
  });

  it("a missing working directory is spawn_failed, never an exit", async () => {
    const result = await runProcess({
      command: "/bin/sh",
      args: ["-c", "exit 0"],
      cwd: join(workDir, "does-not-exist"),
      env: minimalEnv(),
    });
    expect(result.kind).toBe("spawn_failed");
  });

  it("a signal aborted before start is a cancellation and spawns nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const sentinel = join(workDir, "spawned-anyway");
    const result = await sh(`touch ${sentinel}`, { signal: controller.signal });
    expect(result.kind).toBe("cancelled");
    expect(existsSync(sentinel)).toBe(false);
  });
});

describe("stdin", () => {
  it("stdin is the null device: cat ends at once with empty output", async () => {
    // The timeout only bounds a regression (a pipe left open would hang cat); it would show as timed_out.
    const result = expectKind(
      await runProcess({ command: "cat", cwd: workDir, env: minimalEnv(), timeoutMs: 20_000 }),
      "exited",
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdoutTail).toBe("");
  });

  it.runIf(process.platform === "linux")("stdin is /dev/null itself", async () => {
    const result = expectKind(await sh("readlink /proc/self/fd/0"), "exited");
    expect(result.stdoutTail).toBe("/dev/null\n");
  });
});

describe("bounded output tails", () => {
  it("1 MiB of stdout keeps at most the limit, ends with the child's last bytes and says what was dropped", async () => {
    const limit = 4096;
    const result = expectKind(
      await node(`process.stdout.write("x".repeat(1024 * 1024) + "\\nTHE-END\\n")`, { tailBytes: limit }),
      "exited",
    );
    const total = 1024 * 1024 + "\nTHE-END\n".length;
    const match = MARKER.exec(result.stdoutTail);
    expect(match).not.toBeNull();
    const kept = result.stdoutTail.slice(match![0].length);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(limit);
    expect(kept.endsWith("x\nTHE-END\n")).toBe(true);
    expect(Number(match![1]) + Buffer.byteLength(kept)).toBe(total);
  });

  it("stderr is bounded the same way, independently of stdout", async () => {
    const result = expectKind(
      await node(
        `process.stderr.write("e".repeat(300000) + "\\nERR-END\\n"); process.stdout.write("small\\n")`,
        { tailBytes: 1000 },
      ),
      "exited",
    );
    expect(result.stdoutTail).toBe("small\n");
    expect(result.stderrTail).toMatch(MARKER);
    expect(result.stderrTail.endsWith("ERR-END\n")).toBe(true);
    expect(Buffer.byteLength(result.stderrTail.replace(MARKER, ""))).toBeLessThanOrEqual(1000);
  });

  it("output within the limit is kept whole with no marker", async () => {
    const result = expectKind(await sh("printf 'a\\nb\\n'", { tailBytes: 4 }), "exited");
    expect(result.stdoutTail).toBe("a\nb\n");
  });

  for (const [name, char] of [
    ["2-byte", "é"],
    ["3-byte", "€"],
    ["4-byte", "🦀"],
  ] as const) {
    it(`a ${name} character cut at the front of the tail is dropped whole, never mangled`, async () => {
      // An odd limit lands mid-character for every multi-byte width.
      const result = expectKind(
        await node(`process.stdout.write(${JSON.stringify(char)}.repeat(50000) + "|END")`, {
          tailBytes: 1001,
        }),
        "exited",
      );
      const kept = result.stdoutTail.replace(MARKER, "");
      expect(kept).not.toContain("\uFFFD");
      expect(kept.endsWith("|END")).toBe(true);
      expect([...kept.slice(0, -"|END".length)].every((c) => c === char)).toBe(true);
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1001);
    });
  }
});

describe("line callbacks", () => {
  it("stdout and stderr lines arrive in order, each on its own callback, without newlines", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const result = await node(
      `for (let i = 0; i < 20000; i++) process.stdout.write("out " + i + "\\n");
       for (let i = 0; i < 500; i++) process.stderr.write("err " + i + "\\r\\n");
       process.stdout.write("no trailing newline")`,
      { onStdoutLine: (l) => out.push(l), onStderrLine: (l) => err.push(l) },
    );
    expectKind(result, "exited");
    expect(out).toEqual([...Array.from({ length: 20000 }, (_, i) => `out ${i}`), "no trailing newline"]);
    expect(err).toEqual(Array.from({ length: 500 }, (_, i) => `err ${i}`));
  });

  it("a multi-byte character split across two pipe reads reaches the line callback intact", async () => {
    const lines: string[] = [];
    // Write "é" (C3 A9) in two halves with a pause between, so the parent reads them separately.
    const result = await node(
      `process.stdout.write(Buffer.from([0x61, 0xc3]));
       setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x62, 0x0a])), 300);`,
      { onStdoutLine: (l) => lines.push(l) },
    );
    expectKind(result, "exited");
    expect(lines).toEqual(["aéb"]);
  });
});

describe("process groups", () => {
  it("a timeout kills the whole process group, grandchildren included", async () => {
    const pids: number[] = [];
    const result = await sh("sleep 100 & echo $!; sleep 100 & echo $!; echo $$; wait", {
      timeoutMs: 1500,
      killGraceMs: 500,
      onStdoutLine: (line) => {
        const pid = parsePid(line);
        pids.push(pid);
        recorded.push(pid);
      },
    });
    const timedOut = expectKind(result, "timed_out");
    expect(timedOut.timeoutMs).toBe(1500);
    expect(pids).toHaveLength(3);
    expect(pids).toContain(timedOut.pid);
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
  });

  it("a grandchild that ignores SIGTERM is still killed after the grace", async () => {
    const pids: number[] = [];
    const result = await sh(`(trap '' TERM; exec sleep 100) & echo $!; wait`, {
      timeoutMs: 1500,
      killGraceMs: 200,
      onStdoutLine: (line) => {
        const pid = parsePid(line);
        pids.push(pid);
        recorded.push(pid);
      },
    });
    expectKind(result, "timed_out");
    expect(pids).toHaveLength(1);
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
  });

  it("aborting the signal cancels the run and kills the whole group", async () => {
    const controller = new AbortController();
    const pids: number[] = [];
    const result = await sh("sleep 100 & echo $!; sleep 100 & echo $!; echo $$; wait", {
      signal: controller.signal,
      killGraceMs: 500,
      timeoutMs: 30_000,
      onStdoutLine: (line) => {
        const pid = parsePid(line);
        pids.push(pid);
        recorded.push(pid);
        if (pids.length === 3) controller.abort();
      },
    });
    expectKind(result, "cancelled");
    expect(pids).toHaveLength(3);
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
  });

  it("a child that exits while a background grandchild holds stdout open still settles, and the grandchild is reaped", async () => {
    const pids: number[] = [];
    // The test timeout bounds this: the seam settles after its drain grace instead of waiting for 'close'.
    const result = await sh("sleep 100 & echo $!; echo parent-done; exit 7", {
      onStdoutLine: (line) => {
        if (/^\d+$/.test(line)) {
          pids.push(parsePid(line));
          recorded.push(...pids);
        }
      },
    });
    const exited = expectKind(result, "exited");
    expect(exited.exitCode).toBe(7);
    expect(exited.stdoutTail).toContain("parent-done\n");
    expect(pids).toHaveLength(1);
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
  });

  it("output arriving after the result settles reaches no callback", async () => {
    // A grandchild that left the group (setsid) survives the group kill and keeps stdout open; whatever
    // it prints after the result must not reach callbacks (or an echo) of a run that already settled.
    const lines: string[] = [];
    let settled = false;
    const lateLines: string[] = [];
    // It prints its late line once the test says the run settled (the file `go`), not after a guessed sleep.
    const go = join(workDir, "late-line-go");
    const result = await sh(
      `setsid sh -c 'echo $$; while [ ! -e ${go} ]; do sleep 0.02; done; echo late-line' & echo early-line; exit 0`,
      {
        onStdoutLine: (line) => {
          (settled ? lateLines : lines).push(line);
        },
        // The grandchild holds stdout open: settle without the default 2 s wait for it (tested above).
        drainGraceMs: 200,
      },
    );
    settled = true;
    writeFileSync(go, "");
    expectKind(result, "exited");
    const escaped = lines.filter((l) => /^\d+$/.test(l)).map(parsePid);
    recorded.push(...escaped);
    expect(escaped).toHaveLength(1);
    expect(lines).toContain("early-line");
    // Wait (bounded) for the escaped process to finish printing and exit.
    await eventually(() => escaped.every(processIsGone), 15_000);
    expect(escaped.filter((pid) => !processIsGone(pid))).toEqual([]);
    expect(lateLines).toEqual([]);
  });
});
