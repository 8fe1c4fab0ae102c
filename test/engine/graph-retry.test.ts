/**
 * Retries at run time (SPEC §3 `retry`, §4 "Failure"; research/oh-my-graph.md §2.4, §6.4): every cause of
 * the closed set is retried exactly when `retry.on` lists it, and a judged retry quotes the previous reply
 * once, nonce-fenced, in a fresh session, while a non-judged one quotes nothing.
 *
 * Everything here runs on BOTH runtimes except `budget_exceeded` (claude's `budget_usd`; codex reports no
 * USD, and its documented answer — a warning naming the timeout — is tested in codex-runtime.test.ts).
 * Each cause is produced the way it happens: the real `claude` / `codex` CLI against the scripted model
 * server for `result_mismatch`, `verify_failed` (a real `node --test` in a real repository, the fix made
 * with the runtime's own tools) and `run_error` (the API answers 500: claude reports `is_error`, codex
 * `turn.failed`); the fake CLI, in the runtime's own stream, for what the real one cannot be made to do
 * (`nonzero_exit` after a clean result, `output_error`, a hang past `timeout`, a reported cost over
 * `budget_usd`); a PATH without the CLI for a spawn error.
 *
 * Each "not listed" graph lists every OTHER cause, and its node's second execution would pass: a retry
 * that should not happen shows up as a second row.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { Qualifier } from "../../src/core/ledger-row.js";
import { RETRY_CAUSES, type RetryCause } from "../../src/graph/schema.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import {
  answeredScenario,
  type FakeScenario,
  hangScenario,
  initEvent,
  resultEvent,
} from "../support/fake-claude/index.js";
import { type ModelScript, type ModelServer, startModelServer } from "../support/model-server/index.js";
import { makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import {
  asFail,
  type Execution,
  graphHarnessPerTest,
  readEvents,
  readState,
  requestsOf,
  rowWords,
} from "./graph-harness.js";
import { describeEachBehaviourOnce, editCall, readCall } from "./runtime-harness.js";

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

/** claude's fake answer with `overrides` on its result event (e.g. a cost). */
const claudeAnswering = (overrides: Record<string, unknown>): FakeScenario => ({
  steps: [{ json: initEvent() }, { json: resultEvent(overrides) }],
});

/** One cause: the node's extra fields, its model script and how its two executions play. */
interface CauseCase {
  readonly cause: RetryCause;
  /** YAML lines added to the node (indented by 4). */
  readonly extra: string;
  readonly makeRepo?: () => Promise<TempRepo>;
  readonly script: (repo: TempRepo) => ModelScript;
  readonly executions: () => Promise<readonly Execution[]>;
  /** The qualifier of the PASS the retry earns. */
  readonly passes: Qualifier;
}

const fixScript = (reply = "Fixed sum()."): ModelScript => ({
  conversations: [{ name: "fix", match: "FIX-MARK", turns: [{ text: reply }] }],
});

/**
 * The sample project: the attempt after a judged failure (its prompt quotes the reply) really edits the
 * file, with the runtime's own tools.
 */
function fixingScript(runtime: Runtime, repo: TempRepo, firstReply: string, retryReply: string): ModelScript {
  const file = `${repo.dir}/src/sum.js`;
  return {
    conversations: [
      {
        name: "fix-retry",
        match: ["FIX-MARK", "previous-attempt-reply"],
        turns: [
          { tool_calls: [readCall(runtime, file)] },
          { tool_calls: [editCall(runtime, file, "  return a - b;", "  return a + b;")] },
          { text: retryReply },
        ],
      },
      { name: "fix", match: "FIX-MARK", turns: [{ text: firstReply }] },
    ],
  };
}

/** The causes on `runtime` (`budget_exceeded` is claude's: codex has no USD to exceed). */
function casesFor(runtime: Runtime): readonly CauseCase[] {
  const all: CauseCase[] = [
    {
      cause: "nonzero_exit",
      extra: "",
      script: () => fixScript(),
      // A clean result, then exit 3: the real CLIs never exit non-zero after a clean turn.
      executions: async () => [answeredScenario(runtime, "Fixed sum().", 3), "real"],
      passes: "exit-only",
    },
    {
      cause: "run_error",
      extra: "",
      script: () => fixScript(),
      executions: async () => [{ server: await failingApi() }, "real"],
      passes: "exit-only",
    },
    {
      cause: "timeout",
      extra: "timeout: 2s",
      script: () => fixScript(),
      // Both fakes: the real CLI's start-up alone could come near a 2s timeout on a loaded machine.
      executions: async () => [hangScenario(runtime), answeredScenario(runtime, "Fixed sum().")],
      passes: "exit-only",
    },
    {
      cause: "output_error",
      extra: "",
      script: () => fixScript(),
      executions: async () => [{ steps: [{ stdout: "Segmentation fault (core dumped)" }] }, "real"],
      passes: "exit-only",
    },
    {
      cause: "verify_failed",
      extra: 'success_check: { verify: { command: "node --test" } }',
      makeRepo: makeSampleNodeRepo,
      script: (repo) =>
        fixingScript(runtime, repo, "I looked at it; nothing needs to change.", "Fixed sum()."),
      executions: async () => ["real", "real"],
      passes: "verified",
    },
    {
      cause: "result_mismatch",
      extra: 'success_check: { exit_zero: true, result_matches: "^FIXED" }',
      script: () => ({
        conversations: [
          {
            name: "fix-retry",
            match: ["FIX-MARK", "previous-attempt-reply"],
            turns: [{ text: "FIXED: sum adds" }],
          },
          { name: "fix", match: "FIX-MARK", turns: [{ text: "Still broken: the test fails." }] },
        ],
      }),
      executions: async () => ["real", "real"],
      passes: "self-reported",
    },
  ];
  return all;
}

/** A cause only claude reports (codex gives no cost to hold a budget against). */
const BUDGET_CASE: CauseCase = {
  cause: "budget_exceeded",
  extra: "budget_usd: 0.5",
  script: () => fixScript(),
  executions: async () => [claudeAnswering({ result: "Fixed sum().", total_cost_usd: 0.9 }), "real"],
  passes: "exit-only",
};

function graphOf(c: CauseCase, on: readonly RetryCause[]): string {
  return [
    `name: retry-${c.cause}`,
    "nodes:",
    "  - id: fix",
    `    prompt: ${JSON.stringify(PROMPT)}`,
    "    allowed_tools: [Read, Edit]",
    ...(c.extra !== "" ? [`    ${c.extra}`] : []),
    `    retry: { max: 1, on: [${on.join(", ")}] }`,
    "",
  ].join("\n");
}

/** A cause listed in retry.on: the FAIL row is superseded and the next attempt runs and passes. */
async function listedIsRetried(runtime: Runtime, c: CauseCase): Promise<void> {
  const h = await harness({
    runtime,
    ...(c.makeRepo ? { makeRepo: c.makeRepo } : {}),
    script: c.script,
  });
  const { ledger, runDir } = await h.run(graphOf(c, [c.cause]), {
    executions: { fix: await c.executions() },
  });

  expect(rowWords(ledger.rows)).toEqual([`fix FAIL ${c.cause} superseded`, `fix PASS (${c.passes})`]);
  expect(h.spawnsOf("fix")).toBe(2);
  const retried = readEvents(runDir).filter((e) => e.type === "node_retried");
  expect(retried).toEqual([expect.objectContaining({ node: "fix", cause: c.cause, attempt: 2 })]);
  // The superseded FAIL does not decide the run.
  expect(ledger.conclusion?.outcome).toBe("passed");
  expect(ledger.conclusion?.conclusion).not.toBe("failure");
  expect(readState(runDir).nodes.fix).toMatchObject({ status: "passed", executions: 2 });
}

/** A cause not listed (every other cause is): one FAIL, no retry. */
async function unlistedIsFinal(runtime: Runtime, c: CauseCase): Promise<void> {
  const h = await harness({
    runtime,
    ...(c.makeRepo ? { makeRepo: c.makeRepo } : {}),
    script: c.script,
  });
  const others = RETRY_CAUSES.filter((cause) => cause !== c.cause);
  const { ledger, runDir } = await h.run(graphOf(c, others), {
    executions: { fix: await c.executions() },
  });

  expect(rowWords(ledger.rows)).toEqual([`fix FAIL ${c.cause}`]);
  expect(h.spawnsOf("fix")).toBe(1);
  expect(readEvents(runDir).filter((e) => e.type === "node_retried")).toEqual([]);
  expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
  expect(readState(runDir).nodes.fix).toMatchObject({ status: "failed", executions: 1 });
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("every cause in the closed set is retried exactly when retry.on lists it", () => {
    once.each(casesFor(runtime))(
      "$cause listed: the FAIL row is superseded and the next attempt runs and passes",
      (c) => listedIsRetried(runtime, c),
    );

    once.each(casesFor(runtime))("$cause not listed (every other cause is): one FAIL, no retry", (c) =>
      unlistedIsFinal(runtime, c),
    );

    once(
      "retry.max bounds the attempts: a cause that keeps failing gets 1 + max executions, then the last FAIL counts",
      async () => {
        const h = await harness({ runtime, script: () => fixScript("Still broken.") });
        const { ledger } = await h.run(`
name: bounded
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    success_check: { exit_zero: true, result_matches: "^FIXED" }
    retry: { max: 2, on: [result_mismatch] }
`);
        expect(rowWords(ledger.rows)).toEqual([
          "fix FAIL result_mismatch superseded",
          "fix FAIL result_mismatch superseded",
          "fix FAIL result_mismatch",
        ]);
        expect(asFail(ledger.rows[2]).detail).toContain("attempt 3/3");
        expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
      },
    );
  });

  describe("a judged retry quotes the previous reply; any other retry quotes nothing (research §6.4)", () => {
    const judgedGraph = `
name: judged
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    success_check: { exit_zero: true, result_matches: "^FIXED" }
    retry: { max: 1, on: [result_mismatch] }
`;
    const firstReply = "Still broken: the test fails.";
    const judgedScript: ModelScript = {
      conversations: [
        {
          name: "fix-retry",
          match: ["FIX-MARK", "previous-attempt-reply"],
          turns: [{ text: "FIXED: sum adds" }],
        },
        { name: "fix", match: "FIX-MARK", turns: [{ text: firstReply }] },
      ],
    };
    const FENCE = /<<<DATA previous-attempt-reply nonce=([0-9a-f]+)>>>\n([\s\S]*?)\n<<<END DATA nonce=\1>>>/;

    once(
      "the second prompt is the base prompt plus the first reply inside a nonce fence, and two runs' nonces differ",
      async () => {
        const h = await harness({ runtime, script: () => judgedScript });
        const nonces: string[] = [];
        for (let run = 0; run < 2; run++) {
          const { ledger } = await h.run(judgedGraph);
          expect(rowWords(ledger.rows)).toEqual([
            "fix FAIL result_mismatch superseded",
            "fix PASS (self-reported)",
          ]);
          const first = requestsOf(h.server.requests, "fix")[run]!;
          const second = requestsOf(h.server.requests, "fix-retry")[run]!;
          expect(first.promptText).toBe(PROMPT);
          expect(second.promptText!.startsWith(`${PROMPT}\n\n`)).toBe(true);
          const fenced = FENCE.exec(second.promptText!);
          expect(fenced, second.promptText!).not.toBeNull();
          expect(fenced![2]).toBe(firstReply);
          expect(second.promptText).toContain("attempt 2 of 2");
          nonces.push(fenced![1]!);
        }
        expect(nonces[0]).not.toBe(nonces[1]);
      },
    );

    once("a run_error (the API failed) is retried with the base prompt alone", async () => {
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
      // Each CLI words the error turn its own way (measured: both exit 1; codex does not quote a 500's body).
      expect(asFail(ledger.rows[0]).detail).toMatch(
        runtime === "codex"
          ? /^codex reported turn\.failed \(exit 1\): We.re currently experiencing high demand/
          : /^claude reported is_error \(exit 1\): API Error: 500 .*Internal server error/,
      );
      expect(broken.requests.map((r) => r.promptText)).toEqual([PROMPT]);
      expect(requestsOf(h.server.requests, "fix").map((r) => r.promptText)).toEqual([PROMPT]);
    });

    once(
      "a spawn error (the CLI missing from PATH) is a run_error, retried with the base prompt alone",
      async () => {
        const h = await harness({ runtime, script: () => fixScript() });
        const { ledger } = await h.run(
          `
name: spawn-error
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [run_error] }
`,
          { executions: { fix: ["spawn-error", "real"] } },
        );
        expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error superseded", "fix PASS (exit-only)"]);
        expect(asFail(ledger.rows[0]).detail).toMatch(new RegExp(`^could not start ${runtime}: .*ENOENT`));
        expect(requestsOf(h.server.requests, "fix").map((r) => r.promptText)).toEqual([PROMPT]);
      },
    );

    once(
      "a verify that timed out (an infrastructure fault, not a judgment) is retried with the base prompt alone",
      async () => {
        const h = await harness({ runtime, script: () => fixScript("Done.") });
        const { ledger } = await h.run(`
name: verify-timeout
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    success_check: { verify: { command: "sleep 30", timeout: 1s } }
    retry: { max: 1, on: [verify_failed] }
`);
        expect(rowWords(ledger.rows)).toEqual([
          "fix FAIL verify_failed superseded",
          "fix FAIL verify_failed",
        ]);
        expect(asFail(ledger.rows[0]).verify?.outcome).toBe("timed_out");
        expect(requestsOf(h.server.requests, "fix").map((r) => r.promptText)).toEqual([PROMPT, PROMPT]);
      },
    );
  });

  describe("a run stopped between two attempts", () => {
    test("the retry never starts, and the attempt's FAIL stands (not marked superseded by a row that does not exist)", async () => {
      const h = await harness({ runtime, script: () => fixScript() });
      const controller = new AbortController();
      const { ledger, runDir } = await h.run(
        `
name: stopped-between-attempts
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [nonzero_exit] }
`,
        {
          signal: controller.signal,
          // The workflow is cancelled just as the retry is announced.
          hooks: { onNodeRetried: () => controller.abort() },
          executions: { fix: [answeredScenario(runtime, "Fixed sum().", 3), "real"] },
        },
      );
      expect(h.spawnsOf("fix")).toBe(1);
      expect(rowWords(ledger.rows)).toEqual(["fix FAIL nonzero_exit"]);
      expect(asFail(ledger.rows[0]).detail).toContain("retry not started: the run was cancelled");
      expect(ledger.conclusion).toMatchObject({ conclusion: "cancelled" });
      const state = readState(runDir);
      expect(rowWords(state.rows)).toEqual(["fix FAIL nonzero_exit"]);
      expect(readEvents(runDir).filter((e) => e.type === "node_failed")).toEqual([
        expect.objectContaining({ node: "fix", cause: "nonzero_exit" }),
      ]);
    });
  });
});

describe("on claude, budget_exceeded (codex reports no cost to hold a budget against)", () => {
  test("listed: the FAIL row is superseded and the next attempt runs and passes", () =>
    listedIsRetried("claude", BUDGET_CASE));
  test("not listed (every other cause is): one FAIL, no retry", () => unlistedIsFinal("claude", BUDGET_CASE));
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
