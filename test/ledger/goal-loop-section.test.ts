/**
 * The goal loop's cycles on the last run's ledger (`Ledger.goalLoop`, SPEC §7; issue 13 item 7): one
 * section per cycle in the Markdown (check run summary, job summary) and the text ledger — cycle k/N, the
 * remaining items fed into it, its rows, the assessor's verdict (model text: escaped, bounded), its cost —
 * the conclusion the last run's, the check run output within GitHub's limits, the JSON round-tripping.
 */
import { describe, expect, it } from "vitest";
import type { GoalCycleSection, GoalLoopSection, Ledger } from "../../src/ledger/ledger.js";
import { renderCommentBody } from "../../src/ledger/render-comment.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import {
  renderCheckRunOutput,
  renderLedgerMarkdown,
  TRIMMED_NOTICE,
} from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "./fixtures.js";

const LIMIT = 65_535;
const bytes = (text: string): number => new TextEncoder().encode(text).length;

const CYCLE_1: GoalCycleSection = {
  cycle: 1,
  runId: "20260101-000000-aaaaaa",
  conclusion: { conclusion: "success", outcome: "passed", title: "1 node passed (verified)" },
  rows: [
    { node: "first-pass", verdict: "PASS (verified)", costUsd: 0.01, durationMs: 2000, detail: "exited 0" },
  ],
  total: { kind: "known", usd: 0.02 },
  assessment: {
    kind: "assessed",
    goalMet: false,
    remaining: "REMAINING-MARK: the README <b>lacks</b> a | usage section",
    evidence: "row first-pass only looked",
    costUsd: 0.005,
  },
};

function lastCycle(ledger: Ledger): GoalCycleSection {
  return {
    cycle: 2,
    runId: ledger.runId,
    remainingIn: "REMAINING-MARK: the README <b>lacks</b> a | usage section",
    conclusion: {
      conclusion: ledger.conclusion!.conclusion,
      outcome: ledger.conclusion!.outcome,
      title: ledger.conclusion!.title,
    },
    rows: [
      {
        node: "second-pass",
        verdict: "FAIL verify_failed",
        costUsd: 0.03,
        durationMs: 4000,
        detail: "exit 1",
      },
    ],
    total: { kind: "known", usd: 0.04 },
    assessment: { kind: "not_assessed" },
  };
}

function looped(ledger: Ledger, cycles?: readonly GoalCycleSection[]): Ledger {
  const goalLoop: GoalLoopSection = {
    maxCycles: 2,
    stoppedBecause: "max-cycles 2 reached",
    cycles: cycles ?? [CYCLE_1, lastCycle(ledger)],
  };
  return { ...ledger, goalLoop };
}

describe("the goal loop's cycles in the Markdown ledger", () => {
  it("one section per cycle: k/N, conclusion, remaining fed in, rows, the assessor's verdict, the costs", () => {
    const md = renderLedgerMarkdown(looped(FAILURE_LEDGER));
    expect(md).toContain("### Goal loop: 2 cycles of at most 2");
    expect(md).toMatch(/#### Cycle 1\/2: ✅ success — 1 node passed \(verified\)/);
    expect(md).toMatch(/#### Cycle 2\/2: ❌ failure — /);
    expect(md.indexOf("#### Cycle 1/2")).toBeLessThan(md.indexOf("#### Cycle 2/2"));
    expect(md).toContain(`Run \`${FAILURE_LEDGER.runId}\` (this run, in full below)`);
    expect(md).toContain("| `first-pass` | PASS (verified) | $0.0100 | 2.0s | exited 0 |");
    expect(md).toContain("| `second-pass` | **FAIL verify\\_failed** | $0.0300 | 4.0s | exit 1 |");
    expect(md).toContain("**Assessor:** not assessed");
    expect(md).toContain("**Run cost:** $0.0200");
    // The whole goal: both runs and the assessor call.
    expect(md).toContain("Whole goal: **$0.0650**");
    expect(md).toContain("Stopped: max-cycles 2 reached.");
    // The conclusion is the last run's, whatever the assessor said.
    expect(md.split("\n")[0]).toMatch(/^## ❌ evidence-gate: failure/);
  });

  it("the assessor's words are model text: escaped (no HTML, no cell break) and bounded", () => {
    const long = `${"<script>x</script> | ".repeat(200)}END-MARK`;
    const cycle: GoalCycleSection = {
      ...CYCLE_1,
      assessment: { kind: "assessed", goalMet: false, remaining: long, evidence: "e", costUsd: null },
    };
    const md = renderLedgerMarkdown(looped(SUCCESS_LEDGER, [cycle, lastCycle(SUCCESS_LEDGER)]));
    const line = md.split("\n").find((l) => l.startsWith("**Assessor:** goal not met"));
    expect(line).toBeDefined();
    expect(line).not.toContain("<script>");
    expect(line).not.toContain("END-MARK");
    expect(line).toContain("assessor cost unknown");
    expect(line!.length).toBeLessThan(long.length);
    expect(md).toContain(
      "**Remaining, fed into this cycle:** REMAINING-MARK: the README &lt;b&gt;lacks&lt;/b&gt; a \\| usage section",
    );
  });

  it("stays within the check run's 65535 bytes with big cycles, the last run's section kept", () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      node: `n${i}`,
      verdict: "PASS (verified)",
      costUsd: 0.01,
      durationMs: 1000,
      detail: "詳細 😀 ".repeat(20),
    }));
    const big = (cycle: number): GoalCycleSection => ({ ...CYCLE_1, cycle, runId: `run-${cycle}`, rows });
    const ledger = looped(FAILURE_LEDGER, [
      big(1),
      big(2),
      big(3),
      big(4),
      { ...lastCycle(FAILURE_LEDGER), cycle: 5 },
    ]);
    const output = renderCheckRunOutput({ ...ledger, goalLoop: { ...ledger.goalLoop!, maxCycles: 5 } });
    expect(bytes(output.summary)).toBeLessThanOrEqual(LIMIT);
    // The compact rendering lists 10 rows a cycle, so every cycle's section fits before the cut.
    expect(output.summary).toContain("… 1990 more rows not shown.");
    expect(output.summary).toContain("#### Cycle 5/5: ❌ failure");
    expect(output.summary).not.toContain(TRIMMED_NOTICE);
  });

  it("a ledger outside the loop has no goal loop section", () => {
    expect(renderLedgerMarkdown(SUCCESS_LEDGER)).not.toContain("Goal loop");
    expect(renderLedgerText(SUCCESS_LEDGER)).not.toContain("Goal loop");
  });
});

describe("the goal loop in the PR comment", () => {
  it("says how many cycles ran and why the loop stopped; a ledger outside the loop says nothing of it", () => {
    const options = { checkName: "evidence-gate", checkRunUrl: null };
    expect(renderCommentBody(looped(FAILURE_LEDGER), options)).toContain(
      "Goal loop: 2 cycles of at most 2, stopped: max-cycles 2 reached. The counts are the last run's; every cycle is on the check run.",
    );
    expect(renderCommentBody(FAILURE_LEDGER, options)).not.toContain("Goal loop");
  });
});

describe("the goal loop's cycles in the text ledger", () => {
  it("one block per cycle before the last run's table", () => {
    const text = renderLedgerText(looped(FAILURE_LEDGER));
    expect(text).toContain(
      "Goal loop: 2 cycles of at most 2 — stopped: max-cycles 2 reached; whole goal $0.0650; the conclusion is the last run's",
    );
    expect(text).toContain("  Cycle 1/2: success — 1 node passed (verified) — run 20260101-000000-aaaaaa\n");
    expect(text).toContain("    first-pass  PASS (verified)  $0.0100  2.0s  exited 0\n");
    expect(text).toContain(
      "    assessor: goal not met; remaining: REMAINING-MARK: the README <b>lacks</b> a | usage section; evidence: row first-pass only looked; assessor cost $0.0050\n",
    );
    expect(text).toContain(
      `  Cycle 2/2: failure — ${FAILURE_LEDGER.conclusion!.title} — run ${FAILURE_LEDGER.runId} (this run, below)`,
    );
    expect(text).toContain(
      "    remaining fed in: REMAINING-MARK: the README <b>lacks</b> a | usage section\n",
    );
    expect(text).toContain("    assessor: not assessed\n    run cost: $0.0400\n");
    expect(text.indexOf("Cycle 2/2")).toBeLessThan(text.indexOf("NODE"));
    expect(text).toMatch(/CONCLUSION: +failure/);
  });
});

describe("the goal loop's planning cost holds its assessor calls, and says so (new user's trial)", () => {
  it("text and Markdown name the assessor on the planning line of a loop, and not outside one", () => {
    const inLoop = looped(FAILURE_LEDGER);
    expect(renderLedgerText(inLoop)).toMatch(/^PLANNING COST: \S.* — the planner and assessor calls$/m);
    expect(renderLedgerMarkdown(inLoop)).toMatch(/^- planning cost: \S.* — the planner and assessor calls$/m);
    for (const rendered of [renderLedgerText(FAILURE_LEDGER), renderLedgerMarkdown(FAILURE_LEDGER)]) {
      expect(rendered).toMatch(/^(PLANNING COST|- planning cost): \S/m);
      expect(rendered).not.toContain("assessor calls");
    }
  });
});

describe("the goal loop's cycles in the JSON ledger", () => {
  it("round-trip through the strict schema; an unknown key in a cycle is refused", () => {
    const ledger = looped(FAILURE_LEDGER);
    expect(parseLedgerJson(renderLedgerJson(ledger))).toEqual({ ok: true, ledger });
    const data = JSON.parse(renderLedgerJson(ledger));
    data.goalLoop.cycles[0].assessment.goalMetForReal = true;
    const parsed = parseLedgerJson(JSON.stringify(data));
    expect(!parsed.ok && parsed.issues.join("\n")).toMatch(
      /goalLoop\.cycles\.0\.assessment: .*goalMetForReal/,
    );
  });
});
