/**
 * The codex side of the end-to-end scenarios (CLI `--runtime codex`, action `runtime: codex`): the
 * "fix sum" plan played through the real pinned `codex` CLI (its `apply_patch` and `exec_command` tools,
 * model `gpt-5.5` for classic tools — test/support/model-server/env.ts), and a recording stand-in in front
 * of the real CLI that logs, per call, the `CODEX_HOME` and `HOME` it was given and the names of its
 * environment variables, then `exec`s the real `codex` with the same arguments.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelScript } from "../model-server/index.js";
import { MARKS } from "./fix-sum.js";

/** The pinned real `codex` CLI (devDependency). */
export const CODEX_BIN = fileURLToPath(new URL("../../../node_modules/.bin/codex", import.meta.url));

/** The planner's JSON reply: one node that fixes sum() (its prompt carries `MARKS.implement`). */
export function codexFixPlan(): string {
  return JSON.stringify({
    name: "fix-sum",
    version: "1",
    nodes: [
      {
        id: "implement",
        prompt: `${MARKS.implement} so that sum(a, b) returns a + b. Edit only that file.`,
        allowed_tools: ["Read", "Edit"],
      },
    ],
  });
}

/**
 * The model script: the planner answers {@link codexFixPlan}; the implement node reads `src/sum.js`
 * (`exec_command cat`), patches it (`apply_patch`) and says it is done. Usage is the server's default
 * (100 input / 20 output tokens per request), so a run's token total is known in advance.
 */
export function codexFixSumScript(repoDir: string): ModelScript {
  const file = join(repoDir, "src", "sum.js");
  return {
    conversations: [
      {
        name: "implement",
        match: MARKS.implement,
        turns: [
          { tool_calls: [{ name: "exec_command", input: { cmd: `cat ${file}` } }] },
          {
            tool_calls: [
              {
                name: "apply_patch",
                input: {
                  input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-  return a - b;\n+  return a + b;\n*** End Patch\n`,
                },
              },
            ],
          },
          { text: "Fixed sum() in src/sum.js." },
        ],
      },
      { name: "planner", match: MARKS.plannerGoal, turns: [{ text: codexFixPlan() }] },
    ],
  };
}

/** What one codex call was given, as the recording stand-in logged it. */
export interface CodexCallEnv {
  readonly codexHome: string;
  readonly home: string;
  /** `OPENAI_API_KEY` as given (a test key), `""` when absent. */
  readonly openaiApiKey: string;
  readonly codexApiKey: string;
  /** Every variable name in its environment. */
  readonly names: readonly string[];
  /** The node that ran it ({@link writeRecordingCodexOnNode} only). */
  readonly node?: string;
}

/**
 * Writes an executable `codex` into `binDir` that appends one line per call to `log` and then runs the real
 * CLI (`exec`, so the engine's process group and timeouts apply to codex itself). Returns its path.
 */
export function writeRecordingCodex(binDir: string, log: string): string {
  mkdirSync(binDir, { recursive: true });
  const path = join(binDir, "codex");
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      // One tab-separated line per call: CODEX_HOME, HOME, the two keys, every variable name (comma-joined).
      `printf '%s\\t%s\\t%s\\t%s\\t%s\\n' "$CODEX_HOME" "$HOME" "$OPENAI_API_KEY" "$CODEX_API_KEY" "$(env | sed -n 's/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p' | paste -sd, -)" >> '${log}'`,
      `exec '${CODEX_BIN}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

/**
 * {@link writeRecordingCodex} as a node script (`#!/usr/bin/env node`, as `@openai/codex`'s own `codex.js`):
 * each logged line also ends with the `process.execPath` that ran it, and it runs the real CLI on that
 * same node (a child in the engine's process group, so its timeouts and kills reach codex). Returns its
 * path.
 */
export function writeRecordingCodexOnNode(binDir: string, log: string): string {
  mkdirSync(binDir, { recursive: true });
  const path = join(binDir, "codex");
  writeFileSync(
    path,
    [
      "#!/usr/bin/env node",
      'const fs = process.getBuiltinModule("node:fs");',
      'const cp = process.getBuiltinModule("node:child_process");',
      "const e = process.env;",
      'const names = Object.keys(e).filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)).join(",");',
      `fs.appendFileSync(${JSON.stringify(log)}, [e.CODEX_HOME ?? "", e.HOME ?? "", e.OPENAI_API_KEY ?? "", e.CODEX_API_KEY ?? "", names, process.execPath].join("\\t") + "\\n");`,
      `const run = cp.spawnSync(process.execPath, [${JSON.stringify(CODEX_BIN)}, ...process.argv.slice(2)], { stdio: "inherit" });`,
      "process.exit(run.status ?? 1);",
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}

/** The calls {@link writeRecordingCodex} logged, in order (`[]` when codex never ran). */
export function recordedCodexCalls(log: string): CodexCallEnv[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [codexHome = "", home = "", openaiApiKey = "", codexApiKey = "", names = "", node] =
        line.split("\t");
      return {
        codexHome,
        home,
        openaiApiKey,
        codexApiKey,
        names: names.split(",").filter((n) => n !== ""),
        ...(node !== undefined ? { node } : {}),
      };
    });
}
