/**
 * Ready-set scheduling at run time (SPEC §4), through the model port (./port-harness.ts): independent
 * branches overlap, `concurrency: 1` runs one node at a time, and `--concurrency` overrides the graph's.
 * The overlap test runs on BOTH runtimes (it also reads each runtime's cost: claude's USD, codex's none);
 * the two `concurrency` tests run on ONE runtime each ({@link describeEachBehaviourOnce}): scheduling is
 * the engine's alone (test/architecture/runtime-branches.test.ts) and their plays are plain replies. Moved
 * from graph-run.test.ts; what needs the real process (process groups, the CLI in its cwd, the real CLI's
 * budget stop and session cost) is graph-run.real-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { eventIndex, readEvents, readState, rowWords } from "./run-readers.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

const harness = portHarnessPerTest();

/** The diamond's rows when every node passes, in node order. */
const ALL_PASSED = ["a", "b", "c", "d"].map((node) => `${node} PASS (exit-only)`);

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("ready-set scheduling (SPEC §4)", () => {
    const diamond = (concurrency: number | null) => `
name: diamond
${concurrency !== null ? `concurrency: ${concurrency}\n` : ""}nodes:
  - id: a
    prompt: "DIAMOND-A: list the modules of the repository."
    allowed_tools: [Read, Glob]
  - id: b
    depends_on: [a]
    prompt: "DIAMOND-B: document the first half of the modules."
    allowed_tools: [Read]
  - id: c
    depends_on: [a]
    prompt: "DIAMOND-C: document the second half of the modules."
    allowed_tools: [Read]
  - id: d
    depends_on: [b, c]
    prompt: "DIAMOND-D: join both halves into one page."
    allowed_tools: [Read]
`;
    const plays = {
      a: [replied(runtime, "modules: sum, format")],
      // The delays keep each branch in flight long enough to show the overlap in the event order.
      b: [replied(runtime, "sum documented", { delayMs: 400 })],
      c: [replied(runtime, "format documented", { delayMs: 400 })],
      d: [replied(runtime, "joined")],
    };

    it("independent branches run at once: b starts before c finishes and c before b finishes; d waits for both", async () => {
      const h = await harness({ runtime, plays });
      const { ledger, runDir } = await h.run(diamond(null));

      expect(rowWords(ledger.rows)).toEqual(ALL_PASSED);
      const events = readEvents(runDir);
      const at = (type: string, node: string) => {
        const i = eventIndex(events, type, node);
        expect(i, `${type} ${node}`).toBeGreaterThanOrEqual(0);
        return i;
      };
      expect(at("node_started", "b")).toBeLessThan(at("node_passed", "c"));
      expect(at("node_started", "c")).toBeLessThan(at("node_passed", "b"));
      expect(at("node_passed", "a")).toBeLessThan(Math.min(at("node_started", "b"), at("node_started", "c")));
      expect(at("node_started", "d")).toBeGreaterThan(
        Math.max(at("node_passed", "b"), at("node_passed", "c")),
      );
      expect([h.spawnsOf("b"), h.spawnsOf("c")]).toEqual([1, 1]);
      expect(ledger.conclusion).toMatchObject({ conclusion: "neutral", outcome: "passed" });
      // One call per node (100 in / 20 out). Cost: claude reports USD; codex never does (unknown, not $0).
      for (const row of ledger.rows) {
        expect(row.usage?.outputTokens, row.nodeId).toBe(20);
        if (runtime === "codex") expect(row.costUsd, row.nodeId).toBeNull();
        else expect(row.costUsd, row.nodeId).toBeGreaterThan(0);
      }
      expect(ledger.totals.nodes.kind).toBe(runtime === "codex" ? "unknown" : "known");
    });

    once("concurrency: 1 runs one node at a time: one branch passes before the other starts", async () => {
      const h = await harness({ runtime, plays });
      const { ledger, runDir } = await h.run(diamond(1));

      expect(rowWords(ledger.rows)).toEqual(ALL_PASSED);
      const events = readEvents(runDir);
      const starts = events.filter((e) => e.type === "node_started").map((e) => e.node);
      expect(starts).toEqual(["a", "b", "c", "d"]);
      // Every start comes after the previous node's end: never two in flight.
      for (const [prev, next] of [
        ["a", "b"],
        ["b", "c"],
        ["c", "d"],
      ] as const) {
        expect(eventIndex(events, "node_passed", prev)).toBeLessThan(
          eventIndex(events, "node_started", next),
        );
      }
      expect(readState(runDir).concurrency).toBe(1);
    });

    once("--concurrency overrides the graph's concurrency", async () => {
      const h = await harness({ runtime, plays });
      const { runDir } = await h.run(diamond(4), { concurrency: 1 });
      const events = readEvents(runDir);
      expect(eventIndex(events, "node_passed", "b")).toBeLessThan(eventIndex(events, "node_started", "c"));
    });
  });
});
