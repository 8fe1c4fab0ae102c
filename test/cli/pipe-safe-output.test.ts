/**
 * `pipeSafe` (src/cli/pipe-safe-output.ts): once its stream reports an error (EPIPE when the reader of a
 * pipe went away), writes to that stream are dropped, never thrown, and the other stream is untouched.
 * test/e2e/cli-dist.test.ts runs the built CLI with both readers gone; this covers the per-stream rules.
 */
import { Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { pipeSafe } from "../../src/cli/pipe-safe-output.js";

/** A real Writable that keeps what it was given, and fails every write with EPIPE once `close()` is called. */
function pipeEnd(): { stream: Writable; written: string[]; close(): void } {
  const written: string[] = [];
  let closed = false;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (closed) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        return;
      }
      written.push(chunk.toString());
      callback();
    },
  });
  return { stream, written, close: () => (closed = true) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("pipeSafe", () => {
  test("after an EPIPE every later write returns false and reaches nothing; the other stream goes on", async () => {
    const out = pipeEnd();
    const err = pipeEnd();
    const stdout = pipeSafe(out.stream);
    const stderr = pipeSafe(err.stream);

    expect(stdout.write("line 1\n")).toBe(true);
    out.close();
    stdout.write("line 2\n");
    await tick();
    expect(stdout.closedBy).toBe("EPIPE");
    for (let i = 3; i < 50; i++) expect(stdout.write(`line ${i}\n`)).toBe(false);
    expect(out.written).toEqual(["line 1\n"]);

    expect(stderr.closedBy).toBeNull();
    expect(stderr.write("progress\n")).toBe(true);
    expect(err.written).toEqual(["progress\n"]);
  });

  test("a destroyed stream and a stream whose write throws are closed outputs, not crashes", () => {
    const gone = pipeEnd();
    gone.stream.destroy();
    const destroyed = pipeSafe(gone.stream);
    expect(destroyed.write("x\n")).toBe(false);
    expect(destroyed.closedBy).toBe("destroyed");

    const throwing = pipeSafe({
      write() {
        throw Object.assign(new Error("write EBADF"), { code: "EBADF" });
      },
      on: () => undefined,
      destroyed: false,
    });
    expect(throwing.write("x\n")).toBe(false);
    expect(throwing.closedBy).toBe("EBADF");
    expect(throwing.write("y\n")).toBe(false);
  });
});
