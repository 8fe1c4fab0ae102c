/**
 * Child output echoed to the runner log is fenced from the workflow-command parser (SPEC §9;
 * research/security.md §4.7): between `::stop-commands::TOKEN` and `::TOKEN::` the runner ignores
 * `::set-output`, `::add-mask::`, `::error` and friends. The token must be random per fence and unknown to
 * the child, so the child cannot resume command processing early.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CommandFence } from "../../src/proc/command-fence.js";
import { EchoBudget } from "../../src/proc/echo-budget.js";
import { type RunProcessOptions, runProcess } from "../../src/proc/run-process.js";
import { eventually, killLeftovers, minimalEnv, parsePid, processIsGone } from "./process-probe.js";

const workDir = mkdtempSync(join(tmpdir(), "eg-command-fence-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** What a hostile build prints: workflow commands, and guesses at ending the fence. */
const HOSTILE_STDOUT = [
  "::set-output name=x::y",
  "::add-mask::z",
  "::error::boom",
  "  ::warning file=README.md,line=1::indented still parses",
  "##[group]legacy form",
  "::stop-commands::",
  "::stop-commands::eg-",
  "::stop-commands::eg-00000000000000000000000000000000",
  "::eg-00000000000000000000000000000000::",
  "::eg-::",
  "::::",
  "::pause-logging::",
];
const HOSTILE_STDERR = ["::error file=src/a.ts,line=1::from stderr", "::add-mask::from-stderr"];

/** A node child that prints the hostile lines, then its whole environment and argv (to show no token). */
const HOSTILE_SCRIPT = `
for (const l of ${JSON.stringify(HOSTILE_STDOUT)}) process.stdout.write(l + "\\n");
for (const l of ${JSON.stringify(HOSTILE_STDERR)}) process.stderr.write(l + "\\n");
process.stdout.write("ENV " + JSON.stringify(process.env) + "\\n");
process.stdout.write("ARGV " + JSON.stringify(process.argv) + "\\n");
process.stdout.write("LAST CHILD LINE\\n");
`;

async function echoRun(
  fenceWorkflowCommands: boolean,
  extra: Partial<RunProcessOptions> = {},
): Promise<{ log: string; kind: string }> {
  let log = "";
  const result = await runProcess({
    command: process.execPath,
    args: ["-e", HOSTILE_SCRIPT],
    cwd: workDir,
    env: minimalEnv(),
    echo: { write: (text) => (log += text), fenceWorkflowCommands },
    ...extra,
  });
  return { log, kind: result.kind };
}

/** Splits an echoed log into lines, requiring that it ends with a newline. */
function logLines(log: string): string[] {
  expect(log.endsWith("\n")).toBe(true);
  return log.slice(0, -1).split("\n");
}

const OPEN = /^::stop-commands::(.+)$/;

/** The token of a fenced log, asserting the fence's shape: open first, close last, nothing else. */
function fenceToken(lines: readonly string[]): string {
  const open = OPEN.exec(lines[0] ?? "");
  expect(open, `first line: ${lines[0]}`).not.toBeNull();
  const token = open![1]!;
  expect(lines.at(-1)).toBe(`::${token}::`);
  return token;
}

describe("fencing on", () => {
  it("every child line sits strictly between ::stop-commands::TOKEN and ::TOKEN::", async () => {
    const { log, kind } = await echoRun(true);
    expect(kind).toBe("exited");
    const lines = logLines(log);
    fenceToken(lines);
    const inside = lines.slice(1, -1);
    for (const line of [...HOSTILE_STDOUT, ...HOSTILE_STDERR, "LAST CHILD LINE"])
      expect(inside).toContain(line);
    // Nothing but child lines inside, so nothing the child printed sits outside.
    expect(inside).toHaveLength(HOSTILE_STDOUT.length + HOSTILE_STDERR.length + 3);
  });

  it("the token is random per run: at least 32 hex characters, different across two runs", async () => {
    const first = fenceToken(logLines((await echoRun(true)).log));
    const second = fenceToken(logLines((await echoRun(true)).log));
    expect(first).toMatch(/[0-9a-f]{32,}/);
    expect(second).toMatch(/[0-9a-f]{32,}/);
    expect(first).not.toBe(second);
  });

  it("the child cannot close the fence early: the closing marker appears once, after the last child line", async () => {
    const lines = logLines((await echoRun(true)).log);
    const token = fenceToken(lines);
    const close = `::${token}::`;
    expect(lines.filter((l) => l.trim() === close)).toHaveLength(1);
    expect(lines.indexOf(close)).toBe(lines.length - 1);
    // The child never saw the token: not in its environment, argv or anything else it printed.
    const childLines = lines.slice(1, -1);
    expect(childLines.some((l) => l.startsWith("ENV "))).toBe(true);
    expect(childLines.filter((l) => l.includes(token))).toEqual([]);
    // And the fence is opened exactly once.
    expect(lines.filter((l) => l === `::stop-commands::${token}`)).toHaveLength(1);
  });

  it("the fence is closed even when the child is killed by its timeout", async () => {
    let log = "";
    const result = await runProcess({
      command: "echo '::set-output name=verdict::pass'; exec sleep 100",
      shell: true,
      cwd: workDir,
      env: minimalEnv(),
      timeoutMs: 1000,
      killGraceMs: 200,
      echo: { write: (text) => (log += text), fenceWorkflowCommands: true },
    });
    expect(result.kind).toBe("timed_out");
    const lines = logLines(log);
    const token = fenceToken(lines);
    expect(lines).toEqual([`::stop-commands::${token}`, "::set-output name=verdict::pass", `::${token}::`]);
  });

  it("a final line without a newline is still echoed inside the fence", async () => {
    let log = "";
    await runProcess({
      command: "printf '::add-mask::tail-without-newline'",
      shell: true,
      cwd: workDir,
      env: minimalEnv(),
      echo: { write: (text) => (log += text), fenceWorkflowCommands: true },
    });
    const lines = logLines(log);
    const token = fenceToken(lines);
    expect(lines).toEqual([`::stop-commands::${token}`, "::add-mask::tail-without-newline", `::${token}::`]);
  });

  it("a child that prints nothing leaves no markers", async () => {
    let log = "";
    const result = await runProcess({
      command: "true",
      cwd: workDir,
      env: minimalEnv(),
      echo: { write: (text) => (log += text), fenceWorkflowCommands: true },
    });
    expect(result.kind).toBe("exited");
    expect(log).toBe("");
  });

  it("output from an escaped grandchild after the run settles cannot reopen the fence", async () => {
    let log = "";
    // It prints its late line once the run settled (the test writes `go`), not after a guessed sleep.
    const go = join(workDir, "late-mask-go");
    const result = await runProcess({
      command: `setsid sh -c 'echo $$; while [ ! -e ${go} ]; do sleep 0.02; done; echo "::add-mask::late"' & exit 0`,
      shell: true,
      cwd: workDir,
      env: minimalEnv(),
      echo: { write: (text) => (log += text), fenceWorkflowCommands: true },
      // The grandchild holds stdout open: settle without the default 2 s wait for it.
      drainGraceMs: 200,
    });
    expect(result.kind).toBe("exited");
    const settledLog = log;
    const lines = logLines(settledLog);
    const token = fenceToken(lines);
    const escaped = parsePid(lines[1] ?? "");
    writeFileSync(go, "");
    try {
      await eventually(() => processIsGone(escaped), 15_000);
      expect(processIsGone(escaped)).toBe(true);
    } finally {
      killLeftovers([escaped]);
    }
    expect(log).toBe(settledLog);
    expect(lines.at(-1)).toBe(`::${token}::`);
  });
});

describe("fencing off", () => {
  it("child lines are echoed verbatim and nothing else is written: no markers", async () => {
    const { log } = await echoRun(false);
    const lines = logLines(log);
    // stdout and stderr interleave in no fixed order, so compare as sorted multisets. The only
    // stop-commands lines left are the three the child printed itself.
    const childPrinted = [...HOSTILE_STDOUT, ...HOSTILE_STDERR, "LAST CHILD LINE"].sort();
    const echoed = lines.filter((l) => !l.startsWith("ENV ") && !l.startsWith("ARGV ")).sort();
    expect(echoed).toEqual(childPrinted);
    expect(lines).toHaveLength(childPrinted.length + 2);
  });
});

describe("CommandFence", () => {
  it("close without any line writes nothing, and closing twice writes one marker", () => {
    const written: string[] = [];
    const fence = new CommandFence((t) => written.push(t), true);
    fence.close();
    expect(written).toEqual([]);
    fence.line("::error::x");
    fence.close();
    fence.close();
    expect(written).toHaveLength(3);
    expect(written[0]).toMatch(/^::stop-commands::eg-[0-9a-f]{32}\n$/);
    expect(written[1]).toBe("::error::x\n");
    expect(written[2]).toBe(`::${written[0]!.slice("::stop-commands::".length, -1)}::\n`);
  });

  it("two fences never share a token", () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const written: string[] = [];
      new CommandFence((t) => written.push(t), true).line("x");
      tokens.add(written[0]!);
    }
    expect(tokens.size).toBe(100);
  });

  it("disabled, it echoes lines and never writes a marker", () => {
    const written: string[] = [];
    const fence = new CommandFence((t) => written.push(t), false);
    fence.line("::set-output name=x::y");
    fence.close();
    expect(written).toEqual(["::set-output name=x::y\n"]);
  });

  it("with a budget (a model CLI's stderr, line by line), at most the limit of lines reach the log, then the marker and the last lines inside the fence", () => {
    const written: string[] = [];
    const fence = new CommandFence((t) => written.push(t), true, new EchoBudget(1024));
    for (let i = 1; i <= 10_000; i++) fence.line(`line ${i} ::set-output name=x::${i}`);
    fence.close();
    const text = written.join("");
    const token = /^::stop-commands::(eg-[0-9a-f]{32})\n/.exec(text)?.[1];
    expect(token).toBeDefined();
    expect(text.endsWith(`line 10000 ::set-output name=x::10000\n::${token}::\n`)).toBe(true);
    const marker = /\[evidence-gate: (\d+) bytes of this command's output left out of the log here/.exec(
      text,
    );
    expect(marker).not.toBeNull();
    const body = text.slice(text.indexOf("\n") + 1, text.lastIndexOf(`::${token}::`));
    const all = Array.from(
      { length: 10_000 },
      (_, i) => `line ${i + 1} ::set-output name=x::${i + 1}\n`,
    ).join("");
    const markerLine = body.slice(
      body.indexOf("[evidence-gate"),
      body.indexOf("\n", body.indexOf("[evidence-gate")) + 1,
    );
    expect(body.length - markerLine.length).toBeLessThanOrEqual(1024);
    expect(body.length - markerLine.length + Number(marker![1])).toBe(all.length);
    // Only the two fence markers are outside: every line of the child's is inside the fence.
    expect(
      text.split("\n").filter((l) => l.startsWith(`::${token}`) || l.startsWith("::stop-commands")),
    ).toHaveLength(2);
  });
});
