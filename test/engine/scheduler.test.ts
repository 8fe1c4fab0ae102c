/**
 * The scheduler of one leg (SPEC §4 "Execution"): the ready set, concurrency, `on_fail` halt / continue,
 * gate and session-limit pauses, and acting on each execution's decision (retry, feedback, failed …).
 * The graphs are loaded by the real loader; the port is a recorder whose executions the test settles by
 * hand, one at a time, so every ordering asserted here is the scheduler's and nothing waits on a clock.
 */
import { describe, expect, test } from "vitest";
import type { FailCause, FailRow, PassRow } from "../../src/core/ledger-row.js";
import type {
  ExecutionInput,
  FailedSettlement,
  FeedbackSettlement,
  FinalSettlement,
  RetrySettlement,
  Settlement,
} from "../../src/engine/node-decision.js";
import {
  type NodeStart,
  type ScheduleEnd,
  Scheduler,
  type SchedulerPort,
} from "../../src/engine/scheduler.js";
import type { Graph, GraphNode } from "../../src/graph/graph.js";
import { loadGraphText } from "../../src/graph/load.js";

interface Running {
  readonly id: string;
  readonly input: ExecutionInput;
  readonly signal: AbortSignal;
  readonly settle: (settlement: Settlement | Error) => void;
}

/** A port that records every call in order and lets the test settle each execution. */
class RecordingPort implements SchedulerPort {
  readonly log: string[] = [];
  readonly running: Running[] = [];
  failWrites = false;

  execute(node: GraphNode, input: ExecutionInput, signal: AbortSignal): Promise<Settlement> {
    this.log.push(`execute ${node.id} attempt ${input.attempt} round ${input.round}`);
    return new Promise((resolve, reject) => {
      this.running.push({
        id: node.id,
        input,
        signal,
        settle: (s) => (s instanceof Error ? reject(s) : resolve(s)),
      });
    });
  }
  async internalError(node: GraphNode, error: unknown): Promise<FailedSettlement> {
    this.log.push(`internalError ${node.id} ${(error as Error).message}`);
    return { kind: "failed", row: failRow(node.id, "run_error"), judged: false };
  }
  retrying(node: GraphNode, retry: RetrySettlement): void {
    this.log.push(`retrying ${node.id} → attempt ${retry.next.attempt}`);
  }
  retryNotStarted(node: GraphNode, retry: RetrySettlement, haltedBy: string | null): FailedSettlement {
    this.log.push(`retryNotStarted ${node.id} haltedBy ${haltedBy}`);
    return { kind: "failed", row: retry.row, judged: retry.info.kind === "retry" && retry.info.judged };
  }
  feedbackFired(node: GraphNode, feedback: FeedbackSettlement): void {
    this.log.push(`feedbackFired ${node.id} round ${feedback.round}`);
  }
  settled(node: GraphNode, settlement: FinalSettlement): void {
    if (this.failWrites) throw new Error("disk full");
    this.log.push(`settled ${node.id} ${settlement.kind}`);
  }
  skipped(node: GraphNode, reason: string): void {
    this.log.push(`skipped ${node.id}: ${reason}`);
  }
  gateReached(node: GraphNode): void {
    this.log.push(`gateReached ${node.id}`);
  }
  neverRan(node: GraphNode): void {
    this.log.push(`neverRan ${node.id}`);
  }

  /** Settles the oldest unsettled execution of `id`. */
  settleNext(id: string, settlement: Settlement | Error): Running {
    const index = this.running.findIndex((r) => r.id === id);
    const run = this.running[index];
    if (run === undefined) throw new Error(`${id} is not running (log: ${this.log.join(" | ")})`);
    this.running.splice(index, 1);
    run.settle(settlement);
    return run;
  }

  /** The ids running now, in start order. */
  ids(): string[] {
    return this.running.map((r) => r.id);
  }
}

function graphOf(yaml: string): Graph {
  const loaded = loadGraphText(yaml, "graph.yml");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.graph;
}

function passRow(id: string): PassRow {
  return {
    nodeId: id,
    verdict: "PASS",
    qualifier: "exit-only",
    detail: "exited 0",
    sessionId: null,
    costUsd: 0,
    durationMs: 1,
    deniedToolCalls: 0,
    usage: null,
    numTurns: null,
    sink: false,
  };
}

function failRow(id: string, cause: FailCause): FailRow {
  return { ...passRow(id), verdict: "FAIL", cause, detail: cause };
}

const passed = (id: string): Settlement => ({ kind: "passed", row: passRow(id), reply: `${id} reply` });
const failed = (id: string, cause: FailCause = "nonzero_exit"): Settlement => ({
  kind: "failed",
  row: failRow(id, cause),
  judged: false,
});

/** Lets every promise chain the last settle started run to its end (a macrotask after all microtasks). */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Started {
  readonly port: RecordingPort;
  readonly scheduler: Scheduler;
  readonly done: Promise<ScheduleEnd>;
}

async function start(
  yaml: string,
  o: {
    concurrency?: number;
    onFail?: "halt" | "continue";
    start?: Record<string, NodeStart>;
    rejected?: string[];
    signal?: AbortSignal;
  } = {},
): Promise<Started> {
  const port = new RecordingPort();
  const scheduler = new Scheduler({
    graph: graphOf(yaml),
    concurrency: o.concurrency ?? 4,
    onFail: o.onFail ?? "halt",
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    start: new Map(Object.entries(o.start ?? {})),
    rejectedGate: (id) => (o.rejected ?? []).includes(id),
    port,
  });
  const done = scheduler.run();
  await flush();
  return { port, scheduler, done };
}

const DIAMOND = `
nodes:
  - { id: a, prompt: a }
  - { id: b, prompt: b, depends_on: [a] }
  - { id: c, prompt: c }
  - { id: d, prompt: d, depends_on: [b, c] }
`;

describe("ready-set scheduling", () => {
  test("a node starts as soon as all its dependencies passed, while an unrelated node still runs", async () => {
    const { port, done } = await start(DIAMOND);
    expect(port.ids()).toEqual(["a", "c"]);
    port.settleNext("a", passed("a"));
    await flush();
    // b started on a's settlement alone; c is still running, so d waits for it.
    expect(port.ids()).toEqual(["c", "b"]);
    port.settleNext("b", passed("b"));
    await flush();
    expect(port.ids()).toEqual(["c"]);
    port.settleNext("c", passed("c"));
    await flush();
    port.settleNext("d", passed("d"));
    const end = await done;
    expect([...end.states]).toEqual([
      ["a", "passed"],
      ["b", "passed"],
      ["c", "passed"],
      ["d", "passed"],
    ]);
    expect(end.pause).toBeNull();
    expect(port.log.filter((l) => l.startsWith("execute"))).toEqual([
      "execute a attempt 1 round 0",
      "execute c attempt 1 round 0",
      "execute b attempt 1 round 0",
      "execute d attempt 1 round 0",
    ]);
  });

  test("no more than concurrency run at once; a freed slot goes to the next ready node in graph order", async () => {
    const { port, done } = await start(
      "nodes:\n  - { id: a, prompt: a }\n  - { id: b, prompt: b }\n  - { id: c, prompt: c }\n",
      { concurrency: 2 },
    );
    expect(port.ids()).toEqual(["a", "b"]);
    port.settleNext("b", passed("b"));
    await flush();
    expect(port.ids()).toEqual(["a", "c"]);
    port.settleNext("a", passed("a"));
    port.settleNext("c", passed("c"));
    await done;
  });

  test("nodes settled by an earlier leg are not run again; a failed one prunes its descendants, a rejected gate says so", async () => {
    const { port, done } = await start(
      `
nodes:
  - { id: a, prompt: a }
  - { id: b, prompt: b, depends_on: [a] }
  - { id: g, type: gate, depends_on: [a] }
  - { id: c, prompt: c, depends_on: [g] }
  - { id: e, prompt: e }
  - { id: f, prompt: f, depends_on: [e] }
`,
      {
        start: {
          a: { state: "passed", round: 0 },
          g: { state: "failed", round: 0 },
          e: { state: "failed", round: 0 },
        },
        rejected: ["g"],
      },
    );
    expect(port.log).toEqual([
      'skipped c: dependency "g" was rejected',
      'skipped f: dependency "e" failed',
      "execute b attempt 1 round 0",
    ]);
    port.settleNext("b", passed("b"));
    const end = await done;
    expect(end.reasons.get("c")).toBe('dependency "g" was rejected');
  });
});

describe("on_fail", () => {
  test("halt: the first FAIL aborts running siblings and launches nothing new; pending nodes say the run halted", async () => {
    const { port, scheduler, done } = await start(
      "nodes:\n  - { id: a, prompt: a }\n  - { id: b, prompt: b }\n  - { id: c, prompt: c }\n",
      { concurrency: 2 },
    );
    const sibling = port.running.find((r) => r.id === "b");
    port.settleNext("a", failed("a"));
    await flush();
    expect(scheduler.haltedBy).toBe("a");
    expect(sibling?.signal.aborted).toBe(true);
    expect(port.ids()).toEqual(["b"]);
    expect(port.log).toContain('skipped c: run halted after "a" failed');
    port.settleNext("b", { kind: "cancelled", row: failRow("b", "cancelled") });
    const end = await done;
    expect(end.states.get("b")).toBe("cancelled");
    expect(end.states.get("c")).toBe("skipped");
    expect(port.log.filter((l) => l.startsWith("execute"))).toHaveLength(2);
  });

  test("continue: a FAIL prunes only its descendants, each naming the node that failed; an independent branch runs on", async () => {
    const { port, scheduler, done } = await start(
      `
nodes:
  - { id: a, prompt: a }
  - { id: b, prompt: b, depends_on: [a] }
  - { id: c, prompt: c, depends_on: [b] }
  - { id: d, prompt: d }
`,
      { onFail: "continue" },
    );
    const independent = port.running.find((r) => r.id === "d");
    port.settleNext("a", failed("a"));
    await flush();
    expect(scheduler.haltedBy).toBeNull();
    expect(independent?.signal.aborted).toBe(false);
    port.settleNext("d", passed("d"));
    const end = await done;
    expect(end.reasons.get("b")).toBe('dependency "a" failed');
    expect(end.reasons.get("c")).toBe('dependency "b" was skipped because "a" failed');
    expect(end.states.get("d")).toBe("passed");
  });

  test("an aborted run signal cancels running nodes and skips the rest as cancelled", async () => {
    const stop = new AbortController();
    const { port, done } = await start(DIAMOND, { signal: stop.signal });
    const running = [...port.running];
    stop.abort();
    expect(running.every((r) => r.signal.aborted)).toBe(true);
    port.settleNext("a", { kind: "cancelled", row: null });
    port.settleNext("c", { kind: "cancelled", row: null });
    const end = await done;
    expect(end.reasons.get("b")).toBe("run cancelled");
    expect(end.reasons.get("d")).toBe("run cancelled");
  });
});

describe("pauses", () => {
  const GATED = `
nodes:
  - { id: a, prompt: a }
  - { id: g, type: gate, depends_on: [a] }
  - { id: b, prompt: b, depends_on: [g] }
  - { id: c, prompt: c }
  - { id: e, prompt: e, depends_on: [c] }
`;

  test("an undecided gate pauses the leg: running siblings drain (not cancelled), nothing new starts", async () => {
    const { port, done } = await start(GATED);
    port.settleNext("a", passed("a"));
    await flush();
    expect(port.log).toContain("gateReached g");
    const sibling = port.running.find((r) => r.id === "c");
    expect(sibling?.signal.aborted).toBe(false);
    port.settleNext("c", passed("c"));
    const end = await done;
    // e's dependency passed, but the pause launches nothing new.
    expect(port.log.filter((l) => l.startsWith("execute"))).toEqual([
      "execute a attempt 1 round 0",
      "execute c attempt 1 round 0",
    ]);
    expect(end.pause).toEqual({ reason: "gate", node: "g" });
    expect(end.states.get("g")).toBe("waiting");
    expect(end.reasons.get("g")).toBe("waiting for a person to approve or reject this gate");
    expect(end.reasons.get("e")).toBe('not run yet: the run is paused at gate "g"');
    expect(port.log.filter((l) => l.startsWith("neverRan"))).toEqual(["neverRan b", "neverRan e"]);
  });

  test("a session limit pauses the leg; a gate reached later outranks it", async () => {
    const { port, done } = await start(GATED, { concurrency: 2 });
    port.settleNext("c", { kind: "paused", row: failRow("c", "run_error"), resetsAt: "5pm" });
    await flush();
    expect(port.ids()).toEqual(["a"]);
    port.settleNext("a", passed("a"));
    const end = await done;
    expect(end.pause).toEqual({ reason: "session-limit", node: "c", resets_at: "5pm" });
    expect(end.states.get("c")).toBe("limited");
    // No reason for c: its PAUSED row is its one row (no SKIPPED row repeats it).
    expect(end.reasons.has("c")).toBe(false);
    expect(end.reasons.get("g")).toBe("not run yet: the run paused at the model's session limit");
  });

  test("a halted run reports no pause: the failure decides it", async () => {
    const { port, done } = await start(GATED, { concurrency: 2 });
    port.settleNext("a", passed("a"));
    await flush();
    port.settleNext("c", failed("c"));
    const end = await done;
    expect(end.states.get("g")).toBe("waiting");
    expect(end.pause).toBeNull();
  });
});

describe("acting on decisions", () => {
  const retryOf = (id: string, attempt: number): RetrySettlement => ({
    kind: "retry",
    row: { ...failRow(id, "run_error"), superseded: true },
    info: { kind: "retry", cause: "run_error", attempt: attempt + 1, maxAttempts: 3, judged: false },
    detail: `retry ${attempt}/2 after run_error`,
    next: { attempt: attempt + 1, round: 0 },
  });

  test("a retry runs the next attempt in the same slot, before any other ready node", async () => {
    const { port, done } = await start("nodes:\n  - { id: a, prompt: a }\n  - { id: b, prompt: b }\n", {
      concurrency: 1,
    });
    port.settleNext("a", retryOf("a", 1));
    await flush();
    expect(port.ids()).toEqual(["a"]);
    expect(port.running[0]?.input).toEqual({ attempt: 2, round: 0 });
    port.settleNext("a", passed("a"));
    await flush();
    port.settleNext("b", passed("b"));
    await done;
    expect(port.log).toEqual([
      "execute a attempt 1 round 0",
      "retrying a → attempt 2",
      "execute a attempt 2 round 0",
      "settled a passed",
      "execute b attempt 1 round 0",
      "settled b passed",
    ]);
  });

  test("a retry decided after the run halted never starts: the attempt's FAIL stands, and halts nothing more", async () => {
    const { port, scheduler, done } = await start(
      "nodes:\n  - { id: a, prompt: a }\n  - { id: b, prompt: b }\n",
    );
    port.settleNext("a", failed("a"));
    await flush();
    port.settleNext("b", retryOf("b", 1));
    const end = await done;
    expect(port.log.slice(-3)).toEqual([
      "retrying b → attempt 2",
      "retryNotStarted b haltedBy a",
      "settled b failed",
    ]);
    expect(scheduler.haltedBy).toBe("a");
    expect(end.states.get("b")).toBe("failed");
  });

  const LOOP = `
nodes:
  - { id: w, prompt: "write {{ feedback.r }}" }
  - id: r
    depends_on: [w]
    prompt: review
    success_check: { result_matches: "^OK$" }
    feedback: { rerun: w, max: 2 }
  - { id: x, prompt: x }
`;
  const feedbackOf = (round: number): FeedbackSettlement => ({
    kind: "feedback",
    row: failRow("r", "result_mismatch"),
    judged: true,
    arc: { rerun: "w", max: 2, body: ["w", "r"] },
    round,
    payload: `payload ${round}`,
    detail: `feedback round ${round}/2`,
  });

  test("feedback re-arms the arc's body: its nodes run again in dependency order, in the new round", async () => {
    const { port, done } = await start(LOOP, { concurrency: 1 });
    port.settleNext("w", passed("w"));
    await flush();
    port.settleNext("r", feedbackOf(1));
    await flush();
    port.settleNext("w", passed("w"));
    await flush();
    port.settleNext("r", passed("r"));
    await flush();
    port.settleNext("x", passed("x"));
    await done;
    expect(port.log.filter((l) => !l.startsWith("settled"))).toEqual([
      "execute w attempt 1 round 0",
      "execute r attempt 1 round 0",
      "feedbackFired r round 1",
      "execute w attempt 1 round 1",
      "execute r attempt 1 round 1",
      "execute x attempt 1 round 0",
    ]);
  });

  test("a feedback decision that lands after the run halted fires nothing: the declarer's FAIL stands", async () => {
    const { port, done } = await start(LOOP, { concurrency: 2 });
    port.settleNext("w", passed("w"));
    await flush();
    expect(port.ids()).toEqual(["x", "r"]);
    port.settleNext("x", failed("x"));
    await flush();
    port.settleNext("r", feedbackOf(1));
    const end = await done;
    expect(port.log).not.toContain("feedbackFired r round 1");
    expect(port.log.at(-1)).toBe("settled r failed");
    expect(end.states.get("r")).toBe("failed");
  });

  test("an execution that rejects (an internal error) fails its node through the port, and halts the run", async () => {
    const { port, scheduler, done } = await start("nodes:\n  - { id: a, prompt: a }\n");
    port.settleNext("a", new Error("boom"));
    const end = await done;
    expect(port.log).toEqual(["execute a attempt 1 round 0", "internalError a boom", "settled a failed"]);
    expect(end.states.get("a")).toBe("failed");
    expect(scheduler.haltedBy).toBe("a");
  });

  test("a failed state write while acting does not hang the leg: run() rejects with it once nothing runs", async () => {
    const { port, done } = await start("nodes:\n  - { id: a, prompt: a }\n  - { id: b, prompt: b }\n");
    port.failWrites = true;
    port.settleNext("a", passed("a"));
    await flush();
    port.settleNext("b", passed("b"));
    await expect(done).rejects.toThrow("disk full");
  });
});
