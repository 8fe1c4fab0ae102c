/**
 * The run directory and run ids (SPEC §4 "State", §11): ids in UTC, `state.json` written atomically,
 * `events.jsonl` append-only with one timestamped line per transition, node ids with `/` as `~`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRunId, mintRunId, type RunId } from "../../src/core/run-id.js";
import { RunDirectory } from "../../src/engine/run-dir.js";

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

let runsDir: string;
beforeEach(() => {
  runsDir = mkdtempSync(join(tmpdir(), "eg-run-dir-"));
});
afterEach(() => {
  rmSync(runsDir, { recursive: true, force: true });
});

describe("run ids", () => {
  it("a run id is YYYYMMDD-HHMMSS-xxxxxx in UTC, whatever the local time zone", () => {
    const savedTz = process.env.TZ;
    // Node re-reads TZ when it is assigned; Tokyo is 9 hours ahead of UTC, so local digits would differ.
    process.env.TZ = "Asia/Tokyo";
    try {
      const at = new Date(Date.UTC(2024, 0, 2, 23, 4, 5));
      // The zone change took effect: local time is already the next morning, so local digits would show.
      expect([at.getDate(), at.getHours()]).toEqual([3, 8]);
      const id = mintRunId(at);
      expect(id).toMatch(RUN_ID);
      expect(id.startsWith("20240102-230405-")).toBe(true);
    } finally {
      if (savedTz === undefined) delete process.env.TZ;
      else process.env.TZ = savedTz;
    }
  });

  it("months, days and times are zero-padded", () => {
    expect(mintRunId(new Date(Date.UTC(2031, 8, 9, 1, 2, 3))).slice(0, 16)).toBe("20310909-010203-");
  });

  it("two runs minted in the same second get different ids", () => {
    const now = new Date(Date.UTC(2024, 5, 1, 12, 0, 0));
    const ids = new Set(Array.from({ length: 8 }, () => mintRunId(now)));
    expect(ids.size).toBe(8);
  });

  it("isRunId accepts a minted id and refuses anything else", () => {
    expect(isRunId(mintRunId())).toBe(true);
    for (const bad of ["", "20240102-030405", "20240102-030405-ABCDEF", "2024012-030405-abcdef", "../x"]) {
      expect(isRunId(bad), bad).toBe(false);
    }
  });
});

describe("the run directory", () => {
  const runId = "20240102-030405-abcdef" as RunId;

  it("is <runsDir>/<runId> with nodes/ and failed/ made up front", () => {
    const dir = new RunDirectory(runsDir, runId);
    expect(dir.path).toBe(join(runsDir, runId));
    expect(statSync(join(dir.path, "nodes")).isDirectory()).toBe(true);
    expect(statSync(join(dir.path, "failed")).isDirectory()).toBe(true);
  });

  it("writeJson replaces the file atomically: content parses, no .tmp is left behind", () => {
    const dir = new RunDirectory(runsDir, runId);
    const first = dir.writeJson("state.json", { schema: 1, nodes: {} });
    expect(first).toBe(join(dir.path, "state.json"));
    const before = statSync(first).ino;
    dir.writeJson("state.json", { schema: 1, nodes: { a: { verdict: "PASS" } } });
    expect(JSON.parse(readFileSync(first, "utf8"))).toEqual({ schema: 1, nodes: { a: { verdict: "PASS" } } });
    // A new file renamed over the old one, not the old one truncated and rewritten in place.
    expect(statSync(first).ino).not.toBe(before);
    expect(readdirSync(dir.path).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("a value that cannot be serialised leaves the previous file intact and no temp file", () => {
    const dir = new RunDirectory(runsDir, runId);
    const path = dir.writeJson("state.json", { schema: 1 });
    expect(() => dir.writeJson("state.json", { n: 1n })).toThrow();
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ schema: 1 });
    expect(readdirSync(dir.path).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("each event appends one JSON line carrying an ISO-8601 UTC `at`", () => {
    const dir = new RunDirectory(runsDir, runId);
    dir.event({ type: "run_started", runId, mode: "auto" });
    dir.event({ type: "node_started", node: "fix", sessionId: null });
    dir.event({ type: "node_failed", node: "fix", cause: "timeout", detail: "line one\nline two" });
    const text = readFileSync(join(dir.path, "events.jsonl"), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(["run_started", "node_started", "node_failed"]);
    expect(events[2]).toMatchObject({ node: "fix", cause: "timeout", detail: "line one\nline two" });
    for (const event of events) {
      expect(typeof event.at).toBe("string");
      expect(new Date(event.at as string).toISOString()).toBe(event.at);
    }
  });

  it("events are appended, never rewritten: a second RunDirectory on the same run keeps earlier lines", () => {
    new RunDirectory(runsDir, runId).event({ type: "run_started", runId, mode: "auto" });
    new RunDirectory(runsDir, runId).event({ type: "run_started", runId, mode: "resume" });
    const lines = readFileSync(join(runsDir, runId, "events.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { mode: string }).mode)).toEqual(["auto", "resume"]);
  });

  it("a node id with / becomes ~ in its output and failed-reply file names, inside nodes/ and failed/", () => {
    const dir = new RunDirectory(runsDir, runId);
    const out = dir.nodeOutputPath("review/lint/fix");
    const failed = dir.failedOutputPath("review/lint/fix");
    expect(out).toBe(join(dir.path, "nodes", "review~lint~fix.out"));
    expect(failed).toBe(join(dir.path, "failed", "review~lint~fix.out"));
    expect(dirname(out)).toBe(join(dir.path, "nodes"));
    expect(dirname(failed)).toBe(join(dir.path, "failed"));
  });

  it("writeText and writeBytes write under the run directory and return the path", () => {
    const dir = new RunDirectory(runsDir, runId);
    const text = dir.writeText("patch.diff", "diff --git a/x b/x\n");
    const bytes = dir.writeBytes("raw.bin", new Uint8Array([0xff, 0x00, 0xfe]));
    expect(readFileSync(text, "utf8")).toBe("diff --git a/x b/x\n");
    expect([...readFileSync(bytes)]).toEqual([0xff, 0x00, 0xfe]);
    expect(existsSync(join(dir.path, "patch.diff"))).toBe(true);
  });
});

describe("the run lock (one leg at a time)", () => {
  it("a second lock while the first is held is refused naming the holder; after unlock it is free", () => {
    const dir = new RunDirectory(runsDir, mintRunId());
    expect(dir.lock()).toBeNull();
    expect(new RunDirectory(runsDir, dir.runId).lock()).toMatch(/is in use by process \d+@/);
    dir.unlock();
    expect(existsSync(join(dir.path, "run.lock"))).toBe(false);
    expect(dir.lock()).toBeNull();
    dir.unlock();
  });

  it("a lock left by a process that is gone is taken over", () => {
    const dir = new RunDirectory(runsDir, mintRunId());
    // pid 2^22+1 is above Linux's pid_max default: no such process.
    writeFileSync(join(dir.path, "run.lock"), `4194305@${hostname()}\n`);
    expect(dir.lock()).toBeNull();
    expect(readFileSync(join(dir.path, "run.lock"), "utf8").trim()).toBe(`${process.pid}@${hostname()}`);
    dir.unlock();
  });

  it("a lock held on another host is never taken over (its process cannot be checked from here)", () => {
    const dir = new RunDirectory(runsDir, mintRunId());
    writeFileSync(join(dir.path, "run.lock"), "4194305@some-other-host\n");
    expect(dir.lock()).toMatch(/in use by process 4194305@some-other-host/);
  });
});
