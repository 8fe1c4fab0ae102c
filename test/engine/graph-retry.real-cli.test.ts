/**
 * Retries through the REAL CLI where only the real binary shows the behaviour (SPEC §4 "Failure"; issue
 * 26): the model API answers 500, and each CLI words the failed turn its own way (claude `is_error`, codex
 * `turn.failed`; claude's own hint names its base URL an "inference gateway", which the row replaces with
 * the model API). Every retry cause on both runtimes goes through the model port in graph-retry.test.ts.
 */
import { afterEach, describe, expect, test } from "vitest";
import { type ModelScript, type ModelServer, startModelServer } from "../support/model-server/index.js";
import { asFail, graphHarnessPerTest, requestsOf, rowWords } from "./graph-harness.js";

const harness = graphHarnessPerTest();
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A second model server whose API fails with a 500: the real CLI then reports `is_error` (run_error). */
async function failingApi(): Promise<ModelServer> {
  const server = await startModelServer({
    script: {
      conversations: [
        { name: "broken", match: "", turns: [{ error: { status: 500, message: "Internal server error" } }] },
      ],
    },
  });
  servers.push(server);
  return server;
}

const PROMPT = "FIX-MARK: fix sum() in src/sum.js so that the unit test passes.";

const fixScript = (reply = "Fixed sum()."): ModelScript => ({
  conversations: [{ name: "fix", match: "FIX-MARK", turns: [{ text: reply }] }],
});

describe("on codex", () => {
  const runtime = "codex";
  describe("a judged retry quotes the previous reply; any other retry quotes nothing (research §6.4)", () => {
    test("a run_error (the API failed) is retried with the base prompt alone", async () => {
      const h = await harness({ runtime, script: () => fixScript() });
      const broken = await failingApi();
      const { ledger } = await h.run(
        `
name: not-judged
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [run_error] }
`,
        { executions: { fix: [{ server: broken }, "real"] } },
      );
      expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error superseded", "fix PASS (exit-only)"]);
      // codex words the error turn its own way (measured: exit 1; it does not quote a 500's body).
      expect(asFail(ledger.rows[0]).detail).toMatch(
        /^codex reported turn\.failed \(exit 1\): We.re currently experiencing high demand/,
      );
      expect(broken.requests.map((r) => r.promptText)).toEqual([PROMPT]);
      expect(requestsOf(h.server.requests, "fix").map((r) => r.promptText)).toEqual([PROMPT]);
    });
  });
});

describe("a failure whose cause retry.on does not list (issue 26)", () => {
  test("a model API failure (run_error) under retry.on [nonzero_exit]: one FAIL whose row says it was not retried and why, and names the model API, not an 'inference gateway'", async () => {
    const h = await harness({ runtime: "claude", script: () => fixScript() });
    const broken = await failingApi();
    const { ledger } = await h.run(
      `
name: unlisted
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [nonzero_exit] }
`,
      { executions: { fix: [{ server: broken }, "real"] } },
    );
    expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error"]);
    expect(h.spawnsOf("fix")).toBe(1);
    const detail = asFail(ledger.rows[0]).detail;
    // "attempt 1/2" alone would promise a second attempt that never comes.
    expect(detail).toContain(
      "attempt 1/2; not retried: retry.on lists nonzero_exit, not run_error (a failed model API call is run_error)",
    );
    // claude's own hint names whatever ANTHROPIC_BASE_URL it was given as an "inference gateway"; the row
    // names the model API and the base URL it was pointed at instead.
    expect(detail).not.toContain("inference gateway");
    expect(detail).toContain(`If it persists, check the model API at ${new URL(broken.url).host}`);
  });
});
