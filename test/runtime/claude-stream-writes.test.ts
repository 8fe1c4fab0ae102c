/**
 * The stream parser's record of file-writing tool calls (`writtenPaths`): from real CLI output
 * (test/runtime/fixtures/) and hand-made lines shaped like it. A call is left out only when the stream
 * shows it did not run; a call with no result yet counts (fail safe).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseClaudeStream } from "../../src/runtime/claude-stream.js";

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}.jsonl`, import.meta.url), "utf8");
}

function assistant(...blocks: Record<string, unknown>[]): string {
  return JSON.stringify({ type: "assistant", message: { role: "assistant", content: blocks } });
}

function toolUse(id: string, name: string, input: Record<string, unknown>): Record<string, unknown> {
  return { type: "tool_use", id, name, input };
}

function toolResult(id: string, fields: Record<string, unknown> = {}, decision = "accept"): string {
  return JSON.stringify({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok", ...fields }] },
    tool_result_meta: [{ id, permission_decision: { decision } }],
  });
}

const RESULT = JSON.stringify({
  type: "result",
  subtype: "success",
  is_error: false,
  session_id: "s",
  result: "done",
});

describe("writtenPaths", () => {
  it("real CLI output: the executed Edit is recorded, the Read is not", () => {
    expect(parseClaudeStream(fixture("read-edit")).writtenPaths).toEqual(["/tmp/ws-vIG2ZN/hello.txt"]);
    expect(parseClaudeStream(fixture("text-only")).writtenPaths).toEqual([]);
    expect(parseClaudeStream(fixture("denied-dontask")).writtenPaths).toEqual([]);
  });

  it("records Write, Edit, MultiEdit (file_path) and NotebookEdit (notebook_path), once each, in order", () => {
    const r = parseClaudeStream(
      [
        assistant(
          toolUse("t1", "Write", { file_path: "/srv/x/node_modules/sumlib/index.js", content: "x" }),
          toolUse("t2", "Read", { file_path: "/srv/x/readme" }),
        ),
        toolResult("t1"),
        toolResult("t2"),
        assistant(toolUse("t3", "Edit", { file_path: "src/a.js", old_string: "a", new_string: "b" })),
        toolResult("t3"),
        assistant(toolUse("t4", "MultiEdit", { file_path: "/r/b.js", edits: [] })),
        toolResult("t4"),
        assistant(toolUse("t5", "NotebookEdit", { notebook_path: "/r/n.ipynb", new_source: "" })),
        toolResult("t5"),
        assistant(toolUse("t6", "Write", { file_path: "/srv/x/node_modules/sumlib/index.js", content: "y" })),
        toolResult("t6"),
        RESULT,
      ].join("\n"),
    );
    expect(r.kind).toBe("completed");
    expect(r.writtenPaths).toEqual([
      "/srv/x/node_modules/sumlib/index.js",
      "src/a.js",
      "/r/b.js",
      "/r/n.ipynb",
    ]);
  });

  it("leaves out calls the stream shows did not run: denied, unavailable, or an is_error result", () => {
    const r = parseClaudeStream(
      [
        assistant(toolUse("d1", "Write", { file_path: "/denied/meta", content: "" })),
        toolResult("d1", { is_error: true, content: "Permission denied" }, "reject"),
        assistant(toolUse("d2", "Write", { file_path: "/denied/system", content: "" })),
        JSON.stringify({
          type: "system",
          subtype: "permission_denied",
          tool_use_id: "d2",
          tool_name: "Write",
        }),
        assistant(toolUse("d3", "Edit", { file_path: "/denied/result", old_string: "", new_string: "" })),
        assistant(toolUse("u1", "Write", { file_path: "/unavailable", content: "" })),
        toolResult("u1", {
          is_error: true,
          content: "<tool_use_error>Error: No such tool available: Write</tool_use_error>",
        }),
        assistant(toolUse("e1", "Edit", { file_path: "/errored", old_string: "x", new_string: "y" })),
        toolResult("e1", { is_error: true, content: "String to replace not found in file." }),
        assistant(toolUse("ok", "Write", { file_path: "/written", content: "" })),
        toolResult("ok"),
        JSON.stringify({
          type: "result",
          subtype: "success",
          is_error: false,
          session_id: "s",
          result: "done",
          permission_denials: [{ tool_name: "Edit", tool_use_id: "d3", tool_input: {} }],
        }),
      ].join("\n"),
    );
    expect(r.writtenPaths).toEqual(["/written"]);
  });

  it("a call with no result yet (the process stopped mid-call) counts, also without a result event", () => {
    const r = parseClaudeStream(
      [
        JSON.stringify({ type: "system", subtype: "init", session_id: "s" }),
        assistant(toolUse("t1", "Write", { file_path: "/outside/half-written.js", content: "x" })),
      ].join("\n"),
    );
    expect(r).toMatchObject({ kind: "no_result", writtenPaths: ["/outside/half-written.js"] });
  });

  it("ignores malformed calls: no path, a non-string path, a non-object input", () => {
    const r = parseClaudeStream(
      [
        assistant(
          toolUse("a", "Write", { content: "" }),
          toolUse("b", "Edit", { file_path: 3 }),
          { type: "tool_use", id: "c", name: "Write", input: "nope" },
          toolUse("d", "toString", { file_path: "/proto" }),
        ),
        RESULT,
      ].join("\n"),
    );
    expect(r.writtenPaths).toEqual([]);
  });
});
