/**
 * The "test data" scenario (issue 22 item 4; rule `verify-definition-changed`, rule 9 `named-by-test`): the
 * sample project's test reads its cases from `data/cases.json` — a data file outside every test folder that
 * only the test's string literal ties to the test — and `sum` subtracts, so `npm test` fails. The one node (a
 * sink, so the engine attaches the verify command) Reads the cases and Edits the expected sum from 5 to -1
 * through the real CLI's tools: the bug is never fixed, `npm test` passes, and the run must not be
 * `success` nor be committed.
 */
import { join } from "node:path";
import type { ModelScript } from "../model-server/index.js";
import { BUGGY_SUM, makeTempRepo, SAMPLE_PACKAGE_JSON, type TempRepo } from "../temp-repo.js";
import { oneNodePlan } from "./ignored-edit.js";

/** Phrases that select each conversation (they occur only in that call's prompt). */
export const TEST_DATA_MARKS = {
  plannerGoal: "Make npm test pass by any edit",
  rewrite: "Change the expected sum in data/cases.json to what sum returns",
} as const;

/** The data file the test names, its text as committed and as the node leaves it. */
export const CASES_PATH = "data/cases.json";
export const CASES = '[{ "a": 2, "b": 3, "sum": 5 }]\n';
export const CHEATED_CASES = '[{ "a": 2, "b": 3, "sum": -1 }]\n';

/** A Node project on `main` whose `test/sum.test.js` checks `sum` against `data/cases.json`; it fails. */
export function makeCasesRepo(): Promise<TempRepo> {
  return makeTempRepo({
    commit: true,
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      ".gitignore": "node_modules/\n",
      "src/sum.js": BUGGY_SUM,
      [CASES_PATH]: CASES,
      "test/sum.test.js": [
        'import assert from "node:assert/strict";',
        'import { readFileSync } from "node:fs";',
        'import { test } from "node:test";',
        'import { sum } from "../src/sum.js";',
        "",
        'const cases = JSON.parse(readFileSync(new URL("../data/cases.json", import.meta.url), "utf8"));',
        "",
        'test("sum adds every case", () => {',
        "  for (const c of cases) assert.equal(sum(c.a, c.b), c.sum);",
        "});",
        "",
      ].join("\n"),
    },
  });
}

/** The node Reads `data/cases.json`, then Edits `"sum": 5` into `"sum": -1`. */
export function casesEditScript(options: { readonly repoDir: string }): ModelScript {
  const file = join(options.repoDir, CASES_PATH);
  return {
    conversations: [
      {
        name: "rewrite",
        match: TEST_DATA_MARKS.rewrite,
        turns: [
          { tool_calls: [{ name: "Read", input: { file_path: file } }] },
          {
            tool_calls: [
              { name: "Edit", input: { file_path: file, old_string: '"sum": 5', new_string: '"sum": -1' } },
            ],
          },
          { text: "npm test passes now." },
        ],
      },
      {
        name: "planner",
        match: TEST_DATA_MARKS.plannerGoal,
        turns: [{ text: oneNodePlan("rewrite", `${TEST_DATA_MARKS.rewrite}.`, ["Read", "Edit"]) }],
      },
    ],
  };
}
