/**
 * A resumed leg continues exactly the files the run left (SPEC §4, §6): an edit made while a gate waited
 * cannot ride along under the approval, nodes' changes that went missing are not reported as verified, a
 * fresh checkout of the starting commit gets the run's patch put back first, and `--commit` is refused for
 * a run that began on uncommitted edits. Through the model port (./port-harness.ts): the implementer's
 * play writes a real file in a real repository (the stand-in for its edit tool); verify commands are real.
 * Each test runs on ONE runtime, claude or codex in turn ({@link describeEachBehaviourOnce}): what a
 * resumed leg's files are is the engine's alone (it never branches on the runtime:
 * test/architecture/runtime-branches.test.ts), the gate's leg resumes no model session, and each play is a
 * plain reply, whose stream each runtime's parser is tested on in test/runtime/claude-stream.test.ts and
 * codex-stream.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Runtime } from "../../src/policy/disclosure.js";
import { makeTempRepo } from "../support/temp-repo.js";
import { type PortHarness, portHarnessPerTest, replied } from "./port-harness.js";
import { readState, rowWords } from "./run-readers.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

const harness = portHarnessPerTest();

// implement edits notes.txt; a person approves; check verifies the edit is there.
const GRAPH = `
nodes:
  - id: implement
    prompt: "IMPLEMENT-MARK: write the notes."
    allowed_tools: [Write]
    permission_mode: acceptEdits
  - id: approve
    type: gate
    depends_on: [implement]
  - id: check
    depends_on: [approve]
    prompt: "CHECK-MARK: look at the notes."
    allowed_tools: [Read]
    success_check: { verify: { command: "grep -q 'the nodes wrote this' notes.txt" } }
`;

async function pausedHarness(runtime: Runtime): Promise<{ h: PortHarness; runId: string }> {
  const implement = replied(runtime, "written", { writes: { "notes.txt": "the nodes wrote this\n" } });
  const h = await harness({
    runtime,
    makeRepo: () => makeTempRepo({ commit: true, files: { "notes.txt": "empty\n", "README.md": "x\n" } }),
    // The second implement: the --commit test's second run.
    plays: { implement: [implement, implement], check: [replied(runtime, "looks fine")] },
  });
  const paused = await h.run(GRAPH);
  expect(paused.ledger.conclusion?.outcome).toBe("paused");
  expect(readFileSync(join(h.repo.dir, "notes.txt"), "utf8")).toBe("the nodes wrote this\n");
  return { h, runId: paused.runId };
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("a resumed leg starts only on the files the run left", () => {
    once(
      "a file edited while the gate waited is refused: nothing runs, the state keeps waiting",
      async () => {
        const { h, runId } = await pausedHarness(runtime);
        writeFileSync(join(h.repo.dir, "README.md"), "edited during the pause\n");
        const result = await h.resumeRaw(runId, { kind: "approve", gate: "approve", by: "alice" });
        expect(result.kind).toBe("usage_error");
        expect(result.kind === "usage_error" ? result.message : "").toMatch(
          /the files in .* are not the ones run .* left when it paused/,
        );
        expect(h.spawnsOf("check")).toBe(0);
        expect(readState(join(h.runsDir, runId)).gates.approve?.status).toBe("waiting");
      },
    );

    once(
      "the nodes' changes gone missing (a clean checkout at another commit state) are refused, not verified",
      async () => {
        const { h, runId } = await pausedHarness(runtime);
        // Not the starting commit's tree either: notes.txt reverted AND README.md changed.
        writeFileSync(join(h.repo.dir, "notes.txt"), "empty\n");
        writeFileSync(join(h.repo.dir, "README.md"), "other\n");
        const result = await h.resumeRaw(runId, { kind: "approve", gate: "approve", by: "alice" });
        expect(result.kind).toBe("usage_error");
      },
    );

    once(
      "a fresh checkout of the starting commit gets the run's patch.diff applied, then the leg runs and verifies the nodes' edit",
      async () => {
        const { h, runId } = await pausedHarness(runtime);
        // What the action's resume job sees: the starting commit checked out, the nodes' edit not there.
        writeFileSync(join(h.repo.dir, "notes.txt"), "empty\n");
        const done = await h.resume(runId, { kind: "approve", gate: "approve", by: "alice" });
        expect(readFileSync(join(h.repo.dir, "notes.txt"), "utf8")).toBe("the nodes wrote this\n");
        expect(rowWords(done.ledger.rows)).toEqual([
          "implement PASS (exit-only)",
          "approve PASS (approved)",
          "check PASS (verified)",
        ]);
      },
    );

    once(
      "--commit is refused for a run that began on uncommitted edits; allowed for one that began clean",
      async () => {
        const { h, runId } = await pausedHarness(runtime);
        // This run began clean: --commit may commit the nodes' work after the approval.
        const committed = await h.resume(
          runId,
          { kind: "approve", gate: "approve", by: "alice" },
          { commit: true },
        );
        expect(committed.ledger.postedCommit?.sha).toMatch(/^[0-9a-f]{40}$/);

        // A second run that begins with an uncommitted edit: its resume --commit is refused.
        writeFileSync(join(h.repo.dir, "README.md"), "my unrelated WIP\n");
        const paused = await h.run(GRAPH.replace("IMPLEMENT-MARK", "IMPLEMENT-MARK again"));
        expect(paused.ledger.conclusion?.outcome).toBe("paused");
        const refused = await h.resumeRaw(
          paused.runId,
          { kind: "approve", gate: "approve", by: "alice" },
          { commit: true },
        );
        expect(refused.kind === "usage_error" ? refused.message : "").toContain(
          "began on a working tree with uncommitted changes",
        );
        expect(readState(join(h.runsDir, paused.runId)).start_clean).toBe(false);
      },
    );
  });
});

describe("a run killed mid-leg (SIGKILL, a lost runner)", () => {
  it("already left ignored-baseline.json when its first node started, so its --retry-failed can compare the ignored files", async () => {
    const h = await harness({
      runtime: "claude",
      makeRepo: () => makeTempRepo({ commit: true, files: { ".gitignore": "build/\n", "README.md": "x\n" } }),
      plays: { implement: [replied("claude", "done")], check: [replied("claude", "fine")] },
    });
    let runDir = "";
    const seen: Record<string, boolean> = {};
    const finished = await h.run(
      `
nodes:
  - id: implement
    prompt: "IMPLEMENT-MARK"
    allowed_tools: [Read]
  - id: check
    depends_on: [implement]
    prompt: "CHECK-MARK"
    allowed_tools: [Read]
    success_check: { verify: { command: "true" } }
`,
      {
        hooks: {
          onRunStarted: (_id, dir) => {
            runDir = dir;
          },
          onNodeStarted: (nodeId) => {
            seen[nodeId] = existsSync(join(runDir, "ignored-baseline.json"));
          },
        },
      },
    );
    expect(finished.ledger.conclusion?.outcome).toBe("passed");
    // Written when the leg started (before any node), not only when it ended: a kill at any node leaves it.
    expect(seen).toEqual({ implement: true, check: true });
  });
});
