/**
 * `killMarked` looks only at processes that started since the child did (`src/proc/leftovers.ts`,
 * `sinceTicks`; found by bench B1: reading every live process's environment per settled node was the
 * larger part of the engine's time between nodes). A process that started before cannot be the child's
 * descendant: with the start time given it is left alone even when it carries the marker, and one started
 * after is still killed. Real processes (`sleep`); bounds on waits only stop a broken test from hanging.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { killMarked, SPAWN_MARKER, startTicksOf } from "../../src/proc/leftovers.js";
import { eventually, killLeftovers, minimalEnv, processIsGone } from "./process-probe.js";

const started: ChildProcess[] = [];
afterEach(() => {
  killLeftovers(started.flatMap((c) => (c.pid !== undefined ? [c.pid] : [])));
  started.length = 0;
});

/** A `sleep 300`, with `marker` in its environment when given; resolves once it runs. */
async function sleeper(marker?: string): Promise<number> {
  const env = minimalEnv(marker !== undefined ? { [SPAWN_MARKER]: marker } : {});
  const child = spawn("sleep", ["300"], { env, stdio: "ignore" });
  started.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", reject);
  });
  if (child.pid === undefined) throw new Error("sleep did not start");
  return child.pid;
}

/** Waits until the kernel's start-time clock (10 ms ticks) has moved past `ticks`. */
async function tickAfter(ticks: number): Promise<number> {
  for (;;) {
    const probe = await sleeper();
    const now = startTicksOf(probe);
    if (now === null) throw new Error("no /proc start time for a live process");
    if (now > ticks) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(process.platform === "linux")("killMarked since the child's start", () => {
  it("leaves a marked process that started before alone and kills one that started after", async () => {
    const marker = "since-test-marker";
    const older = await sleeper(marker);
    const olderTicks = startTicksOf(older);
    expect(olderTicks).not.toBeNull();
    const since = await tickAfter(olderTicks ?? 0);
    const newer = await sleeper(marker);

    const killed = killMarked(marker, null, since);

    expect(killed).toEqual([newer]);
    expect(await eventually(() => processIsGone(newer), 10_000)).toBe(true);
    expect(processIsGone(older)).toBe(false);
    // Without a start time every process is looked at: the older one is found by its marker.
    expect(killMarked(marker, null)).toEqual([older]);
  });
});
