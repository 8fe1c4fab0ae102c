import { describe, expect, test } from "vitest";
import type { Runtime } from "../../src/engine/runtime-setup.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { CODEX_BIN } from "../runtime/real-codex.js";
import type { ModelScript } from "../support/model-server/index.js";
import { gatedGraph, REASON } from "./completion-gate-graph.js";
import { asFail, asPass, graphHarnessPerTest, readState, requestsOf, rowWords } from "./graph-harness.js";
import { recordedCalls, recordingWrapper } from "./recording-cli.js";
import { historyText, RUNTIMES, shellCall } from "./runtime-harness.js";

const start = graphHarnessPerTest();

/** Attempt 1 writes `one`, attempt k (a feedback turn) writes the k-th word. */
function stepsScript(runtime: Runtime, max: number, words: readonly string[]): ModelScript {
  const feedbackTurns = words.slice(1).map((word, i) => ({
    name: `attempt-${i + 2}`,
    match: ["COMPLETION CHECK FAILED", `completion attempt ${i + 2} of ${max}`],
    turns: [
      { tool_calls: [shellCall(runtime, `printf '${word}\\n' > step.txt`)] },
      { text: `wrote ${word}` },
    ],
  }));
  return {
    conversations: [
      ...feedbackTurns.reverse(),
      {
        name: "attempt-1",
        match: "CG-TASK",
        turns: [
          { tool_calls: [shellCall(runtime, `printf '${words[0]}\\n' > step.txt`)] },
          { text: `wrote ${words[0]}` },
        ],
      },
    ],
  };
}

/** The argv without what an attempt may change: the session flag and the prompt. */
function policyPart(argv: readonly string[], runtime: Runtime): string[] {
  const dash = argv.indexOf("--");
  const head = argv.slice(0, dash);
  if (runtime === "claude") {
    const at = head.findIndex((a) => a === "--session-id" || a === "--resume");
    return at < 0 ? head : [...head.slice(0, at), ...head.slice(at + 2)];
  }
  const at = head.indexOf("resume");
  return at < 0 ? head : [...head.slice(0, at), ...head.slice(at + 2)];
}

/** The session an argv starts or resumes: claude `--session-id`/`--resume ID`, codex `resume ID`. */
function sessionArg(argv: readonly string[]): { readonly flag: string; readonly id: string } | null {
  const head = argv.slice(0, argv.indexOf("--"));
  const at = head.findIndex((a) => a === "--session-id" || a === "--resume" || a === "resume");
  return at < 0 ? null : { flag: head[at] ?? "", id: head[at + 1] ?? "" };
}

describe.each(RUNTIMES)("a completion gate on %s", (runtime) => {
  test("a check failing twice then passing: three rows, PASS (verified), attempts 2 and 3 resume the first session with the same flags", async () => {
    const h = await start({ runtime, script: () => stepsScript(runtime, 3, ["one", "two", "three"]) });
    const executable = recordingWrapper(h.scratch, runtime === "claude" ? CLAUDE_BIN : CODEX_BIN);
    const run = await h.run(gatedGraph({ maxAttempts: 3 }), { executable });

    const rows = run.ledger.rows;
    expect(rowWords(rows)).toEqual([
      "work FAIL incomplete superseded",
      "work FAIL incomplete superseded",
      "work PASS (verified)",
    ]);
    expect(rows.map((r) => r.completion)).toEqual([
      { attempt: 1, maxAttempts: 3, check: "failed", reason: REASON },
      { attempt: 2, maxAttempts: 3, check: "failed", reason: REASON },
      { attempt: 3, maxAttempts: 3, check: "passed" },
    ]);
    rows.forEach((row, i) => {
      expect(row.detail).toContain(`attempt ${i + 1}/3`);
    });
    const pass = asPass(rows[2]);
    expect(pass.verify?.exitCode).toBe(0);
    // The completion command is the sink's engine-run evidence, in the plan section too (no NONE line).
    expect(run.ledger.plan.buildEvidence).toEqual({
      kind: "graph",
      verifiedSinks: ["work"],
      unverifiedSinks: [],
    });
    expect(run.ledger.plan.sinkCommands).toEqual([
      { nodeId: "work", command: "cat step.txt; grep -qx three step.txt" },
    ]);
    expect(renderLedgerText(run.ledger)).not.toContain("NONE");
    expect(pass.verify?.outputTail).toContain("three");
    expect(asFail(rows[0]).verify?.outputTail).toContain("one");

    // Every attempt is in the same session: the first one's.
    const first = rows[0]?.sessionId ?? "";
    expect(first).not.toBe("");
    expect(rows.map((r) => r.sessionId)).toEqual([first, first, first]);
    const calls = recordedCalls(h.scratch);
    expect(calls).toHaveLength(3);
    const [call1, call2, call3] = calls.map((c) => c.argv);
    if (call1 === undefined || call2 === undefined || call3 === undefined) throw new Error("three calls");
    expect(sessionArg(call1)).toEqual(runtime === "claude" ? { flag: "--session-id", id: first } : null);
    for (const later of [call2, call3]) {
      expect(sessionArg(later)).toEqual({ flag: runtime === "claude" ? "--resume" : "resume", id: first });
      // Every policy flag again (the CLI keeps none across a resume).
      expect(policyPart(later, runtime)).toEqual(policyPart(call1, runtime));
      expect(later).not.toContain("--last");
      expect(later).not.toContain("--continue");
    }
    if (runtime === "claude") expect(call1).toContain("--allowedTools");

    // The feedback turn carries the failure's output tail inside a nonce fence, in the same conversation.
    const second = requestsOf(h.server.requests, "attempt-2")[0];
    if (second === undefined) throw new Error("attempt 2 never reached the model");
    expect(second.promptText).toMatch(
      /<<<DATA completion-check-report nonce=[0-9a-f]+>>>\n[\s\S]*exit code: 1 \(expected 0\)[\s\S]*one\n[\s\S]*<<<END DATA/,
    );
    expect(historyText(second)).toContain("CG-TASK write the step file");

    // Totals are the sum over the attempts (claude reports USD; codex's is unknown, its tokens still count).
    const tokens = rows.reduce((n, r) => n + (r.usage?.inputTokens ?? 0), 0);
    expect(tokens).toBeGreaterThan(0);
    expect(run.ledger.totals.tokens.inputTokens).toBe(tokens);
    if (runtime === "claude") {
      const usd = rows.reduce((n, r) => n + (r.costUsd ?? 0), 0);
      expect(rows.every((r) => (r.costUsd ?? 0) > 0)).toBe(true);
      expect(run.ledger.totals.nodes).toEqual({ kind: "known", usd: expect.closeTo(usd, 10) });
    } else {
      expect(run.ledger.totals.nodes.kind).toBe("unknown");
    }
    // A passed gate leaves no progress behind.
    expect(readState(run.runDir).nodes.work?.completion).toBeUndefined();
  });
});
