/**
 * The completion gate's todo check (SPEC §7 `todos: all_done`; issue 13 item 4), on both runtimes with the
 * real CLI and the scripted model server: the plan is what the model declared with the CLI's own plan tool
 * (claude `TodoWrite` in the stream-json events, codex `update_plan` shown as `todo_list` items) — what
 * only the real binary shows — the LATEST plan across all attempts decides (an attempt that declares
 * nothing does not escape an earlier open item), and the reason names the open items. "No plan declared"
 * is completion-todos.test.ts (the model port).
 */
import { describe, expect, test } from "vitest";
import type { Runtime } from "../../src/engine/runtime-setup.js";
import type { ModelScript } from "../support/model-server/index.js";
import { graphHarnessPerTest, requestsOf, rowWords } from "./graph-harness.js";
import { RUNTIMES, type ToolCall } from "./runtime-harness.js";

const start = graphHarnessPerTest();

/** The runtime's plan tool call declaring `items` (`[text, done]`). */
function planCall(runtime: Runtime, items: readonly (readonly [string, boolean])[]): ToolCall {
  return runtime === "claude"
    ? {
        name: "TodoWrite",
        input: {
          todos: items.map(([content, done]) => ({
            content,
            status: done ? "completed" : "pending",
            activeForm: `Doing ${content}`,
          })),
        },
      }
    : {
        name: "update_plan",
        input: { plan: items.map(([step, done]) => ({ step, status: done ? "completed" : "pending" })) },
      };
}

function graph(verify: string, max: number): string {
  return [
    "nodes:",
    "  - id: plan",
    "    prompt: TODO-TASK do the work",
    "    completion:",
    `      verify: ${verify}`,
    `      max_attempts: ${max}`,
    "",
  ].join("\n");
}

describe.each(RUNTIMES)("completion todos: all_done on %s", (runtime) => {
  test("an open item fails and is named; an attempt declaring nothing keeps the earlier plan; all completed passes", async () => {
    const script: ModelScript = {
      conversations: [
        {
          name: "attempt-3",
          match: ["COMPLETION CHECK FAILED", "completion attempt 3 of 3"],
          turns: [
            {
              tool_calls: [
                planCall(runtime, [
                  ["build", true],
                  ["proofread", true],
                ]),
              ],
            },
            { text: "all done" },
          ],
        },
        {
          name: "attempt-2",
          match: ["COMPLETION CHECK FAILED", "completion attempt 2 of 3"],
          turns: [{ text: "it is done, really" }],
        },
        {
          name: "attempt-1",
          match: "TODO-TASK",
          turns: [
            {
              tool_calls: [
                planCall(runtime, [
                  ["build", true],
                  ["proofread", false],
                ]),
              ],
            },
            { text: "done" },
          ],
        },
      ],
    };
    const h = await start({ runtime, script: () => script });
    const run = await h.run(graph("{ todos: all_done }", 3));
    expect(rowWords(run.ledger.rows)).toEqual([
      "plan FAIL incomplete superseded",
      "plan FAIL incomplete superseded",
      "plan PASS (self-reported)",
    ]);
    const open = '1 of 2 plan items open: "proofread"';
    expect(run.ledger.rows.map((r) => r.completion?.reason ?? null)).toEqual([open, open, null]);
    // What the agent was told names the open item, fenced as data.
    const told = requestsOf(h.server.requests, "attempt-2")[0]?.promptText ?? "";
    expect(told).toMatch(
      /<<<DATA completion-check-report nonce=[0-9a-f]+>>>\n1 of 2 items of your latest plan/,
    );
    expect(told).toContain("- proofread");
    expect(requestsOf(h.server.requests, "attempt-3").length).toBeGreaterThan(0);
  });
});
