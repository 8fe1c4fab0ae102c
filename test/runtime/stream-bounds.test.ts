/**
 * The model-CLI stream parsers read raw stdout chunk by chunk and keep bounded parts of it
 * (src/runtime/jsonl-reader.ts): the outcome of a stream does not depend on how the pipe chunked it, a
 * huge line is decoded without being held, and millions of events leave bounded records.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type ClaudeOutcome,
  createClaudeStreamParser,
  parseClaudeStream,
} from "../../src/runtime/claude-stream.js";
import {
  type CodexOutcome,
  createCodexStreamParser,
  parseCodexStream,
} from "../../src/runtime/codex-stream.js";
import {
  MAX_TRACKED,
  RECORD_TEXT_CHARS,
  STRING_CAP_BYTES,
  WHOLE_LINE_BYTES,
} from "../../src/runtime/jsonl-reader.js";

const SID = "11111111-2222-4333-8444-555555555555";
const TID = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";

function fixture(name: string): Buffer {
  return readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url));
}

/** Feeds `bytes` to a parser's `write` in chunks of `size` and finishes it. */
function written<T>(parser: { write(chunk: Buffer): void; finish(): T }, bytes: Buffer, size: number): T {
  for (let i = 0; i < bytes.length; i += size) parser.write(bytes.subarray(i, i + size));
  return parser.finish();
}

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const CLAUDE_INIT = line({ type: "system", subtype: "init", session_id: SID, model: "m", tools: [] });
const claudeResult = (result: string): string =>
  line({
    type: "result",
    subtype: "success",
    is_error: false,
    result,
    session_id: SID,
    total_cost_usd: 0.25,
    num_turns: 1,
    usage: { input_tokens: 10, output_tokens: 20 },
  });

describe("chunking never changes the outcome", () => {
  it.each(["text-only", "read-edit", "denied-dontask", "unavailable-tool", "budget", "api-error-500"])(
    "claude %s: write() in chunks of 1, 7 and 64 KiB bytes equals the line-by-line parse",
    (name) => {
      const bytes = fixture(name);
      const expected: ClaudeOutcome = parseClaudeStream(bytes.toString("utf8"));
      for (const size of [1, 7, 65_536])
        expect(written(createClaudeStreamParser(), bytes, size)).toEqual(expected);
    },
  );

  it.each(["codex-text-only", "codex-tools", "codex-todo", "codex-error-500", "codex-resume-leg2"])(
    "codex %s: write() in chunks of 1, 7 and 64 KiB bytes equals the line-by-line parse",
    (name) => {
      const bytes = fixture(name);
      const expected: CodexOutcome = parseCodexStream(bytes.toString("utf8"));
      for (const size of [1, 7, 65_536])
        expect(written(createCodexStreamParser(), bytes, size)).toEqual(expected);
    },
  );

  it("a last line without a newline is still read when the stream ends", () => {
    const bytes = Buffer.from(CLAUDE_INIT + claudeResult("done").trimEnd());
    expect(written(createClaudeStreamParser(), bytes, 5)).toMatchObject({
      kind: "completed",
      result: "done",
    });
  });
});

describe("one huge line is decoded, not held", () => {
  it("a claude result with a 30 MB reply: session, usage and cost intact, the reply cut to its first and last halves", () => {
    const size = 30_000_000;
    const reply = `FIRST${"r".repeat(size - 9)}LAST`;
    const bytes = Buffer.from(CLAUDE_INIT + claudeResult(reply));
    const outcome = written(createClaudeStreamParser(), bytes, 65_536);
    expect(outcome).toMatchObject({
      kind: "completed",
      isError: false,
      sessionId: SID,
      totalCostUsd: 0.25,
      usage: { inputTokens: 10, outputTokens: 20 },
      replyDroppedBytes: size - STRING_CAP_BYTES,
    });
    if (outcome.kind !== "completed") return;
    expect(outcome.result?.length).toBe(STRING_CAP_BYTES + 1);
    expect(outcome.result?.startsWith("FIRSTrrr")).toBe(true);
    expect(outcome.result?.endsWith("rrrLAST")).toBe(true);
  });

  it("a reply within the bound is whole and has no replyDroppedBytes, even on an over-long line", () => {
    const padding = "p".repeat(WHOLE_LINE_BYTES + 10);
    const event = { ...JSON.parse(claudeResult("whole reply")), padding };
    const outcome = written(createClaudeStreamParser(), Buffer.from(CLAUDE_INIT + line(event)), 65_536);
    expect(outcome).toMatchObject({ kind: "completed", result: "whole reply" });
    expect(outcome).not.toHaveProperty("replyDroppedBytes");
  });

  it("a codex agent_message of 20 MB: the reply cut and said so, the turn still completed", () => {
    const size = 20_000_000;
    const text = `A${"m".repeat(size - 2)}Z`;
    const stream = [
      line({ type: "thread.started", thread_id: TID }),
      line({ type: "item.completed", item: { id: "item_0", type: "agent_message", text } }),
      line({ type: "turn.completed", usage: { input_tokens: 1, output_tokens: 2 } }),
    ].join("");
    const outcome = written(createCodexStreamParser(), Buffer.from(stream), 65_536);
    expect(outcome).toMatchObject({
      kind: "completed",
      threadId: TID,
      agentMessages: 1,
      replyDroppedBytes: size - STRING_CAP_BYTES,
    });
    expect(outcome.reply?.length).toBe(STRING_CAP_BYTES + 1);
    expect(outcome.reply?.startsWith("Ammm")).toBe(true);
    expect(outcome.reply?.endsWith("mmmZ")).toBe(true);
  });

  it("a huge line that is not JSON is one ignored line with a 200-character sample", () => {
    const bytes = Buffer.from(`${"not json ".repeat(300_000)}\n${CLAUDE_INIT}${claudeResult("ok")}`);
    const outcome = written(createClaudeStreamParser(), bytes, 65_536);
    expect(outcome).toMatchObject({ kind: "completed", result: "ok", ignoredLines: 1 });
    expect(outcome.firstIgnoredLine).toBe(`${"not json ".repeat(300_000).slice(0, 200)}…`);
  });
});

describe("many events leave bounded records", () => {
  it(`claude: ${MAX_TRACKED * 3} distinct denials count up to ${MAX_TRACKED}, then stop growing`, () => {
    const denials = Array.from({ length: MAX_TRACKED * 3 }, (_, i) =>
      line({ type: "system", subtype: "permission_denied", tool_use_id: `toolu_${i}` }),
    ).join("");
    const outcome = written(
      createClaudeStreamParser(),
      Buffer.from(CLAUDE_INIT + denials + claudeResult("ok")),
      65_536,
    );
    expect(outcome).toMatchObject({ kind: "completed", deniedToolCalls: MAX_TRACKED });
  });

  it(`codex: ${MAX_TRACKED * 2} commands keep the first ${MAX_TRACKED}; errors keep the most recent, each text cut`, () => {
    const long = "c".repeat(RECORD_TEXT_CHARS * 2);
    const events = [line({ type: "thread.started", thread_id: TID })];
    for (let i = 0; i < MAX_TRACKED * 2; i++) {
      events.push(
        line({
          type: "item.completed",
          item: {
            id: `cmd_${i}`,
            type: "command_execution",
            command: i === 0 ? long : `cmd ${i}`,
            exit_code: 0,
            status: "completed",
          },
        }),
        line({ type: "error", message: `notice ${i}` }),
      );
    }
    events.push(line({ type: "turn.completed", usage: { input_tokens: 1, output_tokens: 2 } }));
    const outcome = written(createCodexStreamParser(), Buffer.from(events.join("")), 65_536);
    expect(outcome.kind).toBe("completed");
    expect(outcome.commands).toHaveLength(MAX_TRACKED);
    expect(outcome.commands[0]).toEqual({
      id: "cmd_0",
      command: `${long.slice(0, RECORD_TEXT_CHARS - 1)}…`,
      exitCode: 0,
      status: "completed",
    });
    expect(outcome.errors).toHaveLength(MAX_TRACKED);
    expect(outcome.errors.at(-1)).toBe(`notice ${MAX_TRACKED * 2 - 1}`);
    expect(outcome.errors[0]).toBe(`notice ${MAX_TRACKED}`);
  });
});
