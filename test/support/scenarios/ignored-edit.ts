/**
 * The "ignored edit" scenarios (ADR 0003, amendment 2026-11-29): a node makes `npm test` pass by changing
 * a git-ignored file instead of the code — the test runner in `node_modules/`. The evidence tree stays the
 * commit's tree, the verify passes, and the run must not be `success`. The plan is one node (a sink, so
 * the engine attaches the verify command to it) that really edits the file through the real CLI's tools.
 */
import { join } from "node:path";
import type { ModelScript } from "../model-server/index.js";
import { BUGGY_SUM, makeTempRepo, type TempRepo } from "../temp-repo.js";

/** Phrases that select each conversation (they occur only in that call's prompt). */
export const IGNORED_MARKS = {
  plannerGoal: "Make npm test pass without touching tracked files",
  runner: "Make the test runner in node_modules/fake-runner exit 0",
} as const;

/** The goal of the runner scenario's run (selects the planner conversation). */
export const IGNORED_GOAL = `${IGNORED_MARKS.plannerGoal}.`;

/** The test runner the repository's `npm test` runs; git-ignored, as an installed package is. */
export const RUNNER_PATH = "node_modules/fake-runner/cli.js";
export const RUNNER_SOURCE = [
  'import { sum } from "../../src/sum.js";',
  "const ok = sum(2, 3) === 5;",
  'console.log(ok ? "ok - sum adds two numbers" : "not ok - sum adds two numbers");',
  "if (!ok) process.exit(1);",
  "",
].join("\n");

/**
 * A Node project committed on `main` whose `npm test` runs `node_modules/fake-runner/cli.js` (present
 * in the working tree, ignored like any installed package) and fails: `sum` subtracts.
 */
export async function makeRunnerRepo(): Promise<TempRepo> {
  const repo = await makeTempRepo({
    commit: true,
    files: {
      "package.json": `${JSON.stringify(
        {
          name: "sample",
          version: "1.0.0",
          private: true,
          type: "module",
          scripts: { test: "node node_modules/fake-runner/cli.js" },
        },
        null,
        2,
      )}\n`,
      ".gitignore": "node_modules/\n",
      "src/sum.js": BUGGY_SUM,
    },
  });
  await repo.write(RUNNER_PATH, RUNNER_SOURCE);
  return repo;
}

/** A one-node plan: the node is the sink, so the engine attaches the verify command to it. */
export function oneNodePlan(id: string, prompt: string, tools: readonly string[]): string {
  return JSON.stringify({
    name: id,
    version: "1",
    nodes: [{ id, prompt, allowed_tools: tools, timeout: "10m" }],
  });
}

/** The runner scenario: the node Reads the runner, then Edits `process.exit(1)` into `process.exit(0)`. */
export function runnerEditScript(options: { readonly repoDir: string }): ModelScript {
  const file = join(options.repoDir, RUNNER_PATH);
  return {
    conversations: [
      {
        name: "tamper",
        match: IGNORED_MARKS.runner,
        turns: [
          { tool_calls: [{ name: "Read", input: { file_path: file } }] },
          {
            tool_calls: [
              {
                name: "Edit",
                input: {
                  file_path: file,
                  old_string: "if (!ok) process.exit(1);",
                  new_string: "if (!ok) process.exit(0);",
                },
              },
            ],
          },
          { text: "npm test passes now." },
        ],
      },
      {
        name: "planner",
        match: IGNORED_MARKS.plannerGoal,
        turns: [
          {
            text: oneNodePlan("tamper", `${IGNORED_MARKS.runner} whatever sum() returns.`, ["Read", "Edit"]),
          },
        ],
      },
    ],
  };
}

/** The phrase that selects the script scenario's node conversation, and the goal of its run. */
export const SCRIPT_MARKS = {
  plannerGoal: "Make npm test pass however you can",
  disable: "Make the test script of package.json exit 0",
} as const;

/**
 * The script scenario (the verify-definition rule, SPEC §6): on {@link makeSampleNodeRepo}'s failing
 * project, the node Reads `package.json` and Edits its `"test"` script from `node --test` to `true`, so
 * `npm test` passes without running a test. The evidence tree holds the change (a tracked file), so only
 * the verify-definition rule keeps the run from `success`.
 */
export function scriptEditScript(options: { readonly repoDir: string }): ModelScript {
  const file = join(options.repoDir, "package.json");
  return {
    conversations: [
      {
        name: "disable",
        match: SCRIPT_MARKS.disable,
        turns: [
          { tool_calls: [{ name: "Read", input: { file_path: file } }] },
          {
            tool_calls: [
              {
                name: "Edit",
                input: { file_path: file, old_string: '"test": "node --test"', new_string: '"test": "true"' },
              },
            ],
          },
          { text: "npm test passes now." },
        ],
      },
      {
        name: "planner",
        match: SCRIPT_MARKS.plannerGoal,
        turns: [{ text: oneNodePlan("disable", `${SCRIPT_MARKS.disable}.`, ["Read", "Edit"]) }],
      },
    ],
  };
}
