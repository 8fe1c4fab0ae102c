/**
 * Retries at run time (SPEC §3 `retry`, §4 "Failure"; research/oh-my-graph.md §2.4, §6.4): every cause of
 * the closed set is retried exactly when `retry.on` lists it, and a judged retry quotes the previous reply
 * once, nonce-fenced, in a fresh session, while a non-judged one quotes nothing.
 *
 * Through the model port (./port-harness.ts): each cause is the runtime's own stream played through the
 * real parser — a clean result then exit 3 (`nonzero_exit`), the API failure as the CLI reports it
 * (`run_error`: claude `is_error`, codex `turn.failed`), a turn that never ends (`timeout`), garbage on
 * stdout (`output_error`), a reported cost over `budget_usd`, a CLI that cannot start — and real verify
 * commands in a real repository (`verify_failed`, the fix written by the play). The real CLIs' own words
 * for a failed API call are graph-retry.real-cli.test.ts.
 *
 * Each "not listed" graph lists every OTHER cause, and its node's second execution would pass: a retry
 * that should not happen shows up as a second row.
 *
 * Which runtime: a case whose plays are a runtime-specific stream shape — the API failure (claude
 * `is_error`, codex `turn.failed`), a turn that hangs, garbage on stdout — runs on BOTH runtimes;
 * `budget_exceeded` on claude only (claude's `budget_usd`; codex reports no USD, and its documented
 * answer — a warning naming the timeout — is tested in codex-runtime.test.ts). Every other behaviour is
 * the engine's alone (the engine never branches on the runtime: test/architecture/runtime-branches.test.ts)
 * and runs ONCE, on claude or codex in turn ({@link describeEachBehaviourOnce}); its plays are plain
 * replies (or a CLI that cannot start), whose stream each runtime's parser is tested on in
 * test/runtime/claude-stream.test.ts and codex-stream.test.ts ("text-only").
 */
import { describe, expect, it, test } from "vitest";
import type { Qualifier } from "../../src/core/ledger-row.js";
import { RETRY_CAUSES, type RetryCause } from "../../src/graph/schema.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { initEvent, resultEvent, threadStartedEvent } from "../support/fake-claude/index.js";
import { FIXED_SUM, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import { portHarnessPerTest, replied, type ScriptedPlay } from "./port-harness.js";
import { asFail, readEvents, readState, rowWords } from "./run-readers.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

const harness = portHarnessPerTest();

const PROMPT = "FIX-MARK: fix sum() in src/sum.js so that the unit test passes.";

/** One cause: the node's extra fields and how its two executions play. */
interface CauseCase {
  readonly cause: RetryCause;
  /** YAML lines added to the node (indented by 4). */
  readonly extra: string;
  readonly makeRepo?: () => Promise<TempRepo>;
  readonly plays: readonly ScriptedPlay[];
  /** The qualifier of the PASS the retry earns. */
  readonly passes: Qualifier;
}

/** The model API failed (a 500) as each CLI reports it: claude `is_error`, codex `turn.failed`; exit 1. */
function apiFailed(runtime: Runtime): ScriptedPlay {
  const message = "API Error: 500 Internal server error";
  return runtime === "claude"
    ? { lines: [initEvent(), resultEvent({ is_error: true, result: message })], exitCode: 1 }
    : {
        lines: [
          threadStartedEvent(),
          { type: "error", message },
          { type: "turn.failed", error: { message } },
        ],
        exitCode: 1,
      };
}

/** A turn that never ends: the runtime's first line, then nothing until the timeout. */
const hangs = (runtime: Runtime): ScriptedPlay => ({
  lines: [runtime === "claude" ? initEvent() : threadStartedEvent()],
  untilAborted: true,
});

/**
 * The causes on `runtime` whose first play is the runtime's own stream shape for the fault (an API failure,
 * a hang, garbage on stdout): run on both runtimes.
 */
function streamCasesFor(runtime: Runtime): readonly CauseCase[] {
  const fixed = replied(runtime, "Fixed sum().");
  return [
    { cause: "run_error", extra: "", plays: [apiFailed(runtime), fixed], passes: "exit-only" },
    { cause: "timeout", extra: "timeout: 1s", plays: [hangs(runtime), fixed], passes: "exit-only" },
    {
      cause: "output_error",
      extra: "",
      plays: [{ lines: ["Segmentation fault (core dumped)"] }, fixed],
      passes: "exit-only",
    },
  ];
}

/**
 * The causes on `runtime` whose plays are plain replies (the engine's judgment alone): run on one runtime.
 * `budget_exceeded` is claude's ({@link BUDGET_CASE}): codex has no USD to exceed.
 */
function engineCasesFor(runtime: Runtime): readonly CauseCase[] {
  const fixed = replied(runtime, "Fixed sum().");
  return [
    {
      cause: "nonzero_exit",
      extra: "",
      // A clean result, then exit 3.
      plays: [replied(runtime, "Fixed sum().", { exitCode: 3 }), fixed],
      passes: "exit-only",
    },
    {
      cause: "verify_failed",
      extra: 'success_check: { verify: { command: "node --test" } }',
      makeRepo: makeSampleNodeRepo,
      plays: [
        replied(runtime, "I looked at it; nothing needs to change."),
        replied(runtime, "Fixed sum().", { writes: { "src/sum.js": FIXED_SUM } }),
      ],
      passes: "verified",
    },
    {
      cause: "result_mismatch",
      extra: 'success_check: { exit_zero: true, result_matches: "^FIXED" }',
      plays: [replied(runtime, "Still broken: the test fails."), replied(runtime, "FIXED: sum adds")],
      passes: "self-reported",
    },
  ];
}

/** A cause only claude reports (codex gives no cost to hold a budget against). */
const BUDGET_CASE: CauseCase = {
  cause: "budget_exceeded",
  extra: "budget_usd: 0.5",
  plays: [
    { lines: [initEvent(), resultEvent({ result: "Fixed sum().", total_cost_usd: 0.9 })] },
    replied("claude", "Fixed sum()."),
  ],
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
    plays: { fix: c.plays },
  });
  const { ledger, runDir } = await h.run(graphOf(c, [c.cause]));

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
    plays: { fix: c.plays.slice(0, 1) },
  });
  const others = RETRY_CAUSES.filter((cause) => cause !== c.cause);
  const { ledger, runDir } = await h.run(graphOf(c, others));

  expect(rowWords(ledger.rows)).toEqual([`fix FAIL ${c.cause}`]);
  expect(h.spawnsOf("fix")).toBe(1);
  expect(readEvents(runDir).filter((e) => e.type === "node_retried")).toEqual([]);
  expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
  expect(readState(runDir).nodes.fix).toMatchObject({ status: "failed", executions: 1 });
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("every cause in the closed set is retried exactly when retry.on lists it", () => {
    it.each(streamCasesFor(runtime))(
      "$cause listed: the FAIL row is superseded and the next attempt runs and passes",
      (c) => listedIsRetried(runtime, c),
    );
    once.each(engineCasesFor(runtime))(
      "$cause listed: the FAIL row is superseded and the next attempt runs and passes",
      (c) => listedIsRetried(runtime, c),
    );

    it.each(streamCasesFor(runtime))("$cause not listed (every other cause is): one FAIL, no retry", (c) =>
      unlistedIsFinal(runtime, c),
    );
    once.each(engineCasesFor(runtime))("$cause not listed (every other cause is): one FAIL, no retry", (c) =>
      unlistedIsFinal(runtime, c),
    );

    once(
      "retry.max bounds the attempts: a cause that keeps failing gets 1 + max executions, then the last FAIL counts",
      async () => {
        const broken = replied(runtime, "Still broken.");
        const h = await harness({ runtime, plays: { fix: [broken, broken, broken] } });
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
    const FENCE = /<<<DATA previous-attempt-reply nonce=([0-9a-f]+)>>>\n([\s\S]*?)\n<<<END DATA nonce=\1>>>/;

    once(
      "the second prompt is the base prompt plus the first reply inside a nonce fence, and two runs' nonces differ",
      async () => {
        const judged = [replied(runtime, firstReply), replied(runtime, "FIXED: sum adds")];
        const h = await harness({ runtime, plays: { fix: [...judged, ...judged] } });
        const nonces: string[] = [];
        for (let run = 0; run < 2; run++) {
          const { ledger } = await h.run(judgedGraph);
          expect(rowWords(ledger.rows)).toEqual([
            "fix FAIL result_mismatch superseded",
            "fix PASS (self-reported)",
          ]);
          const first = h.callsOf("fix")[2 * run]!;
          const second = h.callsOf("fix")[2 * run + 1]!;
          expect(first.prompt).toBe(PROMPT);
          expect(second.prompt.startsWith(`${PROMPT}\n\n`)).toBe(true);
          const fenced = FENCE.exec(second.prompt);
          expect(fenced, second.prompt).not.toBeNull();
          expect(fenced![2]).toBe(firstReply);
          expect(second.prompt).toContain("attempt 2 of 2");
          // A fresh session: the retry does not continue the judged one.
          expect(second.session.kind).toBe("fresh");
          nonces.push(fenced![1]!);
        }
        expect(nonces[0]).not.toBe(nonces[1]);
      },
    );

    it("a run_error (the API failed) is retried with the base prompt alone", async () => {
      const h = await harness({
        runtime,
        plays: { fix: [apiFailed(runtime), replied(runtime, "Fixed sum().")] },
      });
      const { ledger } = await h.run(`
name: not-judged
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [run_error] }
`);
      expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error superseded", "fix PASS (exit-only)"]);
      expect(asFail(ledger.rows[0]).detail).toMatch(
        runtime === "codex"
          ? /^codex reported turn\.failed \(exit 1\): API Error: 500/
          : /^claude reported is_error \(exit 1\): API Error: 500/,
      );
      expect(h.callsOf("fix").map((c) => c.prompt)).toEqual([PROMPT, PROMPT]);
    });

    once(
      "a spawn error (the CLI missing from PATH) is a run_error, retried with the base prompt alone",
      async () => {
        const h = await harness({
          runtime,
          plays: {
            fix: [{ spawnFailed: "spawn model-cli-stand-in ENOENT" }, replied(runtime, "Fixed sum().")],
          },
        });
        const { ledger } = await h.run(
          `
name: spawn-error
nodes:
  - id: fix
    prompt: ${JSON.stringify(PROMPT)}
    allowed_tools: [Read, Edit]
    retry: { max: 1, on: [run_error] }
`,
        );
        expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error superseded", "fix PASS (exit-only)"]);
        expect(asFail(ledger.rows[0]).detail).toMatch(/^could not start model-cli-stand-in: .*ENOENT/);
        expect(h.callsOf("fix").map((c) => c.prompt)).toEqual([PROMPT, PROMPT]);
      },
    );

    once(
      "a verify that timed out (an infrastructure fault, not a judgment) is retried with the base prompt alone",
      async () => {
        const done = replied(runtime, "Done.");
        const h = await harness({ runtime, plays: { fix: [done, done] } });
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
        expect(h.callsOf("fix").map((c) => c.prompt)).toEqual([PROMPT, PROMPT]);
      },
    );
  });
});

// One engine behaviour, on one runtime (its describe would be empty on the other).
describe("on claude", () => {
  const runtime: Runtime = "claude";
  describe("a run stopped between two attempts", () => {
    test("the retry never starts, and the attempt's FAIL stands (not marked superseded by a row that does not exist)", async () => {
      const h = await harness({
        runtime,
        plays: { fix: [replied(runtime, "Fixed sum().", { exitCode: 3 })] },
      });
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
