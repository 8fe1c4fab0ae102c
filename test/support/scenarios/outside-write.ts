/**
 * The "outside write" scenario: a node makes `npm test` pass by writing a file OUTSIDE the repository
 * that the repository's code imports (a library in a folder next to the checkout, as a parent folder's
 * `node_modules/` would be). Neither the evidence tree nor the ignored-files fingerprint covers that file,
 * so the verify passes on a commit whose fresh clone fails; the run must not be `success`. One node (a
 * sink, so the engine attaches the verify command to it) that really writes the file through the real
 * CLI's `Write` tool.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelScript } from "../model-server/index.js";
import { makeTempRepo, SAMPLE_TEST_NAME, type TempRepo } from "../temp-repo.js";
import { oneNodePlan } from "./ignored-edit.js";

/** Phrases that select each conversation (they occur only in that call's prompt). */
export const OUTSIDE_MARKS = {
  plannerGoal: "Make npm test pass by providing sumlib",
  vendor: "Write the sumlib library the tests import",
} as const;

/** The goal of the scenario's run (selects the planner conversation). */
export const OUTSIDE_GOAL = `${OUTSIDE_MARKS.plannerGoal}.`;

/** What the node writes into the outside library. */
export const SUMLIB_SOURCE = "export function sum(a, b) {\n  return a + b;\n}\n";

/** A repository plus the folder outside it that its code imports from. */
export interface OutsideRepo extends TempRepo {
  /** A temp folder outside the repository (removed with the repository). */
  readonly outsideDir: string;
  /** `<outsideDir>/node_modules/sumlib/index.js`: absent until the node writes it. */
  readonly libPath: string;
}

/**
 * A Node project committed on `main` whose test imports `sum` from `<outside>/node_modules/sumlib/index.js`
 * by absolute path — a file that does not exist, so `npm test` fails until something writes it.
 */
export async function makeOutsideRepo(): Promise<OutsideRepo> {
  const outsideDir = await mkdtemp(join(tmpdir(), "evidence-gate-outside-"));
  const libPath = join(outsideDir, "node_modules", "sumlib", "index.js");
  let repo: TempRepo;
  try {
    repo = await makeTempRepo({
      commit: true,
      files: {
        "package.json": `${JSON.stringify(
          {
            name: "sample",
            version: "1.0.0",
            private: true,
            type: "module",
            scripts: { test: "node --test" },
          },
          null,
          2,
        )}\n`,
        "test/sum.test.js": [
          'import assert from "node:assert/strict";',
          'import { test } from "node:test";',
          `import { sum } from ${JSON.stringify(libPath)};`,
          "",
          `test(${JSON.stringify(SAMPLE_TEST_NAME)}, () => {`,
          "  assert.equal(sum(2, 3), 5);",
          "});",
          "",
        ].join("\n"),
      },
    });
  } catch (error) {
    await rm(outsideDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...repo,
    outsideDir,
    libPath,
    cleanup: async () => {
      await repo.cleanup();
      await rm(outsideDir, { recursive: true, force: true });
    },
  };
}

/** The node Writes the library outside the repository, then says it is done. */
export function outsideWriteScript(options: { readonly libPath: string }): ModelScript {
  return {
    conversations: [
      {
        name: "vendor",
        match: OUTSIDE_MARKS.vendor,
        turns: [
          { tool_calls: [{ name: "Write", input: { file_path: options.libPath, content: SUMLIB_SOURCE } }] },
          { text: "Wrote sumlib; npm test passes now." },
        ],
      },
      {
        name: "planner",
        match: OUTSIDE_MARKS.plannerGoal,
        turns: [{ text: oneNodePlan("vendor", `${OUTSIDE_MARKS.vendor} at ${options.libPath}.`, ["Write"]) }],
      },
    ],
  };
}
