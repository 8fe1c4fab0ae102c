/**
 * What `run` refuses before anything runs (SPEC §3, §7; "a refused run spends nothing"): a graph that
 * declares the completion gate this version does not run, `{{ inputs.X }}` that were not given, and a
 * node that names a subagent (`agent:`, a Claude-only oh-my-graph field) — on either runtime. No run
 * directory is made, no CLI is looked up.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HandRunOptions, runHandWritten } from "../../src/engine/hand-run.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { RUNTIMES } from "./runtime-harness.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eg-hand-refuse-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function options(
  graphText: string,
  inputs: Record<string, string> = {},
  runtime: Runtime = "claude",
): HandRunOptions {
  return {
    graphText,
    graphSource: "g.yml",
    inputs,
    repoDir: dir,
    continueOnFail: false,
    verifyEnv: [],
    runtime,
    commit: false,
    runsDir: join(dir, "runs"),
    surface: "cli",
    // Never looked up: the refusals come first.
    claudeExecutable: "/nonexistent/claude",
    codexExecutable: "/nonexistent/codex",
    modelEnv: () => ({}),
    baseEnv: {},
    knownSecrets: [],
  };
}

describe("run refuses before anything runs", () => {
  it("a node declaring completion is refused, naming the node and the way out", async () => {
    const result = await runHandWritten(
      options(
        "nodes:\n  - id: build\n    prompt: Build.\n    completion: { verify: { command: npm test }, max_attempts: 2 }\n",
      ),
    );
    expect(result.kind).toBe("usage_error");
    expect(result.kind === "usage_error" ? result.message : "").toMatch(
      /node "build" declares completion \(SPEC §7\), which this version does not run yet.*Nothing was run\./,
    );
    expect(existsSync(join(dir, "runs"))).toBe(false);
  });

  it("an input the graph uses but was not given is refused; given, it passes this check", async () => {
    const graph = "nodes:\n  - id: a\n    prompt: Fix {{ inputs.file }}.\n";
    const missing = await runHandWritten(options(graph));
    expect(missing.kind === "usage_error" ? missing.message : "").toContain("--input file=VALUE");
    // With the input the refusal moves on to the repository (not a git repository here).
    const given = await runHandWritten(options(graph, { file: "x.js" }));
    expect(given.kind === "usage_error" ? given.message : "").not.toContain("--input");
    expect(existsSync(join(dir, "runs"))).toBe(false);
  });

  it("an input named like an Object prototype key is still missing when not given", async () => {
    const result = await runHandWritten(
      options("nodes:\n  - id: a\n    prompt: '{{ inputs.constructor }}'\n"),
    );
    expect(result.kind === "usage_error" ? result.message : "").toContain("--input constructor=VALUE");
  });

  it.each(RUNTIMES)(
    "on %s, a node naming a subagent (agent:) is refused by the schema: nothing runs",
    async (runtime) => {
      const result = await runHandWritten(
        options(
          "nodes:\n  - id: review\n    prompt: Review the diff.\n    agent: code-reviewer\n",
          {},
          runtime,
        ),
      );
      expect(result).toMatchObject({ kind: "invalid_graph" });
      expect(result.kind === "invalid_graph" ? result.message : "").toContain(
        'invalid graph: node "review": unknown field "agent"; it is an oh-my-graph field evidence-gate does not support',
      );
      expect(existsSync(join(dir, "runs"))).toBe(false);
    },
  );
});
