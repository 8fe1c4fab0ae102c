import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { BoundedOutput } from "../../src/core/byte-windows.js";
import { type RunVerifyOptions, runVerify, VerifyQueue } from "../../src/evidence/verify.js";
import { VerifyCache } from "../../src/evidence/verify-cache.js";
import { OUTPUT_MATCHES_CAP_BYTES, VERIFY_TAIL_BYTES } from "../../src/evidence/verify-output.js";
import { compilePattern, type Pattern } from "../../src/graph/pattern.js";
import { verifyExitWords } from "../../src/ledger/cells.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { FAILURE_LEDGER, fail, fixtureLedger, verifyEvidence } from "../ledger/fixtures.js";
import { hermeticGitEnv, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

// One repository for the file: no test writes to it (each command's output goes to stdout or `scratch`).
let repo: TempRepo;
let scratch: string;
beforeAll(async () => {
  repo = await makeSampleNodeRepo();
});
afterAll(() => repo.cleanup());
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "evidence-gate-output-matches-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(scratch, { recursive: true, force: true });
});

function pattern(source: string): Pattern {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.pattern;
}

function options(overrides: Partial<RunVerifyOptions>): RunVerifyOptions {
  return verifyOptions(repo.dir, overrides);
}

/** A shell command printing `first`, then ~`kib` KiB of filler lines, then `last`. */
function bulky(first: string, kib: number, last = "THE END"): string {
  return `node -e 'console.log(${JSON.stringify(first)}); for (let i = 0; i < ${kib * 16}; i++) console.log("filler line " + String(i).padStart(51, "0")); console.log(${JSON.stringify(last)})'`;
}

describe("output_matches: the exit code AND the pattern decide", () => {
  it("passes when the exit code is as expected and stdout matches", async () => {
    const evidence = await runVerify(
      options({ command: "echo 'Tests: 42 passed'", outputMatches: pattern("[0-9]+ passed") }),
    );
    expect(evidence).toMatchObject({ outcome: "passed", exitCode: 0 });
    expect(evidence.outputMatches).toEqual({ pattern: "[0-9]+ passed", matched: true });
    expect(evidence.outputTail).not.toContain("did not match");
  });

  it("passes when the match is on stderr", async () => {
    const evidence = await runVerify(
      options({ command: "echo building; echo 'BUILD OK' >&2", outputMatches: pattern("BUILD OK") }),
    );
    expect(evidence.outcome).toBe("passed");
    expect(evidence.outputMatches?.matched).toBe(true);
  });

  it("searches the full output, not the 4 KiB tail: a match in the first line of 100 KiB passes", async () => {
    const evidence = await runVerify(
      options({ command: bulky("MARKER-AT-THE-START", 100), outputMatches: pattern("MARKER-AT-THE-START") }),
    );
    expect(evidence.outputTail).not.toContain("MARKER-AT-THE-START");
    expect(evidence.outputTail).toContain("earlier bytes not kept");
    expect(Buffer.byteLength(evidence.outputTail, "utf8")).toBeLessThanOrEqual(VERIFY_TAIL_BYTES);
    expect(evidence.outcome).toBe("passed");
    expect(evidence.outputMatches).toEqual({ pattern: "MARKER-AT-THE-START", matched: true });
  });

  it("fails when the exit code is as expected but the output does not match, and says so in the tail", async () => {
    const evidence = await runVerify(
      options({ command: "echo 'Tests: 0 run'", outputMatches: pattern("^PASS") }),
    );
    expect(evidence).toMatchObject({ outcome: "failed", exitCode: 0, expectExit: 0 });
    expect(evidence.outputMatches).toEqual({ pattern: "^PASS", matched: false });
    expect(evidence.outputTail).toContain("Tests: 0 run");
    expect(evidence.outputTail.trimEnd().endsWith("[evidence-gate] output did not match /^PASS/")).toBe(true);
    expect(verifyExitWords(evidence)).toBe("exited 0 but its output did not match /^PASS/");
  });

  it("the no-match note survives a long output (the tail keeps its end)", async () => {
    const evidence = await runVerify(
      options({ command: bulky("start", 64), outputMatches: pattern("NEVER") }),
    );
    expect(evidence.outcome).toBe("failed");
    expect(Buffer.byteLength(evidence.outputTail, "utf8")).toBeLessThanOrEqual(VERIFY_TAIL_BYTES);
    expect(evidence.outputTail).toContain("THE END");
    expect(evidence.outputTail).toContain("[evidence-gate] output did not match /NEVER/");
  });

  it("fails on an exit-code mismatch even when the output matches", async () => {
    const evidence = await runVerify(
      options({ command: "echo PASS; exit 1", outputMatches: pattern("PASS") }),
    );
    expect(evidence).toMatchObject({ outcome: "failed", exitCode: 1 });
    expect(evidence.outputMatches).toEqual({ pattern: "PASS", matched: true });
    expect(evidence.outputTail).not.toContain("did not match");
    expect(verifyExitWords(evidence)).toBe("exited 1 (expected 0)");
  });

  it("a non-zero expect_exit with a matching output passes", async () => {
    const evidence = await runVerify(
      options({
        command: "echo 'refused: bad input'; exit 2",
        expectExit: 2,
        outputMatches: pattern("refused"),
      }),
    );
    expect(evidence.outcome).toBe("passed");
  });

  it("a command that could not finish is never a pass, and the pattern is still reported", async () => {
    const evidence = await runVerify(
      options({ command: "echo PASS; sleep 100", timeoutMs: 500, outputMatches: pattern("PASS") }),
    );
    expect(evidence.outcome).toBe("timed_out");
    expect(evidence.outputMatches).toEqual({ pattern: "PASS", matched: true });
  });
});

describe("output_matches uses Go MatchString semantics on the combined output", () => {
  it.each([
    // [command, pattern, passes]
    ["printf 'ok\\nmore\\n'", "^ok$", false],
    ["printf ok", "^ok$", true],
    ["echo ok", "^ok$", false], // "ok\n": `$` is the end of the text, not of a line
    ["echo ok", "^ok\\n$", true],
    ["printf 'ok\\nmore\\n'", "(?m)^ok$", true],
    ["printf 'ok\\r\\n'", "^ok\\n$", true], // lines arrive without their CR LF and are joined by \n
    ["echo out; printf err >&2", "err$", true], // stderr's unterminated last line ends the text
    ["echo err >&2; printf out", "out$", true], // stdout's unterminated line is flushed last
    ["echo PASS", "pass", false], // case-sensitive without (?i)
    ["echo PASS", "(?i)pass", true],
    ["printf ''", "^$", true], // no output is the empty text
  ])("%s with /%s/ → passes: %s", async (command, source, passes) => {
    const evidence = await runVerify(options({ command, outputMatches: pattern(source) }));
    expect(evidence.outputMatches?.matched).toBe(passes);
    expect(evidence.outcome).toBe(passes ? "passed" : "failed");
  });
});

describe("output_matches and the reuse cache", () => {
  it("two sinks with the same tree and command but different patterns do not share a result", async () => {
    const counter = join(scratch, "runs");
    const cache = new VerifyCache();
    const command = `echo ran >> '${counter}'; echo 'Tests: 3 passed'`;

    const first = await runVerify(
      options({ command, outputMatches: pattern("passed"), reuse: { cache, nodeId: "a" } }),
    );
    const second = await runVerify(
      options({ command, outputMatches: pattern("failed"), reuse: { cache, nodeId: "b" } }),
    );
    const none = await runVerify(options({ command, reuse: { cache, nodeId: "c" } }));
    const same = await runVerify(
      options({ command, outputMatches: pattern("passed"), reuse: { cache, nodeId: "d" } }),
    );

    expect(first).toMatchObject({ outcome: "passed", outputMatches: { matched: true } });
    expect(second).toMatchObject({ outcome: "failed", outputMatches: { pattern: "failed", matched: false } });
    expect(second.reusedFrom).toBeUndefined();
    expect(none.reusedFrom).toBeUndefined();
    expect(none.outputMatches).toBeUndefined();
    expect(same).toEqual({ ...first, reusedFrom: "a" });
    expect((await readFile(counter, "utf8")).trim().split("\n")).toHaveLength(3);
  });

  it("VerifyQueue.run passes the request's outputMatches through, and null means none", async () => {
    const queue = new VerifyQueue({ baseEnv: hermeticGitEnv, passThrough: [], knownSecrets: [] });
    const request = { command: "echo 'Tests: 3 passed'", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 };
    const matched = await queue.run({ ...request, nodeId: "a", outputMatches: pattern("3 passed") });
    const unmatched = await queue.run({ ...request, nodeId: "b", outputMatches: pattern("^3 passed") });
    const none = await queue.run({ ...request, nodeId: "c", outputMatches: null });
    expect(matched).toMatchObject({
      outcome: "passed",
      outputMatches: { pattern: "3 passed", matched: true },
    });
    expect(unmatched).toMatchObject({
      outcome: "failed",
      outputMatches: { pattern: "^3 passed", matched: false },
    });
    expect(unmatched.reusedFrom).toBeUndefined();
    expect(none.outcome).toBe("passed");
    expect("outputMatches" in none).toBe(false);
  });
});

describe("without output_matches", () => {
  it("the evidence has no outputMatches field and the output is not buffered beyond the test receipt's 1 MiB", async () => {
    const push = vi.spyOn(BoundedOutput.prototype, "push");
    const evidence = await runVerify(options({ command: bulky("start", 16) }));
    expect(evidence.outcome).toBe("passed");
    expect("outputMatches" in evidence).toBe(false);
    // One buffer only: the receipt's (RECEIPT_OUTPUT_BYTES), not the pattern's 16 MiB one.
    expect(new Set(push.mock.contexts).size).toBe(1);
    push.mockClear();

    // With a pattern, its 16 MiB buffer serves the receipt too: still one copy of the output.
    await runVerify(options({ command: "echo one", outputMatches: pattern("one") }));
    expect(new Set(push.mock.contexts).size).toBe(1);
  });
});

describe("BoundedOutput: the bounded full output a pattern searches", () => {
  it("keeps everything up to the cap, with no marker", () => {
    const out = new BoundedOutput(16);
    out.push(Buffer.from("0123456789"));
    out.push(Buffer.from("abcdef"));
    expect(out.text()).toBe("0123456789abcdef");
    expect(out.droppedBytes).toBe(0);
    expect(out.totalBytes).toBe(16);
  });

  it("beyond the cap keeps the first and last halves, joined by a newline, and counts what it dropped", () => {
    const out = new BoundedOutput(8);
    for (const chunk of ["abc", "def", "ghi", "jkl", "mno"]) out.push(Buffer.from(chunk));
    expect(out.text()).toBe("abcd\nlmno");
    expect(out.droppedBytes).toBe(7);
    expect(out.totalBytes).toBe(15);
  });

  it("starts the kept tail on a whole UTF-8 character", () => {
    const out = new BoundedOutput(6);
    out.push(Buffer.from("abc"));
    out.push(Buffer.from("ééé")); // 6 bytes; the last 3 kept cut the 2nd é in half
    expect(out.text()).toBe("abc\né");
    expect(out.text()).not.toContain("\uFFFD");
  });

  it("stays bounded and in order over many small chunks", () => {
    const out = new BoundedOutput(100);
    let all = "";
    for (let i = 0; i < 5000; i++) {
      const chunk = String.fromCharCode(97 + (i % 26));
      all += chunk;
      out.push(Buffer.from(chunk));
    }
    expect(out.text()).toBe(`${all.slice(0, 50)}\n${all.slice(-50)}`);
    expect(out.droppedBytes).toBe(4900);
    out.push(Buffer.from("end\n"));
    out.dropFinalNewline();
    expect(out.text().endsWith(`${all.slice(-46)}end`)).toBe(true);
  });

  it("dropFinalNewline removes only a final \\n", () => {
    const out = new BoundedOutput(64);
    out.push(Buffer.from("ok\n"));
    out.dropFinalNewline();
    expect(out.text()).toBe("ok");
    out.dropFinalNewline();
    expect(out.text()).toBe("ok");
  });

  it(`over ${OUTPUT_MATCHES_CAP_BYTES / 1024 / 1024} MiB of real output: searched head and tail, truncated, and said so`, async () => {
    // ~20 MiB of 64-byte lines between a first and a last marker, and one in the middle that is dropped.
    const command = `node -e '
      const line = "x".repeat(63) + "\\n";
      const block = line.repeat(1024);
      const out = process.stdout;
      out.write("FIRST-MARKER\\n");
      let i = 0;
      const write = () => {
        while (i < 320) {
          if (i === 160) out.write("MIDDLE-MARKER\\n");
          i++;
          if (!out.write(block)) return out.once("drain", write);
        }
        out.write("LAST-MARKER\\n");
      };
      write();'`;
    const both = await runVerify(
      options({ command, outputMatches: pattern("(?s)FIRST-MARKER.*LAST-MARKER") }),
    );
    expect(both.outcome).toBe("passed");
    expect(both.outputMatches).toEqual({
      pattern: "(?s)FIRST-MARKER.*LAST-MARKER",
      matched: true,
      truncated: true,
    });
    expect(both.outputTail).toContain("[evidence-gate] output_matches searched a truncated output");
    expect(verifyExitWords(both)).toContain("only its first and last 8 MiB were searched");

    const middle = await runVerify(options({ command, outputMatches: pattern("MIDDLE-MARKER") }));
    expect(middle).toMatchObject({ outcome: "failed", outputMatches: { matched: false, truncated: true } });
    expect(middle.outputTail).toContain("output_matches searched a truncated output");
    expect(middle.outputTail).toContain("[evidence-gate] output did not match /MIDDLE-MARKER/");
    expect(verifyExitWords(middle)).toBe(
      "exited 0 but its output did not match /MIDDLE-MARKER/ (only its first and last 8 MiB were searched; the output was longer)",
    );
  }, 30_000);
});

describe("the ledger's words for a verify that failed on its output", () => {
  const unmatched = verifyEvidence({
    outcome: "failed",
    exitCode: 0,
    outputTail: "Tests: 0 run\n[evidence-gate] output did not match /[1-9][0-9]* passed/",
    outputMatches: { pattern: "[1-9][0-9]* passed", matched: false },
  });
  const ledger = fixtureLedger({
    runId: "20260501-150000-0d0e0f",
    runtime: "claude",
    goal: "Make the suite run",
    buildEvidence: { kind: "attached", command: "npm test", declaredBy: "input" },
    nodes: [{ id: "build", dependsOn: [], allowedTools: ["Read"], sink: true }],
    rows: [
      fail("build", {
        cause: "verify_failed",
        sink: true,
        detail: "verify `npm test` exited 0 but its output did not match /[1-9][0-9]* passed/",
        verify: unmatched,
      }),
    ],
    planningCalls: [],
    evidenceTree: FAILURE_LEDGER.evidenceTree,
  });
  const words = "exited 0 but its output did not match /[1-9][0-9]* passed/";

  it("the conclusion, the text and the Markdown ledger say the output did not match, not `exited 0 (expected 0)`", () => {
    expect(ledger.conclusion?.reason).toContain(`it ${words}.`);
    for (const rendered of [renderLedgerText(ledger), renderLedgerMarkdown(ledger)]) {
      expect(rendered).toContain("did not match /");
      expect(rendered).not.toContain("exited 0 (expected 0)");
    }
    expect(renderLedgerText(ledger)).toContain(`result: ${words}`);
  });

  it("the evidence round-trips through the ledger JSON, and a pass says its output matched", () => {
    expect(parseLedgerJson(renderLedgerJson(ledger))).toEqual({ ok: true, ledger });
    const passed = verifyEvidence({ outputMatches: { pattern: "passed", matched: true } });
    expect(verifyExitWords(passed)).toBe("exited 0 (expected 0) and its output matched /passed/");
    expect(verifyExitWords(verifyEvidence())).toBe("exited 0 (expected 0)");
  });
});
