/**
 * Placeholders in a verify command are substituted as single shell words (engine/agent-node.ts `shellQuote`): an
 * input value or a model's reply cannot add shell syntax to the command whose exit code is the evidence.
 * The real `claude` / `codex` CLI replies (both runtimes); the verify is a real `sh -e -c`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { shellQuote } from "../../src/engine/agent-node.js";
import { graphHarnessPerTest, rowWords } from "./graph-harness.js";
import { RUNTIMES } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

const NASTY = `a; touch pwned-input 'quoted' "double" $HOME \`touch pwned-tick\` \\ end`;
const REPLY = "$(touch pwned-reply); rm -rf nothing-here";

describe("verify commands get placeholders as single shell words", () => {
  test("shellQuote keeps every character and closes no quote early", () => {
    expect(shellQuote("plain")).toBe("'plain'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
  });

  test.each(RUNTIMES)(
    "on %s, an input value and a model reply reach the verify command as data: nothing they spell runs",
    async (runtime) => {
      const h = await harness({
        runtime,
        script: () => ({ conversations: [{ name: "say", match: "SAY-MARK", turns: [{ text: REPLY }] }] }),
      });
      const graph = `
nodes:
  - id: say
    prompt: "SAY-MARK"
    allowed_tools: [Read]
  - id: check
    depends_on: [say]
    prompt: "SAY-MARK again"
    allowed_tools: [Read]
    success_check:
      verify:
        command: "printf '%s\\\\n' {{ inputs.v }} {{ artifacts.say | inline }} > seen.txt"
`;
      const done = await h.run(graph, { inputs: { v: NASTY } });
      expect(rowWords(done.ledger.rows)).toEqual(["say PASS (exit-only)", "check PASS (verified)"]);
      expect(readFileSync(join(h.repo.dir, "seen.txt"), "utf8")).toBe(`${NASTY}\n${REPLY}\n`);
      for (const file of ["pwned-input", "pwned-tick", "pwned-reply"]) {
        expect(existsSync(join(h.repo.dir, file)), file).toBe(false);
      }
    },
  );
});
