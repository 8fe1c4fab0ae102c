/**
 * The CLI's in-process harness (test/support/cli-in-process.ts) keeps its promise: a model call nobody
 * scripted fails the command's test, even when the engine turned the rejection into a ledger row, and the
 * calls the engine made are what the harness reports.
 */
import { expect, test } from "vitest";
import { replied } from "../engine/port-harness.js";
import { cliInProcess, runCliInProcess } from "../support/cli-in-process.js";
import { FIX_GRAPH } from "../support/scenarios/cli-graphs.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";

test("a call nobody scripted (the check node's) fails the command, naming the label and the call number", async () => {
  const h = await cliInProcess({ plays: { implement: fixSumPlays().implement! } });

  await expect(h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), [])).rejects.toThrow(
    'scripted-calls: call 1 of "check" was not scripted (0 scripted for it)',
  );
  expect(h.calls().map((c) => c.label)).toEqual(["implement", "check"]);
  expect(h.madeFor("implement")[0]?.prompt).toContain("Fix the bug in src/sum.js");
});

test("runCliInProcess: a command that calls no model returns its exit code and output, and no call", async () => {
  const r = await runCliInProcess(["run", "--help"], { cwd: "/", env: {} });

  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^usage: evidence-gate run GRAPH/);
  expect(r.calls).toEqual([]);
  expect(r.madeFor("planner")).toEqual([]);
});

test("a command that spawns the stand-in model CLI (here a verify command running `claude`) fails, naming its command line", async () => {
  const h = await cliInProcess({ plays: { n: [replied("claude", "done")] } });
  const graph = h.writeGraph(
    "probe.yml",
    "nodes:\n  - id: n\n    prompt: p\n    allowed_tools: [Read]\n    success_check:\n      verify: { command: 'claude --probe || true' }\n",
  );

  await expect(h.runGraph(graph, [])).rejects.toThrow(
    /spawned the stand-in model CLI instead of calling the model port \(CliIo\.modelCalls\): \S+\/claude --probe/,
  );
});
