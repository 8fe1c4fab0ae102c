/**
 * The `codex exec --json` parser on captured output of the real codex-cli 0.169.0
 * (test/runtime/fixtures/codex-*.jsonl, produced against the scripted model server with argv from
 * `buildCodexArgv`; thread ids replaced by one fixed id and the workspace path by /tmp/eg-codex-ws) and on
 * hand-made edge cases.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type CodexCompleted,
  type CodexOutcome,
  createCodexStreamParser,
  detectCodexUsageLimit,
  parseCodexStream,
} from "../../src/runtime/codex-stream.js";

const TID = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";
const WS = "/tmp/eg-codex-ws";

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url), "utf8");
}

function completed(outcome: CodexOutcome): CodexCompleted {
  if (outcome.kind !== "completed") throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

const line = (value: unknown) => JSON.stringify(value);
const STARTED = line({ type: "thread.started", thread_id: TID });
const USAGE = {
  input_tokens: 100,
  cached_input_tokens: 0,
  cache_write_input_tokens: 0,
  output_tokens: 20,
  reasoning_output_tokens: 0,
};

describe("parseCodexStream on real CLI output", () => {
  it("text-only: thread id, reply, usage; cost unknown (null, never 0)", () => {
    expect(parseCodexStream(fixture("codex-text-only"))).toEqual({
      kind: "completed",
      isError: false,
      threadId: TID,
      usage: {
        inputTokens: 100,
        cachedInputTokens: 0,
        outputTokens: 20,
        reasoningOutputTokens: 0,
        cacheWriteInputTokens: 0,
      },
      failureDetail: null,
      usageLimit: null,
      reply: "Hello from the scripted model.",
      agentMessages: 1,
      commands: [],
      fileChanges: [],
      writtenPaths: [],
      todos: null,
      errors: [],
      warnings: [],
      ignoredLines: 0,
      firstIgnoredLine: null,
      costUsd: null,
    });
  });

  it("tools: commands with exit codes and status, apply_patch file changes, the last message wins", () => {
    const r = completed(parseCodexStream(fixture("codex-tools")));
    expect(r.commands).toEqual([
      { id: "item_1", command: "/bin/bash -lc 'echo hi > out.txt'", exitCode: 0, status: "completed" },
      { id: "item_3", command: "/bin/bash -lc 'exit 3'", exitCode: 3, status: "failed" },
    ]);
    expect(r.fileChanges).toEqual([{ path: `${WS}/p.txt`, kind: "add", status: "completed" }]);
    expect(r.writtenPaths).toEqual([`${WS}/p.txt`]);
    expect(r).toMatchObject({ isError: false, reply: "Wrote out.txt and p.txt.", agentMessages: 2 });
    // usage summed over the turn's four requests: 3 × (100 in, 20 out) + (7 in, 3 out)
    expect(r.usage).toMatchObject({ inputTokens: 307, outputTokens: 63 });
  });

  it("read-only: in this recording the blocked write left no command_execution item, only the reply", () => {
    const r = completed(parseCodexStream(fixture("codex-read-only")));
    expect(r).toMatchObject({ isError: false, reply: "Could not write.", commands: [], writtenPaths: [] });
  });

  it("turn.failed is a failure with its message (400: the raw error body), no usage", () => {
    const r = completed(parseCodexStream(fixture("codex-error-400")));
    const body =
      '{"error":{"message":"scripted bad request","type":"invalid_request_error","param":null,"code":null}}';
    expect(r).toMatchObject({ isError: true, threadId: TID, usage: null, reply: null, failureDetail: body });
    expect(r.errors).toEqual([body]);
    expect(r.costUsd).toBeNull();
  });

  it("turn.failed on a 500: codex replaces the server's message with its own", () => {
    const r = completed(parseCodexStream(fixture("codex-error-500")));
    expect(r.isError).toBe(true);
    expect(r.failureDetail).toMatch(/experiencing high demand/);
  });

  it("a 429 usage_limit_reached: turn.failed with codex's notice, recognised as the usage limit with its reset", () => {
    const r = completed(parseCodexStream(fixture("codex-usage-limit")));
    expect(r).toMatchObject({
      isError: true,
      failureDetail: "You\u2019ve hit your usage limit. Try again at 5:20 PM.",
      usageLimit: { resetsAt: "5:20 PM" },
    });
  });

  it("no usage limit on the other failures recorded, nor on a completed turn", () => {
    for (const name of ["codex-error-400", "codex-error-500", "codex-text-only"]) {
      expect(completed(parseCodexStream(fixture(name))).usageLimit).toBeNull();
    }
  });

  it("todo_list: the latest state of the plan (started, updated, completed)", () => {
    const r = completed(parseCodexStream(fixture("codex-todo")));
    expect(r.todos).toEqual([
      { text: "read", completed: true },
      { text: "edit", completed: false },
    ]);
    expect(r.reply).toBe("Planned.");
  });

  it("resume: the same thread id, and usage cumulative for the thread (1000 + 50)", () => {
    const first = completed(parseCodexStream(fixture("codex-resume-leg1")));
    const second = completed(parseCodexStream(fixture("codex-resume-leg2")));
    expect(second.threadId).toBe(first.threadId);
    expect(first.usage).toMatchObject({ inputTokens: 1000, outputTokens: 7 });
    expect(second.usage).toMatchObject({ inputTokens: 1050, outputTokens: 12 });
    expect(second.reply).toBe("Second done.");
  });

  it("an error ITEM (unknown model slug) is a warning, not a failure", () => {
    const r = completed(parseCodexStream(fixture("codex-unknown-model")));
    expect(r.isError).toBe(false);
    expect(r.warnings).toEqual([
      "Model metadata for `scripted-unknown-slug` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.",
    ]);
    expect(r.errors).toEqual([]);
    expect(r.reply).toBe("Hi.");
  });
});

describe("parseCodexStream edge cases", () => {
  it("turn.failed decides failure whatever the exit code (the parser never sees one)", () => {
    const stdout = [STARTED, line({ type: "turn.failed", error: { message: "boom" } })].join("\n");
    expect(completed(parseCodexStream(stdout))).toMatchObject({ isError: true, failureDetail: "boom" });
  });

  it("turn.failed with a bare string error, a structured one, or none", () => {
    const failed = (error: unknown, extra: string[] = []) =>
      completed(parseCodexStream([STARTED, ...extra, line({ type: "turn.failed", error })].join("\n")));
    expect(failed("plain").failureDetail).toBe("plain");
    expect(failed({ code: 7 }).failureDetail).toBe('{"code":7}');
    expect(failed(undefined, [line({ type: "error", message: "last words" })]).failureDetail).toBe(
      "last words",
    );
    expect(failed(null).failureDetail).toBe("codex reported turn.failed with no message");
  });

  it("the usage limit in each wording codex 0.169.0 has, in the failure message or an error line", () => {
    const failed = (message: string, errors: string[] = []) =>
      completed(
        parseCodexStream(
          [
            STARTED,
            ...errors.map((m) => line({ type: "error", message: m })),
            line({ type: "turn.failed", error: { message } }),
          ].join("\n"),
        ),
      ).usageLimit;
    // Measured on 0.169.0: resets_at a day or more away, and no resets_at at all.
    expect(failed("You\u2019ve hit your usage limit. Try again at Dec 5th, 2026 9:54 AM.")).toEqual({
      resetsAt: "Dec 5th, 2026 9:54 AM",
    });
    expect(failed("You\u2019ve hit your usage limit. Try again later.")).toEqual({});
    // The plan-specific wordings in the binary, and a straight apostrophe.
    expect(
      failed(
        "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 5:20 PM.",
      ),
    ).toEqual({ resetsAt: "5:20 PM" });
    expect(
      failed(
        "You\u2019ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 5:20 PM.",
      ),
    ).toEqual({ resetsAt: "5:20 PM" });
    // Only in an error line, the terminal event carrying something else.
    expect(failed("turn aborted", ["You\u2019ve hit your usage limit. Try again at 6 AM."])).toEqual({
      resetsAt: "6 AM",
    });
    // Not the usage limit: a rate limit codex gave up retrying (measured), a plan without Codex (measured:
    // usage_not_included), any other failure.
    expect(failed("exceeded retry limit, last status: 429 Too Many Requests")).toBeNull();
    expect(
      failed("To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus."),
    ).toBeNull();
    expect(failed("boom")).toBeNull();
  });

  it("a completed turn whose reply mentions the notice is no usage limit", () => {
    const stdout = [
      STARTED,
      line({ type: "error", message: "You\u2019ve hit your usage limit. Try again later." }),
      line({
        type: "item.completed",
        item: {
          id: "item_0",
          type: "agent_message",
          text: "You\u2019ve hit your usage limit. Try again later.",
        },
      }),
      line({ type: "turn.completed", usage: USAGE }),
    ].join("\n");
    expect(completed(parseCodexStream(stdout)).usageLimit).toBeNull();
  });

  it("detectCodexUsageLimit: case-insensitive, the first text holding it, null otherwise", () => {
    expect(detectCodexUsageLimit(["YOU'VE HIT YOUR USAGE LIMIT."])).toEqual({});
    expect(detectCodexUsageLimit(["other", "You've hit your usage limit. Try again at 4 PM"])).toEqual({
      resetsAt: "4 PM",
    });
    expect(detectCodexUsageLimit(["Try again at 4 PM."])).toBeNull();
    expect(detectCodexUsageLimit([])).toBeNull();
  });

  it("transient top-level errors (reconnect notices) before turn.completed do not fail the turn", () => {
    const notice =
      "Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)";
    const stdout = [
      STARTED,
      line({ type: "turn.started" }),
      line({ type: "error", message: notice }),
      line({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "ok" } }),
      line({ type: "turn.completed", usage: USAGE }),
    ].join("\n");
    expect(completed(parseCodexStream(stdout))).toMatchObject({
      isError: false,
      reply: "ok",
      errors: [notice],
    });
  });

  it("no terminal event: no_result with the thread id and the last error", () => {
    const stdout = [
      STARTED,
      line({ type: "turn.started" }),
      line({
        type: "item.started",
        item: {
          id: "item_0",
          type: "command_execution",
          command: "sleep 9",
          exit_code: null,
          status: "in_progress",
        },
      }),
      line({ type: "error", message: "Reconnecting... 1/5" }),
    ].join("\n");
    expect(parseCodexStream(stdout)).toMatchObject({
      kind: "no_result",
      reason: "no_terminal_event",
      threadId: TID,
      detail: "codex printed 4 line(s) but no turn.completed or turn.failed; last error: Reconnecting... 1/5",
      commands: [{ id: "item_0", command: "sleep 9", exitCode: null, status: "in_progress" }],
      costUsd: null,
    });
  });

  it("empty output (codex printed its error to stderr) and a terminal event without a thread", () => {
    expect(parseCodexStream("")).toMatchObject({ kind: "no_result", reason: "empty_output", threadId: null });
    expect(parseCodexStream(line({ type: "turn.completed", usage: USAGE }))).toMatchObject({
      kind: "no_result",
      reason: "no_thread_started",
    });
  });

  it("counts non-JSON lines without letting them into the outcome", () => {
    const stdout = [
      "WARNING: something",
      STARTED,
      "[1, 2]",
      line({ type: "turn.completed", usage: USAGE }),
    ].join("\n");
    expect(completed(parseCodexStream(stdout))).toMatchObject({
      ignoredLines: 2,
      firstIgnoredLine: "WARNING: something",
    });
    const noTerminal = parseCodexStream(["garbage", STARTED].join("\n"));
    expect(noTerminal).toMatchObject({ reason: "no_terminal_event" });
    if (noTerminal.kind === "no_result") expect(noTerminal.detail).toMatch(/first non-JSON line: garbage$/);
  });

  it("a file_change that failed is not a written path; one killed mid-change is (fail safe)", () => {
    const change = (id: string, path: string, status: string, type = "item.completed") =>
      line({ type, item: { id, type: "file_change", changes: [{ path, kind: "update" }], status } });
    const r = parseCodexStream(
      [STARTED, change("a", "/w/a", "failed"), change("b", "/w/b", "in_progress", "item.started")].join("\n"),
    );
    expect(r.writtenPaths).toEqual(["/w/b"]);
    expect(r.fileChanges).toEqual([
      { path: "/w/a", kind: "update", status: "failed" },
      { path: "/w/b", kind: "update", status: "in_progress" },
    ]);
  });

  it("publishes the thread id as soon as thread.started arrives; finish is idempotent; push after it throws", () => {
    const parser = createCodexStreamParser();
    expect(parser.threadId).toBeNull();
    parser.push(`${STARTED}\n`);
    expect(parser.threadId).toBe(TID);
    parser.push(line({ type: "thread.started", thread_id: "another" }));
    expect(parser.threadId).toBe(TID);
    const first = parser.finish();
    expect(parser.finish()).toBe(first);
    expect(() => parser.push(STARTED)).toThrow(/push\(\) after finish\(\)/);
  });

  it("usage without token counts is null; an agent_message only started is not the reply", () => {
    const stdout = [
      STARTED,
      line({ type: "item.started", item: { id: "m", type: "agent_message", text: "partial" } }),
      line({ type: "turn.completed", usage: { foo: 1 } }),
    ].join("\n");
    expect(completed(parseCodexStream(stdout))).toMatchObject({ usage: null, reply: null, agentMessages: 0 });
  });
});
