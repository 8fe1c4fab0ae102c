/**
 * Ready-set scheduling (SPEC §4) with fake node runners: each `run` returns a promise the test settles by
 * hand, so "started before either finished" is an observed order, not a timing. `settle()` lets every
 * pending promise reaction run (one macrotask turn) — the scheduler uses no timers, so after it nothing
 * more can start until the test settles another node.
 */
import { describe, expect, it } from "vitest";
import {
  type NodeVerdict,
  type ScheduledNode,
  type ScheduleOptions,
  type ScheduleResult,
  schedule,
} from "../../src/engine/scheduler.js";

/** Lets every queued promise reaction run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Call {
  readonly signal: AbortSignal;
  finish(verdict: NodeVerdict): void;
  fail(error: unknown): void;
}

/** Node runners the test drives by hand, and a log of what happened in which order. */
class Rig {
  readonly log: string[] = [];
  private readonly calls = new Map<string, Call>();
  private readonly waiters = new Map<string, () => void>();
  private running = 0;
  maxRunning = 0;

  readonly run = (id: string, signal: AbortSignal): Promise<NodeVerdict> =>
    new Promise<NodeVerdict>((resolve, reject) => {
      this.log.push(`start ${id}`);
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      const done = (entry: string): void => {
        this.running--;
        this.log.push(entry);
      };
      this.calls.set(id, {
        signal,
        finish: (verdict) => {
          done(`end ${id}`);
          resolve(verdict);
        },
        fail: (error) => {
          done(`end ${id}`);
          reject(error);
        },
      });
      this.waiters.get(id)?.();
    });

  /** Resolves once node `id` has started (at once if it already has). */
  started(id: string): Promise<Call> {
    const call = this.calls.get(id);
    if (call) return Promise.resolve(call);
    return new Promise((resolve) => {
      this.waiters.set(id, () => resolve(this.calls.get(id)!));
    });
  }

  /** The started node `id`; fails the test if it has not started. */
  call(id: string): Call {
    const call = this.calls.get(id);
    if (!call) throw new Error(`node "${id}" has not started; log: ${this.log.join(", ")}`);
    return call;
  }

  hasStarted(id: string): boolean {
    return this.calls.has(id);
  }

  /** Settles node `id` once it has started. */
  async finish(id: string, verdict: NodeVerdict): Promise<void> {
    (await this.started(id)).finish(verdict);
  }
}

const node = (id: string, ...dependsOn: string[]): ScheduledNode => ({ id, dependsOn });
/** a → b, a → c, b + c → d. */
const DIAMOND = [node("a"), node("b", "a"), node("c", "a"), node("d", "b", "c")];

function start(rig: Rig, options: Partial<ScheduleOptions> & { nodes: readonly ScheduledNode[] }) {
  return schedule({ concurrency: 4, onFail: "halt", run: rig.run, ...options });
}

function kinds(result: ScheduleResult): Record<string, string> {
  return Object.fromEntries([...result.outcomes].map(([id, outcome]) => [id, outcome.kind]));
}

describe("ready-set scheduling", () => {
  it("independent branches run concurrently: b and c both start before either finishes, d after both", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: DIAMOND });
    await rig.finish("a", "passed");
    await rig.started("b");
    await rig.started("c");
    expect(rig.log).toEqual(["start a", "end a", "start b", "start c"]);

    await rig.finish("b", "passed");
    await settle();
    expect(rig.hasStarted("d")).toBe(false);

    await rig.finish("c", "passed");
    await rig.finish("d", "passed");
    const result = await done;
    expect(rig.log.slice(4)).toEqual(["end b", "end c", "start d", "end d"]);
    expect(kinds(result)).toEqual({ a: "passed", b: "passed", c: "passed", d: "passed" });
    expect(result.haltedBy).toBeNull();
  });

  it("a node waits for every dependency, not the first one to pass", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: DIAMOND });
    await rig.finish("a", "passed");
    await rig.finish("c", "passed");
    await settle();
    expect(rig.hasStarted("d")).toBe(false);
    await rig.finish("b", "passed");
    await rig.finish("d", "passed");
    expect(kinds(await done).d).toBe("passed");
  });

  it("concurrency 1 serialises independent branches", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: DIAMOND, concurrency: 1 });
    await rig.finish("a", "passed");
    await settle();
    const first = rig.hasStarted("b") ? "b" : "c";
    const second = first === "b" ? "c" : "b";
    expect(rig.hasStarted(second)).toBe(false);

    await rig.finish(first, "passed");
    await rig.finish(second, "passed");
    await rig.finish("d", "passed");
    const result = await done;
    expect(rig.maxRunning).toBe(1);
    expect(rig.log).toEqual([
      "start a",
      "end a",
      `start ${first}`,
      `end ${first}`,
      `start ${second}`,
      `end ${second}`,
      "start d",
      "end d",
    ]);
    expect(Object.values(kinds(result))).toEqual(["passed", "passed", "passed", "passed"]);
  });

  it("never runs more than `concurrency` nodes at once", async () => {
    const rig = new Rig();
    const nodes = ["n1", "n2", "n3", "n4", "n5"].map((id) => node(id));
    const done = start(rig, { nodes, concurrency: 2 });
    for (const id of ["n1", "n2", "n3", "n4", "n5"]) await rig.finish(id, "passed");
    await done;
    expect(rig.maxRunning).toBe(2);
  });

  it("a failed dependency skips its descendants with a reason naming the node that failed", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: [node("a"), node("b", "a"), node("c", "b")], onFail: "continue" });
    await rig.finish("a", "failed");
    const result = await done;
    expect(rig.hasStarted("b")).toBe(false);
    expect(result.outcomes.get("a")).toEqual({ kind: "failed" });
    const b = result.outcomes.get("b");
    const c = result.outcomes.get("c");
    expect(b?.kind).toBe("skipped");
    expect(b?.kind === "skipped" && b.because).toContain('"a"');
    expect(c?.kind).toBe("skipped");
    expect(c?.kind === "skipped" && c.because).toContain('"a" failed');
  });

  it("a run that throws (or rejects) counts as failed, and its descendants are skipped", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: DIAMOND, onFail: "continue" });
    await rig.finish("a", "passed");
    (await rig.started("b")).fail(new Error("runner bug"));
    await rig.finish("c", "passed");
    const result = await done;
    expect(kinds(result)).toEqual({ a: "passed", b: "failed", c: "passed", d: "skipped" });
  });

  it("a run that throws synchronously counts as failed instead of rejecting the schedule", async () => {
    const result = await schedule({
      nodes: [node("a"), node("b", "a")],
      concurrency: 1,
      onFail: "continue",
      run: () => {
        throw new Error("runner bug");
      },
    });
    expect(kinds(result)).toEqual({ a: "failed", b: "skipped" });
  });

  it("concurrency below 1 (or not an integer) is an internal error", async () => {
    for (const concurrency of [0, -1, Number.NaN, 1.5]) {
      await expect(start(new Rig(), { nodes: DIAMOND, concurrency }), String(concurrency)).rejects.toThrow(
        /^Internal error: concurrency/,
      );
    }
  });

  it("an empty graph finishes with no outcomes", async () => {
    const result = await start(new Rig(), { nodes: [] });
    expect(result.outcomes.size).toBe(0);
  });
});

describe("on_fail: halt", () => {
  /** The diamond plus `e` (after a), which waits for a slot while b and c run. */
  const HALT_GRAPH = [...DIAMOND, node("e", "a")];

  it("a failure aborts running siblings (cancelled, naming it), skips the rest and launches nothing new", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: HALT_GRAPH, concurrency: 2 });
    await rig.finish("a", "passed");
    const c = await rig.started("c");
    await rig.finish("b", "failed");
    await settle();
    expect(c.signal.aborted).toBe(true);
    expect(rig.hasStarted("e")).toBe(false);

    c.finish("cancelled");
    const result = await done;
    expect(result.haltedBy).toBe("b");
    expect(result.outcomes.get("b")).toEqual({ kind: "failed" });
    expect(result.outcomes.get("c")).toEqual({ kind: "cancelled", haltedBy: "b" });
    for (const id of ["d", "e"]) {
      const outcome = result.outcomes.get(id);
      expect(outcome?.kind, id).toBe("skipped");
      expect(outcome?.kind === "skipped" && outcome.because, id).toContain('"b"');
    }
    expect(rig.log).not.toContain("start d");
    expect(rig.log).not.toContain("start e");
  });

  it("a sibling that reports failure after the halt aborted it is cancelled, not a second failure", async () => {
    const rig = new Rig();
    const done = start(rig, { nodes: DIAMOND });
    await rig.finish("a", "passed");
    const c = await rig.started("c");
    await rig.finish("b", "failed");
    await settle();
    c.finish("failed");
    const result = await done;
    expect(result.outcomes.get("c")).toEqual({ kind: "cancelled", haltedBy: "b" });
    expect(result.haltedBy).toBe("b");
  });
});

describe("on_fail: continue", () => {
  it("prunes only the failed node's subtree while an independent branch runs to the end", async () => {
    const rig = new Rig();
    // a → b → d and a → c → e: b fails while c runs; c and e finish, d is skipped.
    const done = start(rig, {
      nodes: [node("a"), node("b", "a"), node("c", "a"), node("d", "b"), node("e", "c")],
      onFail: "continue",
    });
    await rig.finish("a", "passed");
    const c = await rig.started("c");
    await rig.finish("b", "failed");
    await settle();
    expect(c.signal.aborted).toBe(false);
    c.finish("passed");
    await rig.finish("e", "passed");
    const result = await done;
    expect(kinds(result)).toEqual({ a: "passed", b: "failed", c: "passed", d: "skipped", e: "passed" });
    expect(result.haltedBy).toBeNull();
    expect(rig.log).not.toContain("start d");
  });
});

describe("an external abort", () => {
  it("cancels running nodes (haltedBy null) and skips what has not started", async () => {
    const rig = new Rig();
    const controller = new AbortController();
    const done = start(rig, { nodes: DIAMOND, signal: controller.signal });
    await rig.finish("a", "passed");
    const b = await rig.started("b");
    const c = await rig.started("c");
    controller.abort();
    expect(b.signal.aborted).toBe(true);
    expect(c.signal.aborted).toBe(true);
    b.finish("cancelled");
    c.finish("cancelled");
    const result = await done;
    expect(result.outcomes.get("b")).toEqual({ kind: "cancelled", haltedBy: null });
    expect(result.outcomes.get("c")).toEqual({ kind: "cancelled", haltedBy: null });
    expect(result.outcomes.get("d")).toEqual({ kind: "skipped", because: "run cancelled" });
    expect(result.haltedBy).toBeNull();
    expect(rig.log).not.toContain("start d");
  });

  it("a signal aborted before the run starts nothing and skips every node", async () => {
    const rig = new Rig();
    const controller = new AbortController();
    controller.abort();
    const result = await start(rig, { nodes: DIAMOND, signal: controller.signal });
    expect(rig.log).toEqual([]);
    expect(Object.values(kinds(result))).toEqual(["skipped", "skipped", "skipped", "skipped"]);
  });
});
