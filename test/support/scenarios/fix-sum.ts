/**
 * The "fix sum" scenario shared by the demo (`npm run demo`) and the end-to-end tests: a planner reply
 * with two nodes (implement → check), an implement node that really edits `src/sum.js` through the real
 * CLI's Read and Edit tools, and a check node that replies `PASS`.
 */
import { join } from "node:path";
import type { ModelScript, ScriptedConversation } from "../model-server/index.js";

/** Phrases that select each conversation (they occur only in that call's prompt). */
export const MARKS = {
  implement: "Fix the bug in src/sum.js",
  check: "Review the change to src/sum.js",
  review: "Review src/sum.js and report",
  plannerGoal: "Make npm test pass by fixing sum()",
} as const;

export const PASS_PATTERN = "^[*_`\\s]*PASS[*_`\\s]*$";

/** The planner's JSON reply for the two-node plan. `extra` adds fields to the check node (for refusals). */
export function twoNodePlan(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name: "fix-sum",
    version: "1",
    nodes: [
      {
        id: "implement",
        prompt: `${MARKS.implement} so that sum(a, b) returns a + b. Edit only that file.`,
        allowed_tools: ["Read", "Edit"],
        timeout: "10m",
      },
      {
        id: "check",
        depends_on: ["implement"],
        prompt: `${MARKS.check} and reply with exactly PASS if it looks right, else FAIL.`,
        allowed_tools: ["Read", "Bash(git *)"],
        success_check: { result_matches: PASS_PATTERN },
        ...extra,
      },
    ],
  });
}

/**
 * A two-node plan the planned-node rules refuse for two reasons at once: the check node asks for
 * `Bash(*)` (every shell command) and carries its own `success_check.verify` (a planner-written command).
 */
export function refusedTwoNodePlan(): string {
  return twoNodePlan({
    allowed_tools: ["Read", "Bash(*)"],
    success_check: { result_matches: PASS_PATTERN, verify: { command: "true" } },
  });
}

/** A one-node plan whose node changes nothing (a review). */
export function reviewOnlyPlan(): string {
  return JSON.stringify({
    name: "review",
    version: "1",
    nodes: [{ id: "review", prompt: `${MARKS.review} whether it looks correct.`, allowed_tools: ["Read"] }],
  });
}

export interface FixSumScriptOptions {
  /** The repository the CLI runs in (Read/Edit need absolute paths). */
  readonly repoDir: string;
  /** The planner replies, in order: the first call gets [0], a repair call [1]. Default: the two-node plan. */
  readonly plannerReplies?: readonly string[];
  /** What the implement node writes instead of the fix (e.g. a still-broken body). */
  readonly newBody?: string;
  /** The check node's reply (default `PASS`). */
  readonly checkReply?: string;
}

/** The model script of the scenario. */
export function fixSumScript(options: FixSumScriptOptions): ModelScript {
  const file = join(options.repoDir, "src", "sum.js");
  const planner = options.plannerReplies ?? [twoNodePlan()];
  const conversations: ScriptedConversation[] = [
    {
      name: "implement",
      match: MARKS.implement,
      turns: [
        { tool_calls: [{ name: "Read", input: { file_path: file } }] },
        {
          tool_calls: [
            {
              name: "Edit",
              input: {
                file_path: file,
                old_string: "return a - b;",
                new_string: options.newBody ?? "return a + b;",
              },
            },
          ],
        },
        { text: "Fixed sum() in src/sum.js.", usage: { input_tokens: 1200, output_tokens: 40 } },
      ],
    },
    {
      name: "check",
      match: MARKS.check,
      turns: [
        { tool_calls: [{ name: "Read", input: { file_path: file } }] },
        { text: options.checkReply ?? "PASS" },
      ],
    },
    { name: "review", match: MARKS.review, turns: [{ text: "The file reads fine. Nothing to change." }] },
  ];
  // A repair call's prompt quotes the refusals; it is selected by the repair section's wording.
  if (planner.length > 1) {
    conversations.push({
      name: "planner-repair",
      match: [MARKS.plannerGoal, "Your previous plan was refused"],
      turns: [{ text: planner[1]! }],
    });
  }
  conversations.push({ name: "planner", match: MARKS.plannerGoal, turns: [{ text: planner[0]! }] });
  return { conversations };
}
