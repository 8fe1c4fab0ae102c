/**
 * `auto` end to end at engine level (`runAuto`) on BOTH runtimes (SPEC §4, §5, §8): the planner call is
 * answered by the scripted model server, trusted code attaches the verify command to the sink, and the
 * planned node fixes the sample project through the real CLI. What differs per runtime is asserted per
 * runtime:
 *
 * - the planner's stance: claude `--permission-mode plan` with every deniable tool denied; codex
 *   `--sandbox read-only` (permission mode `plan` → read-only, measured from the permissions message codex
 *   sends the model), and on both it keeps the repository's instructions (CLAUDE.md / AGENTS.md);
 * - the planned node's layer 1 (isolation): claude `--setting-sources ""` drops CLAUDE.md; codex's four
 *   isolation items drop AGENTS.md (`project_doc_max_bytes=0`);
 * - cost: codex reports no USD, so the planning cost and every total are `unknown`, never `$0`;
 * - the ceiling disclosure is the runtime's own paragraph.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { ceilingDisclosure } from "../../src/policy/disclosure.js";
import type { ModelScript } from "../support/model-server/index.js";
import { commitAll, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import { asPass, graphHarnessPerTest, readState, requestsOf, rowWords } from "./graph-harness.js";
import { editCall, historyText, RUNTIMES, readCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

const GOAL = "AUTO-GOAL: make node --test pass by fixing sum() in src/sum.js";
const NODE_MARK = "IMPLEMENT-MARK";
/** The repository's agent instructions carry this; who sees it shows who loaded them. */
const INSTRUCTIONS_MARK = "INSTRUCTIONS-MARK-4417";

/** The sample project plus the runtime's instruction file (CLAUDE.md / AGENTS.md), committed. */
async function sampleRepoWithInstructions(runtime: Runtime): Promise<TempRepo> {
  const repo = await makeSampleNodeRepo();
  writeFileSync(
    join(repo.dir, runtime === "claude" ? "CLAUDE.md" : "AGENTS.md"),
    `# Project notes\n\n${INSTRUCTIONS_MARK}: keep functions small.\n`,
  );
  await commitAll(repo, "add agent instructions");
  return repo;
}

function plannerReply(): string {
  return JSON.stringify({
    name: "fix-sum",
    version: "1",
    nodes: [
      {
        id: "implement",
        prompt: `${NODE_MARK}: fix sum() in src/sum.js so that it returns a + b. Edit only that file.`,
        allowed_tools: ["Read", "Edit"],
      },
    ],
  });
}

function script(runtime: Runtime, repo: TempRepo): ModelScript {
  const file = join(repo.dir, "src", "sum.js");
  return {
    conversations: [
      {
        name: "implement",
        match: NODE_MARK,
        turns: [
          { tool_calls: [readCall(runtime, file)] },
          { tool_calls: [editCall(runtime, file, "  return a - b;", "  return a + b;")] },
          { text: "Fixed sum()." },
        ],
      },
      { name: "planner", match: "AUTO-GOAL", turns: [{ text: plannerReply() }] },
    ],
  };
}

describe.each(RUNTIMES)("auto on %s", (runtime) => {
  test("plans with a read-only planner, runs the planned node isolated, and the attached verify makes it PASS (verified)", async () => {
    const h = await harness({
      runtime,
      makeRepo: () => sampleRepoWithInstructions(runtime),
      script: (repo) => script(runtime, repo),
    });
    const result = await h.auto({ goal: GOAL, verifyCmd: "node --test" });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));
    const { ledger } = result;

    expect(rowWords(ledger.rows)).toEqual(["implement PASS (verified)"]);
    expect(asPass(ledger.rows[0]).verify).toMatchObject({ command: "node --test", exitCode: 0 });
    expect(ledger.plan.sinkCommands).toEqual([{ nodeId: "implement", command: "node --test" }]);
    expect(ledger.plan.disclosure).toBe(
      ceilingDisclosure({ runtime, loadedUserConfig: false, surface: "cli" }),
    );
    expect(renderLedgerMarkdown(ledger)).toContain(
      `**Tool ceiling:** ${runtime === "codex" ? "Planned Codex nodes run isolated" : "Planned nodes run isolated"}`,
    );
    expect(result.warnings).toEqual([]);
    const state = readState(result.runDir);
    expect(state.runtime).toBe(runtime);
    expect(state.planning_calls).toHaveLength(1);
    // The planned node's ceiling is recorded runtime-neutrally: layer 1 on.
    expect(state.tool_policies.implement).toMatchObject({
      settingSources: "",
      allowedTools: ["Read", "Edit"],
    });

    const [planner] = requestsOf(h.server.requests, "planner");
    const [node] = requestsOf(h.server.requests, "implement");
    // The planner keeps the repository's instructions (not isolated); the planned node does not see them.
    expect(historyText(planner!)).toContain(INSTRUCTIONS_MARK);
    expect(historyText(node!)).not.toContain(INSTRUCTIONS_MARK);
    if (runtime === "codex") {
      // codex tells the model its sandbox: read-only for the planner, workspace-write for the node.
      expect(historyText(planner!)).toContain("`sandbox_mode` is `read-only`");
      expect(historyText(node!)).toContain("`sandbox_mode` is `workspace-write`");
      // No USD anywhere: planning cost and every total unknown, never $0.
      expect(ledger.plan.planningCostUsd).toBeNull();
      expect(ledger.rows[0]!.costUsd).toBeNull();
      expect(ledger.totals.planning).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 1 });
      expect(ledger.totals.total).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 2 });
      // Tokens: the planner's one request plus the node's three (100 in / 20 out each).
      expect(ledger.totals.tokens).toMatchObject({
        inputTokens: 400,
        outputTokens: 80,
        callsWithoutUsage: 0,
      });
      expect(state.planning_calls[0]).toMatchObject({
        costUsd: null,
        usage: { inputTokens: 100, outputTokens: 20 },
      });
    } else {
      expect(ledger.plan.planningCostUsd).toEqual(expect.any(Number));
      expect(ledger.totals.total.kind).toBe("known");
    }
  });
});
