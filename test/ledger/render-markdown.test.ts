import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { codeSpan, escapeCell, fencedBlock } from "../../src/ledger/markdown-syntax.js";
import {
  CHECK_RUN_TITLE_MAX_CHARS,
  clampTitle,
  renderCheckRunOutput,
  renderLedgerMarkdown,
  TRIMMED_NOTICE,
} from "../../src/ledger/render-markdown.js";
import {
  FAILURE_LEDGER,
  fixtureLedger,
  NEUTRAL_LEDGER,
  NONE_DETECTED,
  OTHER_TREE,
  pass,
  SUCCESS_LEDGER,
  verifiedSink,
} from "./fixtures.js";

const LIMIT = 65_535;
const bytes = (text: string): number => new TextEncoder().encode(text).length;
const strict = new TextDecoder("utf-8", { fatal: true });

/** The cells of a GFM table row, split the way GFM splits them: on pipes not preceded by a backslash. */
function cells(row: string): string[] {
  return row
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

function tableRow(markdown: string, nodeId: string): string {
  const row = markdown.split("\n").find((line) => line.startsWith(`| \`${nodeId}\` |`));
  if (row === undefined) throw new Error(`no table row for ${nodeId}`);
  return row;
}

describe("renderLedgerMarkdown", () => {
  it("a | or a line break in a detail cell cannot add a column or end the row", () => {
    const ledger = fixtureLedger({
      runId: "20260501-150000-abcdef",
      runtime: "claude",
      goal: "g",
      buildEvidence: NONE_DETECTED,
      nodes: [{ id: "n", dependsOn: [], allowedTools: [], sink: true }],
      rows: [pass("n", { sink: true, detail: "a | b\nc || d \\| e" })],
      planningCalls: [],
      evidenceTree: null,
    });
    const row = tableRow(renderLedgerMarkdown(ledger), "n");
    expect(cells(row)).toHaveLength(7);
    expect(cells(row)[6]).toBe("a \\| b<br>c \\|\\| d \\\\\\| e");
  });

  it("escapes HTML and Markdown in untrusted cell text", () => {
    expect(escapeCell("<img src=x> *bold* [link](u) `code`")).toBe(
      "&lt;img src=x&gt; \\*bold\\* \\[link\\](u) \\`code\\`",
    );
  });

  it("a code span in a table escapes | and outgrows the backtick runs inside it", () => {
    expect(codeSpan("a|b", { inTable: true })).toBe("`a\\|b`");
    expect(codeSpan("x ``y`` z", { inTable: false })).toBe("```x ``y`` z```");
    expect(codeSpan("`edge", { inTable: false })).toBe("`` `edge ``");
  });

  it("a fenced block's fence is longer than any backtick run in the content", () => {
    expect(fencedBlock("a ```` b")).toBe("`````\na ```` b\n`````");
    expect(fencedBlock("plain")).toBe("```\nplain\n```");
  });

  it("names the build evidence answer and the command attached to each sink", () => {
    const markdown = renderLedgerMarkdown(SUCCESS_LEDGER);
    expect(markdown).toContain("**Build evidence:** `attached`");
    expect(markdown).toContain("- sink `write`: `npm test`");
    expect(markdown).not.toContain("Build evidence: NONE");
  });

  it("names where the policy file was read and its require-evidence, only when a policy applied", () => {
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      plan: {
        ...SUCCESS_LEDGER.plan,
        policy: {
          source: ".github/evidence-gate.yml (base ref main, commit 1a2b3c4)",
          requireEvidence: true,
        },
      },
    };
    expect(renderLedgerMarkdown(ledger).split("\n")).toContain(
      "**Policy:** .github/evidence-gate.yml (base ref main, commit 1a2b3c4) — require-evidence: true.",
    );
    expect(renderCheckRunOutput(ledger).summary).toContain("**Policy:** .github/evidence-gate.yml");
    expect(renderLedgerMarkdown(SUCCESS_LEDGER)).not.toContain("**Policy:**");
    const escaped: Ledger = {
      ...SUCCESS_LEDGER,
      plan: { ...SUCCESS_LEDGER.plan, policy: { source: "x (base ref <b>_x_</b>)", requireEvidence: false } },
    };
    expect(renderLedgerMarkdown(escaped)).toContain(
      "**Policy:** x (base ref &lt;b&gt;\\_x\\_&lt;/b&gt;) — require-evidence: false.",
    );
  });

  it("the Policy line names the file's require-tests, verify-repeat, verify-base and test-reports, escaped", () => {
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      plan: {
        ...SUCCESS_LEDGER.plan,
        policy: {
          source: ".github/evidence-gate.yml",
          requireEvidence: true,
          requireTests: true,
          verifyRepeat: 2,
          verifyBase: true,
          testReports: ["reports/**/*.xml"],
        },
      },
    };
    expect(renderLedgerMarkdown(ledger).split("\n")).toContain(
      "**Policy:** .github/evidence-gate.yml — require-evidence: true, require-tests: true, verify-repeat: 2, verify-base: true, test-reports: reports/\\*\\*/\\*.xml.",
    );
  });

  it("says build evidence NONE once, on the build-evidence line, when no sink has an engine-run command", () => {
    const lines = renderLedgerMarkdown(NEUTRAL_LEDGER).split("\n");
    expect(lines).toContain(
      "**Build evidence: NONE** (`none-detected`) — no build signal was detected and no verify command was given; every verdict below is the model's, about its own work.",
    );
    expect(lines.filter((line) => /build evidence:/i.test(line))).toHaveLength(1);
    expect(renderLedgerMarkdown(SUCCESS_LEDGER)).not.toContain("NONE");
  });

  it("prints the tool-ceiling disclosure once, verbatim", () => {
    const markdown = renderLedgerMarkdown(SUCCESS_LEDGER);
    expect(markdown.split(SUCCESS_LEDGER.plan.disclosure)).toHaveLength(2);
  });

  it("names the evidence tree and which commit it is the tree of", () => {
    expect(renderLedgerMarkdown(SUCCESS_LEDGER)).toContain(
      "**Evidence tree:** `4b825dc642cb` — the tree of the merge of abc1234 into main (commit `abc1234`).",
    );
  });

  it("says so when the evidence tree is not the commit's tree, and points at the patch", () => {
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      rows: [SUCCESS_LEDGER.rows[0]!, verifiedSink("write", { evidenceTree: OTHER_TREE })],
      evidenceTree: OTHER_TREE,
      patch: { path: "patch.diff", bytes: 120, preview: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n" },
    };
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain("— **not** the tree of the merge of abc1234 into main");
    expect(markdown).toContain("The patch is `patch.diff` (120 bytes)");
    expect(markdown).toContain("### Patch");
    expect(markdown).toContain("```diff\n--- a/x");
  });

  it("a failed verify gets a block with its command, exit code and output tail in a fence longer than the tail's backticks", () => {
    const markdown = renderLedgerMarkdown(FAILURE_LEDGER);
    expect(markdown).toContain("### ❌ Verify failed: `build`");
    expect(markdown).toContain("- command: `npm test`");
    expect(markdown).toContain("- result: exited 1 (expected 0), 12.3s");
    expect(markdown).toContain("````\nFAIL src/date.test.ts\n  expected ```2026-05-01``` | got `2026-04-30`");
  });

  it("every PASS row carries its qualifier and FAIL rows their cause", () => {
    const success = renderLedgerMarkdown(SUCCESS_LEDGER);
    expect(cells(tableRow(success, "critique"))[1]).toBe("PASS (exit-only)");
    expect(cells(tableRow(success, "write"))[1]).toBe("PASS (verified)");
    expect(cells(tableRow(renderLedgerMarkdown(FAILURE_LEDGER), "build"))[1]).toBe(
      "**FAIL verify\\_failed**",
    );
  });

  it("a ledger still in progress renders without a conclusion", () => {
    const markdown = renderLedgerMarkdown({ ...SUCCESS_LEDGER, conclusion: null, finishedAt: null });
    expect(markdown.split("\n")[0]).toBe("## ⏳ evidence-gate: in progress — running");
  });
});

describe("renderCheckRunOutput", () => {
  /** A ledger far over the check run limits: many rows with long multi-byte details and big output tails. */
  function hugeLedger(): Ledger {
    const rows = Array.from({ length: 900 }, (_, i) =>
      i % 10 === 0
        ? verifiedSink(`n${i}`, {
            outcome: "failed",
            exitCode: 2,
            outputTail: `${"エラー 🚨 ``` build broke\n".repeat(120)}`,
          })
        : pass(`n${i}`, { detail: `${"詳細 | 😀 ".repeat(40)}` }),
    );
    return {
      ...SUCCESS_LEDGER,
      rows,
      patch: { path: "patch.diff", bytes: 1, preview: "+x\n".repeat(100_000) },
    };
  }

  it("fits summary and text in 65535 UTF-8 bytes, as valid UTF-8, with the trimmed notice visible", () => {
    const output = renderCheckRunOutput(hugeLedger(), {
      detailsUrl: "https://github.com/o/r/actions/runs/1",
    });
    expect(bytes(output.summary)).toBeLessThanOrEqual(LIMIT);
    expect(strict.decode(new TextEncoder().encode(output.summary))).toBe(output.summary);
    expect(output.summary).toContain(TRIMMED_NOTICE);
    expect(output.summary).toContain("[open the full ledger](https://github.com/o/r/actions/runs/1)");
    expect(bytes(output.text)).toBeLessThanOrEqual(LIMIT);
  });

  it("does not trim a ledger that fits", () => {
    const output = renderCheckRunOutput(FAILURE_LEDGER);
    expect(output.summary).not.toContain(TRIMMED_NOTICE);
    expect(output.summary).toContain("### ❌ Verify failed: `build`");
    expect(output.title).toBe(FAILURE_LEDGER.conclusion?.title);
  });

  it("the title is at most 255 characters and never splits a surrogate pair", () => {
    const long = `${"a".repeat(253)}😀😀😀`;
    const title = clampTitle(long);
    expect(title.length).toBeLessThanOrEqual(CHECK_RUN_TITLE_MAX_CHARS);
    expect(title).toBe(`${"a".repeat(253)}…`);
    const output = renderCheckRunOutput({
      ...SUCCESS_LEDGER,
      conclusion: { ...SUCCESS_LEDGER.conclusion!, title: "t".repeat(1000) },
    });
    expect(output.title.length).toBe(CHECK_RUN_TITLE_MAX_CHARS);
  });

  it("refuses to link a details URL that is not http(s)", () => {
    const output = renderCheckRunOutput(hugeLedger(), { detailsUrl: "javascript:alert(1)" });
    expect(output.summary).toContain(TRIMMED_NOTICE);
    expect(output.summary).not.toContain("javascript:");
  });
});
