/**
 * What `run` refuses before anything runs (SPEC §3, §7; "a refused run spends nothing"): a graph that
 * declares the completion gate this version does not run, `{{ inputs.X }}` that were not given, and a
 * node that names a subagent (`agent:`, a Claude-only oh-my-graph field) — on either runtime — and a
 * `worktree:` node where the action swapped the pull request's agent configuration. No run
 * directory is made, no CLI is looked up.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HandRunOptions, runHandWritten } from "../../src/engine/hand-run.js";
import type { Runtime } from "../../src/policy/disclosure.js";

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

  it.each([
    [
      "codex",
      'node "review" sets agent "code-reviewer": agent names a Claude Code subagent, which the codex runtime cannot run',
    ],
    // Not a git repository here: there is no committed HEAD to read .claude/agents/NAME.md from.
    [
      "claude",
      'agent "code-reviewer": cannot read .claude/agents/code-reviewer.md at HEAD: git cannot read HEAD',
    ],
  ] as const)(
    "on %s, a node naming a subagent (agent:) it cannot run is refused before anything runs",
    async (runtime, why) => {
      const graph = "nodes:\n  - id: review\n    prompt: Review the diff.\n    agent: code-reviewer\n";
      const result = await runHandWritten(options(graph, {}, runtime));
      expect(result).toMatchObject({ kind: "usage_error" });
      expect(result.kind === "usage_error" ? result.message : "").toContain(why);
      expect(existsSync(join(dir, "runs"))).toBe(false);
    },
  );

  it("where the agent configuration was swapped (the action's pull-request check), worktree is refused; on the CLI it passes this check", async () => {
    const graph = "nodes:\n  - id: dev\n    prompt: Fix it.\n    worktree: lane\n";
    const swapped = await runHandWritten({
      ...options(graph),
      surface: "action",
      indexOverlay: { covers: () => false, apply: async () => undefined },
    });
    expect(swapped).toMatchObject({ kind: "usage_error" });
    expect(swapped.kind === "usage_error" ? swapped.message : "").toContain(
      'node "dev" declares worktree, which this version does not run in a pull request\'s check',
    );
    // Without the swap the refusal moves on to the repository (not a git repository here).
    const local = await runHandWritten(options(graph));
    expect(local.kind === "usage_error" ? local.message : "").not.toContain("worktree");
    expect(existsSync(join(dir, "runs"))).toBe(false);
  });
});
