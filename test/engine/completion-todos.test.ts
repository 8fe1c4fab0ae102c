/**
 * The completion gate's todo check (SPEC §7 `todos: all_done`; issue 13 item 4) when the model declares no
 * plan, on both runtimes through the model port (./port-harness.ts): it passes without `require_plan` and
 * fails with it until the attempts run out. The plan declared through the real CLIs' own plan tools is
 * completion-todos.real-cli.test.ts.
 */
import { describe, expect, test } from "vitest";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { asFail, rowWords } from "./run-readers.js";
import { RUNTIMES } from "./runtime-harness.js";

const start = portHarnessPerTest();

function graph(verify: string, max: number): string {
  return [
    "nodes:",
    "  - id: plan",
    "    prompt: TODO-TASK do the work",
    "    completion:",
    `      verify: ${verify}`,
    `      max_attempts: ${max}`,
    "",
  ].join("\n");
}

describe.each(RUNTIMES)("completion todos: all_done on %s", (runtime) => {
  test("no plan declared passes without require_plan, and fails with it until the attempts run out", async () => {
    const h = await start({
      runtime,
      plays: {
        plan: [
          replied(runtime, "done without a plan"),
          replied(runtime, "done without a plan"),
          replied(runtime, "still no plan"),
        ],
      },
    });
    const lenient = await h.run(graph("{ todos: all_done }", 2));
    expect(rowWords(lenient.ledger.rows)).toEqual(["plan PASS (self-reported)"]);
    // The model's own plan is no build evidence: the plan section lists the sink as unverified, no command.
    expect(lenient.ledger.plan.buildEvidence).toEqual({
      kind: "graph",
      verifiedSinks: [],
      unverifiedSinks: ["plan"],
    });
    expect(lenient.ledger.plan.sinkCommands).toEqual([]);
    expect(lenient.ledger.rows[0]?.detail).toContain("no plan declared (require_plan is false)");

    const strict = await h.run(graph("{ todos: all_done, require_plan: true }", 2));
    expect(rowWords(strict.ledger.rows)).toEqual(["plan FAIL incomplete superseded", "plan FAIL incomplete"]);
    expect(asFail(strict.ledger.rows[1]).stoppedBy).toBe(
      "completion.verify failed 2×: no plan declared (require_plan: true)",
    );
    expect(h.callsOf("plan")[2]?.prompt).toContain("no plan declared");
  });
});
