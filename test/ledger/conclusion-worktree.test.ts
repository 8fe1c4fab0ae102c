/**
 * The worktree rule of the conclusion (docs/graph-format.md "agent and worktree"): a sink that ran in a
 * managed worktree verified that worktree's branch, not the main working tree or the posted commit — so a
 * run whose every sink is verified is `action_required` then, before the rules that compare with the main
 * working tree's start, even when the tree happens to equal the commit's.
 */
import { expect, test } from "vitest";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import {
  ATTACHED,
  fixtureLedger,
  pass,
  STARTING_TREE,
  verifiedRunInput,
  verifiedSink,
  WRITE_CHECK_NODES,
} from "./fixtures.js";

const LANE = { name: "lane", branch: "evidence-gate/20260101-000000-abcdef/lane" } as const;

test("a verified sink in a worktree is action_required (outcome passed), naming the sink, worktree and branch; a worktree node upstream of a main-tree sink is not", () => {
  const inLane = decideConclusion(
    verifiedRunInput({
      rows: [pass("write"), { ...verifiedSink("check", { ignoredFiles: "unknown" }), worktree: LANE }],
    }),
  );
  expect(inLane).toMatchObject({
    conclusion: "action_required",
    outcome: "passed",
    rule: "verified-in-worktree",
  });
  expect(inLane.reason).toContain(
    'a sink ran in a managed worktree (sink "check": worktree lane, branch evidence-gate/20260101-000000-abcdef/lane)',
  );
  // The main tree's sink decides by its own evidence; the lane's branch is the lint's to warn about.
  const upstream = decideConclusion(
    verifiedRunInput({ rows: [{ ...pass("write"), worktree: LANE }, verifiedSink("check")] }),
  );
  expect(upstream.rule).toBe("verified-on-commit");
});

test("ledger.json carries the row's worktree (and the rule) and reads back; the text ledger says it in the detail", () => {
  const ledger = fixtureLedger({
    runId: "20260101-000000-abcdef",
    runtime: "claude",
    goal: "Make npm test pass",
    buildEvidence: ATTACHED,
    nodes: WRITE_CHECK_NODES,
    rows: [
      { ...pass("write"), worktree: LANE },
      { ...verifiedSink("check"), worktree: LANE },
    ],
    planningCalls: [],
    evidenceTree: STARTING_TREE,
  });
  expect(ledger.conclusion?.rule).toBe("verified-in-worktree");
  const parsed = parseLedgerJson(renderLedgerJson(ledger));
  expect(parsed.ok && parsed.ledger.rows.map((row) => row.worktree)).toEqual([LANE, LANE]);
  expect(parsed.ok && parsed.ledger.conclusion?.rule).toBe("verified-in-worktree");
  expect(renderLedgerText(ledger)).toContain(
    "ran in worktree lane: its changes are on branch evidence-gate/20260101-000000-abcdef/lane, not in the main working tree",
  );
});
