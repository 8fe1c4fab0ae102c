/**
 * The engine tier's harness itself (./port-harness.ts; issue 24 item 3): forgetting to script a model
 * fails loudly, naming the label and the call number, even though the engine turned the rejected call into
 * a row; and a scripted run spawns no model CLI.
 */
import { describe, expect, it } from "vitest";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { RUNTIMES } from "./runtime-harness.js";

const harness = portHarnessPerTest();

const TWO = `
name: two
nodes:
  - id: a
    prompt: "A"
  - id: b
    depends_on: [a]
    prompt: "B"
`;

describe.each(RUNTIMES)("on %s", (runtime) => {
  it("a node nobody scripted: the run method throws naming the node and the call number", async () => {
    const h = await harness({ runtime, plays: { a: [replied(runtime, "done")] } });
    await expect(h.run(TWO)).rejects.toThrow(
      'scripted-calls: call 1 of "b" was not scripted (0 scripted for it)',
    );
  });

  it("one call more than scripted: named with its number", async () => {
    const h = await harness({
      runtime,
      plays: { a: [replied(runtime, "no")], b: [replied(runtime, "done")] },
    });
    const graph = TWO.replace(
      'prompt: "A"',
      'prompt: "A"\n    success_check: { result_matches: "^yes" }\n    retry: { max: 1, on: [result_mismatch] }',
    );
    await expect(h.run(graph)).rejects.toThrow(
      'scripted-calls: call 2 of "a" was not scripted (1 scripted for it)',
    );
  });

  it("a scripted run: every call was played, none spawned (the stand-in executable would exit 97)", async () => {
    const h = await harness({
      runtime,
      plays: { a: [replied(runtime, "done a")], b: [replied(runtime, "done b")] },
    });
    const { ledger } = await h.run(TWO);
    expect(ledger.rows.map((r) => `${r.nodeId} ${r.verdict}`)).toEqual(["a PASS", "b PASS"]);
    expect(h.callsOf("b")[0]?.executable).toBe("model-cli-stand-in");
    expect([h.spawnsOf("a"), h.spawnsOf("b")]).toEqual([1, 1]);
  });
});
