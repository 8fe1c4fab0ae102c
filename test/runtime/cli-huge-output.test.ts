/**
 * A model CLI that prints huge output, through the real call path (`invokeClaude` / `invokeCodex` → the
 * exec seam → the stream parser): a fake `claude` / `codex` executable (a Node script) prints 100,000
 * events, a 5 MB stderr line and a final reply of 200 MB on one line, then exits 0. The parser reads the
 * raw chunks once and keeps bounded parts (src/runtime/jsonl-reader.ts): the call completes with its
 * session, usage and cost, and the reply keeps its first and last halves. The timeouts only bound a
 * broken test; nothing asserts how long anything took.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { invokeClaude } from "../../src/runtime/invoke-claude.js";
import { invokeCodex } from "../../src/runtime/invoke-codex.js";
import { STRING_CAP_BYTES } from "../../src/runtime/jsonl-reader.js";

const dir = mkdtempSync(join(tmpdir(), "eg-cli-huge-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SID = "11111111-2222-4333-8444-555555555555";
const TID = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";
const REPLY_BYTES = 200_000_000;
const EVENTS = 100_000;
const POLICY: ToolPolicy = { allowedTools: [], strictMcpConfig: false, disallowedTools: [] };

/**
 * The fake CLI: `MODE` is claude or codex. It writes with back-pressure, so the pipe (and the seam's
 * reading speed) paces it, as a real CLI is paced.
 */
const FAKE = `#!/usr/bin/env node
const mode = process.env.FAKE_MODE;
const out = process.stdout;
const line = (value) => JSON.stringify(value) + "\\n";
const parts = [];
if (mode === "claude") {
  parts.push(line({ type: "system", subtype: "init", session_id: "${SID}", model: "m", tools: [] }));
  for (let i = 0; i < ${EVENTS}; i++) parts.push(line({ type: "stream_event", event: { type: "content_block_delta", index: i } }));
  parts.push('{"type":"result","subtype":"success","is_error":false,"session_id":"${SID}","total_cost_usd":0.5,"num_turns":3,"usage":{"input_tokens":7,"output_tokens":9},"result":"BEGIN');
} else {
  parts.push(line({ type: "thread.started", thread_id: "${TID}" }));
  for (let i = 0; i < ${EVENTS}; i++) parts.push(line({ type: "item.updated", item: { id: "cmd_" + i, type: "command_execution", command: "true", exit_code: null, status: "in_progress" } }));
  parts.push('{"type":"item.completed","item":{"id":"msg","type":"agent_message","text":"BEGIN');
}
const block = Buffer.alloc(1 << 20, 0x72); // "r"
let left = ${REPLY_BYTES} - 11; // "BEGIN" + r… + "FINISH" is exactly REPLY_BYTES
const closing = mode === "claude"
  ? 'FINISH"}\\n'
  : 'FINISH"}}\\n' + line({ type: "turn.completed", usage: { input_tokens: 7, output_tokens: 9 } });
process.stderr.write("e".repeat(5_000_000) + "\\n");
let i = 0;
const write = () => {
  while (i < parts.length) if (!out.write(parts[i++])) return out.once("drain", write);
  while (left > 0) {
    const piece = left >= block.length ? block : block.subarray(0, left);
    left -= piece.length;
    if (!out.write(piece)) return out.once("drain", write);
  }
  out.write(closing);
};
write();
`;

function fakeCli(): string {
  const file = join(dir, "fake-cli.mjs");
  writeFileSync(file, FAKE);
  chmodSync(file, 0o755);
  return file;
}

const env = (mode: string) => ({
  PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
  FAKE_MODE: mode,
});

describe("a model CLI printing 200 MB completes with bounded parts kept", () => {
  it("claude: session, usage, cost intact; the reply cut to its first and last halves; stderr bounded", async () => {
    let echoedLongest = 0;
    const outcome = await invokeClaude({
      executable: fakeCli(),
      prompt: "p",
      permissionMode: "acceptEdits",
      policy: POLICY,
      session: { kind: "fresh", sessionId: SID },
      cwd: dir,
      env: env("claude"),
      timeoutMs: 300_000,
      echo: {
        write: (text) => {
          echoedLongest = Math.max(echoedLongest, text.length);
        },
        fenceWorkflowCommands: true,
      },
    });
    expect(outcome.kind).toBe("completed");
    if (outcome.kind !== "completed") return;
    const r = outcome.result;
    expect(r).toMatchObject({
      isError: false,
      sessionId: SID,
      totalCostUsd: 0.5,
      numTurns: 3,
      usage: { inputTokens: 7, outputTokens: 9 },
      replyDroppedBytes: REPLY_BYTES - STRING_CAP_BYTES,
      ignoredLines: 0,
    });
    expect(r.result?.length).toBe(STRING_CAP_BYTES + 1);
    expect(r.result?.startsWith("BEGINrrr")).toBe(true);
    expect(r.result?.endsWith("rrrFINISH")).toBe(true);
    // The 5 MB stderr line was echoed cut (64 KiB and a note), and the kept stderr tail is 64 KiB.
    expect(echoedLongest).toBeLessThan(70 * 1024);
    expect(outcome.stderrTail.length).toBeLessThan(70 * 1024);
  }, 320_000);

  it("codex: thread and usage intact, 10,000 of 100,000 commands kept, the reply cut", async () => {
    const outcome = await invokeCodex({
      executable: fakeCli(),
      prompt: "p",
      permissionMode: "acceptEdits",
      policy: POLICY,
      session: { kind: "fresh" },
      cwd: dir,
      env: env("codex"),
      timeoutMs: 300_000,
    });
    expect(outcome.kind).toBe("completed");
    if (outcome.kind !== "completed") return;
    const r = outcome.result;
    expect(r).toMatchObject({
      isError: false,
      threadId: TID,
      usage: { inputTokens: 7, outputTokens: 9 },
      agentMessages: 1,
      replyDroppedBytes: REPLY_BYTES - STRING_CAP_BYTES,
    });
    expect(r.commands).toHaveLength(10_000);
    expect(r.reply?.length).toBe(STRING_CAP_BYTES + 1);
    expect(r.reply?.startsWith("BEGINrrr")).toBe(true);
    expect(r.reply?.endsWith("rrrFINISH")).toBe(true);
  }, 320_000);
});
