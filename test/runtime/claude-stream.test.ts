/**
 * The stream-json parser on captured output of the real claude 2.1.332 (test/runtime/fixtures/, produced
 * by the scripted model server; see docs/scripted-model-server.md) and on hand-made edge cases.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectSessionLimit } from "../../src/runtime/claude-result.js";
import {
  type ClaudeCompleted,
  type ClaudeOutcome,
  createClaudeStreamParser,
  parseClaudeStream,
} from "../../src/runtime/claude-stream.js";

const SID = "11111111-2222-4333-8444-555555555555";

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url), "utf8");
}

function completed(outcome: ClaudeOutcome): ClaudeCompleted {
  if (outcome.kind !== "completed") throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("parseClaudeStream on real CLI output", () => {
  it("text-only: reads init and the result", () => {
    const r = completed(parseClaudeStream(fixture("text-only")));
    expect(r).toMatchObject({
      isError: false,
      subtype: "success",
      sessionId: SID,
      result: "hi there",
      totalCostUsd: 0.0008,
      numTurns: 1,
      usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      permissionDenials: [],
      deniedToolCalls: 0,
      unavailableToolCalls: 0,
      errors: [],
      terminalReason: "completed",
      apiErrorStatus: null,
      budgetExhausted: false,
      sessionLimit: null,
      failureDetail: null,
      ignoredLines: 0,
    });
    expect(r.init).toMatchObject({ sessionId: SID, model: "claude-opus-5-5", permissionMode: "dontAsk" });
    expect(r.init?.claudeCodeVersion).toBe("2.1.332");
  });

  it("read + edit: three model turns, no denials, the narrowed tool list", () => {
    const r = completed(parseClaudeStream(fixture("read-edit")));
    expect(r).toMatchObject({ isError: false, result: "edited", numTurns: 3, deniedToolCalls: 0 });
    expect(r.init?.tools).toEqual(["Edit", "Read"]);
  });

  it("a dontAsk denial is counted once although three signals name it", () => {
    const text = fixture("denied-dontask");
    // The fixture really carries all three signals for the same call.
    expect(text).toContain('"subtype":"permission_denied"');
    expect(text).toContain('"decision":"reject"');
    const r = completed(parseClaudeStream(text));
    expect(r.permissionDenials).toEqual([
      { toolName: "Bash", toolUseId: expect.stringMatching(/^toolu_/), toolInput: { command: "touch x" } },
    ]);
    expect(r).toMatchObject({ isError: false, deniedToolCalls: 1, unavailableToolCalls: 0 });
  });

  it("a call to a removed tool is not a denial but is counted as unavailable", () => {
    const r = completed(parseClaudeStream(fixture("unavailable-tool")));
    expect(r).toMatchObject({
      isError: false,
      permissionDenials: [],
      deniedToolCalls: 0,
      unavailableToolCalls: 1,
    });
  });

  it("an API error is completed with isError and the result as failure detail", () => {
    const r = completed(parseClaudeStream(fixture("api-error-500")));
    expect(r).toMatchObject({
      isError: true,
      subtype: "success",
      terminalReason: "api_error",
      apiErrorStatus: 500,
      totalCostUsd: 0,
    });
    expect(r.failureDetail).toMatch(/^API Error: 500 scripted outage\./);
  });

  it("--max-budget-usd exhaustion: no result text, errors as detail, budgetExhausted", () => {
    const r = completed(parseClaudeStream(fixture("budget")));
    expect(r).toMatchObject({
      isError: true,
      subtype: "error_max_budget_usd",
      result: null,
      errors: ["Reached maximum budget ($0.0001)"],
      budgetExhausted: true,
      failureDetail: "Reached maximum budget ($0.0001)",
      terminalReason: "budget_exhausted",
    });
  });

  it("feeds line by line the same as all at once, and exposes init before the result", () => {
    const lines = fixture("read-edit").split("\n");
    const parser = createClaudeStreamParser();
    expect(parser.init).toBeNull();
    parser.push(`${lines[0]}\n`);
    expect(parser.init?.sessionId).toBe(SID);
    for (const line of lines.slice(1)) parser.push(`${line}\r\n`);
    expect(parser.finish()).toEqual(parseClaudeStream(fixture("read-edit")));
    expect(parser.finish()).toBe(parser.finish());
    expect(() => parser.push("{}")).toThrow(/Internal error/);
  });
});

describe("parseClaudeStream without a usable result", () => {
  it("empty output", () => {
    expect(parseClaudeStream("")).toMatchObject({
      kind: "no_result",
      reason: "empty_output",
      sessionId: null,
    });
  });

  it("lines but no result keeps init, denials seen so far and a sample of non-JSON", () => {
    const lines = fixture("denied-dontask").split("\n");
    const init = lines.find((l) => l.includes('"subtype":"init"'));
    const deniedUser = lines.find((l) => l.startsWith('{"type":"user"') && l.includes('"decision":"reject"'));
    const outcome = parseClaudeStream([init, "Segmentation fault", deniedUser].join("\n"));
    expect(outcome).toMatchObject({
      kind: "no_result",
      reason: "no_result_event",
      sessionId: SID,
      deniedToolCalls: 1,
      ignoredLines: 1,
      firstIgnoredLine: "Segmentation fault",
    });
    expect(outcome.kind === "no_result" && outcome.detail).toBe(
      "claude printed 3 line(s) but no result event; first non-JSON line: Segmentation fault",
    );
  });

  it("a result without a session id or boolean is_error is malformed", () => {
    expect(parseClaudeStream('{"type":"result","is_error":"no","session_id":"s"}')).toMatchObject({
      kind: "no_result",
      reason: "malformed_result",
    });
    expect(parseClaudeStream('{"type":"result","is_error":false}')).toMatchObject({
      reason: "malformed_result",
    });
  });
});

describe("is_error and the session limit", () => {
  it("surfaces is_error even with a normal-looking result (the engine fails the node on it)", () => {
    const r = completed(
      parseClaudeStream(
        '{"type":"result","subtype":"success","is_error":true,"session_id":"s","result":"partial"}',
      ),
    );
    expect(r).toMatchObject({ isError: true, failureDetail: "partial" });
  });

  it("joins multi-line errors with ' / '", () => {
    const r = completed(
      parseClaudeStream(
        '{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s","errors":["a\\n  b","c"]}',
      ),
    );
    expect(r.failureDetail).toBe("a / b / c");
  });

  it("detects the session limit in the result text with its reset time", () => {
    const r = completed(
      parseClaudeStream(
        JSON.stringify({
          type: "result",
          subtype: "success",
          is_error: true,
          session_id: "s",
          result: "You've hit your session limit · resets 5:30pm (Europe/Paris)\n/login to switch",
        }),
      ),
    );
    expect(r.sessionLimit).toEqual({ resetsAt: "5:30pm (Europe/Paris)" });
  });

  // Captured from claude 2.1.332 against the scripted model server: the three forms the CLI reports it in.
  it.each([
    ["session-limit-429", true, "API Error: Request rejected (429) · You've hit your session limit"],
    ["session-limit-400", true, "API Error: 400 You've hit your session limit"],
    ["session-limit-text", false, "You've hit your session limit"],
  ])("%s: recognised as the session limit, with the reset as the CLI wrote it", (name, isError, start) => {
    const r = completed(parseClaudeStream(fixture(name)));
    expect(r.isError).toBe(isError);
    expect(r.result?.startsWith(start)).toBe(true);
    expect(r.sessionLimit).toEqual({ resetsAt: "5:30pm (Europe/Paris)" });
  });

  it("a plain reply that only mentions the limit is not one; an error result that says it anywhere is", () => {
    const result = (isError: boolean, text: string) =>
      completed(
        parseClaudeStream(
          JSON.stringify({
            type: "result",
            subtype: "success",
            is_error: isError,
            session_id: "s",
            result: text,
          }),
        ),
      ).sessionLimit;
    expect(result(false, 'Fixed the parser: it now detects "hit your session limit" in replies.')).toBeNull();
    expect(result(false, "  You've hit your session limit · resets 4pm")).toEqual({ resetsAt: "4pm" });
    expect(result(false, "Claude AI usage limit reached|1750000000")).toEqual({
      resetsAt: "2025-06-15T15:06:40.000Z",
    });
    expect(result(true, "Request failed: you hit your session limit · resets 6am")).toEqual({
      resetsAt: "6am",
    });
    expect(result(true, "API Error: 429 rate_limit_error: too many requests")).toBeNull();
  });

  it("detectSessionLimit: case-insensitive, reset optional, null otherwise", () => {
    expect(detectSessionLimit(["You've HIT YOUR SESSION LIMIT"])).toEqual({});
    expect(detectSessionLimit(["done", "You've hit your session limit · resets 4pm"])).toEqual({
      resetsAt: "4pm",
    });
    expect(detectSessionLimit(["all good", "resets 4pm"])).toBeNull();
  });
});
