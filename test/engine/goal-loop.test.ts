/**
 * The goal loop of `auto` (`max-cycles`, SPEC §7; issue 13 item 7) at engine level (`runGoalLoop`): the
 * planner, the nodes and the assessor through the model port (./port-harness.ts: each call's stream played
 * through the real parser), a real sample repository and verify command. One behaviour per
 * test: a met goal makes no second plan; an unmet goal's `remaining` reaches cycle 2's planner prompt
 * fenced, the assessor is tool-less, and the last run's ledger (and `ledger.json`) carries one section per
 * cycle, and its totals are the whole loop's spend (issue 22 item 5); the `max-cost-usd` ceiling stops before the next cycle (codex:
 * unmeasurable); a met verdict over a failed run leaves the run failed. What the real CLI shows of the
 * assessor (no tool advertised to the model) is goal-loop.real-cli.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../../src/engine/runtime-setup.js";
import { formatUsdTotal, goalLoopTotal } from "../../src/ledger/cells.js";
import type { UsdTotal } from "../../src/ledger/ledger.js";
import { parseLedgerJson } from "../../src/ledger/render-json.js";
import { renderCheckRunOutput } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { assessorPolicy } from "../../src/policy/ceiling.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { RUNTIMES } from "./runtime-harness.js";

const harness = portHarnessPerTest();

const GOAL = "LOOP-GOAL: tidy the project";
const REMAINING = "REMAINING-MARK: the README still lacks a usage section";

const plan = (id: string, mark: string): string =>
  JSON.stringify({
    name: `loop-${id}`,
    version: "1",
    nodes: [{ id, prompt: `${mark}: look at the project.`, allowed_tools: ["Read"] }],
  });

const verdict = (met: boolean, remaining: string): string =>
  JSON.stringify({ goal_met: met, remaining, evidence: "the ledger's rows" });

/**
 * Cycle 1 plans node `first-pass`, cycle 2 (prompted with `remaining`) plans `second-pass`; the assessor
 * says `firstVerdict` on cycle 1 and "met" on cycle 2.
 */
async function start(runtime: Runtime, firstVerdict: string) {
  return harness({
    runtime,
    makeRepo: makeSampleNodeRepo,
    plays: {
      planner: [
        replied(runtime, plan("first-pass", "FIRST-MARK")),
        replied(runtime, plan("second-pass", "SECOND-MARK")),
      ],
      "first-pass": [replied(runtime, "Looked; all fine.")],
      "second-pass": [replied(runtime, "Looked again.")],
      assessor: [replied(runtime, firstVerdict), replied(runtime, verdict(true, ""))],
    },
  });
}

describe("the goal loop on claude", () => {
  test("a goal met on cycle 1 makes no second plan", async () => {
    const h = await start("claude", verdict(true, ""));
    const result = await h.goalLoop({ goal: GOAL, verifyCmd: "true" }, { maxCycles: 3 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));

    expect(result.cycles.map((c) => c.cycle)).toEqual([1]);
    expect(result.cycles[0]?.assessment).toMatchObject({ kind: "assessed", assessment: { goal_met: true } });
    expect(result.stoppedBecause).toBe("the assessor judged the goal met after cycle 1");
    expect(result.ledger.conclusion?.conclusion).toBe("success");
    expect(h.spawnsOf("planner")).toBe(1);
  });

  test("a met verdict over a failed run leaves the run failed", async () => {
    const h = await start("claude", verdict(true, ""));
    // The sample repository's sum() is buggy, so `node --test` fails the sink.
    const result = await h.goalLoop({ goal: GOAL, verifyCmd: "node --test" }, { maxCycles: 2 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));

    expect(result.cycles[0]?.assessment).toMatchObject({ kind: "assessed", assessment: { goal_met: true } });
    expect(result.ledger.conclusion?.conclusion).toBe("failure");
    expect(result.cycles[0]?.conclusion).toBe("failure");
  });

  test("the max-cost-usd ceiling stops the loop before the next cycle, unassessed", async () => {
    const h = await start("claude", verdict(false, REMAINING));
    const result = await h.goalLoop(
      { goal: GOAL, verifyCmd: "true" },
      { maxCycles: 3, maxCostUsd: 0.000001 },
    );
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));

    expect(result.cycles).toHaveLength(1);
    expect(result.cycles[0]?.assessment).toBeNull();
    expect(result.stoppedBecause).toMatch(/^max-cost-usd 0\.000001 reached: \$[0-9.]+ spent after cycle 1$/);
    expect(h.spawnsOf("assessor")).toBe(0);
    expect(h.spawnsOf("planner")).toBe(1);
  });
});

describe.each(RUNTIMES)("the goal loop on %s", (runtime) => {
  test("an unmet goal's remaining reaches cycle 2's planner fenced, from a tool-less assessor", async () => {
    const h = await start(runtime, verdict(false, REMAINING));
    const result = await h.goalLoop({ goal: GOAL, verifyCmd: "true" }, { maxCycles: 2 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));

    expect(result.cycles.map((c) => [c.cycle, c.conclusion])).toEqual([
      [1, "success"],
      [2, "success"],
    ]);
    expect(result.cycles[0]?.runId).not.toBe(result.cycles[1]?.runId);
    // The last cycle allowed is not assessed: nothing would follow from its verdict.
    expect(result.cycles[1]?.assessment).toBeNull();
    expect(result.stoppedBecause).toBe("max-cycles 2 reached");
    expect(result.ledger.runId).toBe(result.cycles[1]?.runId);
    expect(result.ledger.rows.map((r) => r.nodeId)).toEqual(["second-pass"]);
    // The last run's ledger carries every cycle, and so does its ledger.json (what every surface reports).
    const loop = result.ledger.goalLoop;
    expect(
      loop?.cycles.map((c) => [
        c.cycle,
        c.runId,
        c.remainingIn ?? null,
        c.assessment.kind,
        c.rows.map((r) => r.node),
      ]),
    ).toEqual([
      [1, result.cycles[0]?.runId, null, "assessed", ["first-pass"]],
      [2, result.cycles[1]?.runId, REMAINING, "not_assessed", ["second-pass"]],
    ]);
    expect(loop?.cycles[0]?.assessment).toMatchObject({ goalMet: false, remaining: REMAINING });
    expect(loop?.stoppedBecause).toBe("max-cycles 2 reached");
    // TOTAL COST and totals.total are the whole loop's spend (issue 22 item 5): both cycles' runs and the
    // assessor's call, equal to the loop section's whole-goal figure; each cycle's own is in its section.
    if (loop === undefined) throw new Error("no goal-loop section");
    const [one, two] = loop.cycles;
    if (one === undefined || two === undefined) throw new Error("two cycles expected");
    const assessorUsd = one.assessment.kind === "assessed" ? one.assessment.costUsd : undefined;
    const known = (t: UsdTotal): number => (t.kind === "known" ? t.usd : t.knownUsd);
    const whole = goalLoopTotal(loop);
    expect(result.ledger.totals.total.kind).toBe(whole.kind);
    expect(known(result.ledger.totals.total)).toBeCloseTo(known(whole), 12);
    expect(result.ledger.totals.total).not.toEqual(two.total);
    if (runtime === "claude") {
      if (one.total.kind !== "known" || two.total.kind !== "known" || typeof assessorUsd !== "number") {
        throw new Error(`claude reports every cost: ${JSON.stringify([one.total, two.total, assessorUsd])}`);
      }
      expect(one.total.usd).toBeGreaterThan(0);
      expect(result.ledger.totals.total.kind).toBe("known");
      expect(known(result.ledger.totals.total)).toBeCloseTo(one.total.usd + two.total.usd + assessorUsd, 12);
      expect(renderLedgerText(result.ledger)).toContain(
        `TOTAL COST:    ${formatUsdTotal(goalLoopTotal(loop))} (the whole goal loop: 2 cycles`,
      );
    } else {
      // codex reports no USD: the sum stays unknown, the known subtotal (and unknown calls) summed.
      expect(result.ledger.totals.total).toMatchObject({ kind: "unknown" });
      expect(known(result.ledger.totals.total)).toBeCloseTo(known(one.total) + known(two.total), 12);
      expect(result.ledger.totals.total.kind === "unknown" && result.ledger.totals.total.unknownCalls).toBe(
        (one.total.kind === "unknown" ? one.total.unknownCalls : 0) +
          (two.total.kind === "unknown" ? two.total.unknownCalls : 0) +
          1,
      );
    }
    expect(result.ledger.totals.tokens.inputTokens).toBeGreaterThan(0);
    expect(parseLedgerJson(readFileSync(result.ledgerPath, "utf8"))).toEqual({
      ok: true,
      ledger: result.ledger,
    });
    const { summary } = renderCheckRunOutput(result.ledger);
    expect(summary).toMatch(
      /#### Cycle 1\/2: ✅ success[\s\S]*REMAINING-MARK[\s\S]*#### Cycle 2\/2: ✅ success/,
    );

    const replan = h.callsOf("planner")[1];
    if (replan === undefined) throw new Error("cycle 2's planner was never called");
    const fenced = /<<<DATA remaining nonce=([0-9a-f]+)>>>\n([\s\S]*?)\n<<<END DATA nonce=\1>>>/.exec(
      replan.prompt,
    );
    expect(fenced?.[2]).toBe(REMAINING);

    // One assessor call (cycle 1), read-only under the assessor's tool-less ceiling.
    const assessor = h.callsOf("assessor");
    expect(assessor).toHaveLength(1);
    expect(assessor[0]?.prompt).toMatch(/<<<DATA run-ledger nonce=[0-9a-f]+>>>/);
    expect(assessor[0]?.permissionMode).toBe("plan");
    expect(assessor[0]?.policy).toEqual(assessorPolicy());
  });
});

describe("the goal loop on codex", () => {
  test("max-cost-usd cannot be honoured when the runtime reports no cost: the loop stops as unmeasurable", async () => {
    const h = await start("codex", verdict(false, REMAINING));
    const result = await h.goalLoop({ goal: GOAL, verifyCmd: "true" }, { maxCycles: 3, maxCostUsd: 5 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));

    expect(result.cycles).toHaveLength(1);
    expect(result.stoppedBecause).toMatch(/^max-cost-usd 5 cannot be checked: .*\(unmeasurable\)$/);
    expect(h.spawnsOf("planner")).toBe(1);
  });
});
