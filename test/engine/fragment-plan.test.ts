/**
 * The splice disclosure in a run's plan section (issue 26; Go `printFragmentResolutions`, printed by `run`
 * before anything is spent): the hand-written graph's loader reports every resolved `use:`, the plan
 * section carries the lines, and the progress lines, the ledger's text, Markdown and JSON all show them.
 */
import { describe, expect, test } from "vitest";
import { loadHandWrittenGraph } from "../../src/engine/hand-graph.js";
import { handWrittenPlan } from "../../src/engine/hand-plan.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { planLines } from "../../src/progress/progress-lines.js";
import { memorySource, nodeFragment } from "../graph/fragment-harness.js";
import { SUCCESS_LEDGER } from "../ledger/fixtures.js";

const CHECK = nodeFragment(
  "check",
  ["extra"],
  '  prompt: "run the tests"\n  allowed_tools: [Read, "{{ with.extra }}"]\n  timeout: 5m\n  success_check: { verify: { command: npm test } }\n',
);
const LINE =
  'fragment: node "t" spliced from "check" (fragments/check.yaml) — the check fragment — node overrides: timeout — grants: t [Read, Bash(npm *)]';

describe("a run of a graph built from fragments", () => {
  test("the plan section names the splice, and every rendering of the plan shows it", async () => {
    const loaded = await loadHandWrittenGraph({
      graphText: 'nodes:\n  - id: t\n    use: check\n    with: { extra: "Bash(npm *)" }\n    timeout: 9m\n',
      graphSource: "g.yaml",
      fragments: memorySource({ check: CHECK }),
      inputs: {},
      runtime: "claude",
    });
    if (loaded.kind !== "loaded") throw new Error(loaded.message);
    expect(loaded.fragments).toEqual([LINE]);
    const { plan } = handWrittenPlan(loaded.graph, {
      surface: "cli",
      runtime: "claude",
      warnings: loaded.warnings,
      fragments: loaded.fragments,
    });
    expect(plan.fragments).toEqual([LINE]);
    expect(planLines(plan, "plan:")).toContain(LINE);

    const ledger = { ...SUCCESS_LEDGER, plan: { ...SUCCESS_LEDGER.plan, fragments: [LINE] } };
    expect(renderLedgerText(ledger)).toContain(LINE);
    expect(renderLedgerMarkdown(ledger)).toContain("**Fragments spliced:**");
    expect(renderLedgerMarkdown(ledger)).toContain("spliced from");
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok ? parsed.ledger.plan.fragments : parsed).toEqual([LINE]);
  });

  test("a graph without fragments has no such lines", async () => {
    const loaded = await loadHandWrittenGraph({
      graphText: "nodes:\n  - { id: t, prompt: p, allowed_tools: [Read] }\n",
      graphSource: "g.yaml",
      fragments: memorySource({}),
      inputs: {},
      runtime: "claude",
    });
    if (loaded.kind !== "loaded") throw new Error(loaded.message);
    expect(loaded.fragments).toEqual([]);
    const { plan } = handWrittenPlan(loaded.graph, { surface: "cli", runtime: "claude", warnings: [] });
    expect(plan.fragments).toBeUndefined();
  });
});
