/**
 * The orphan guard (src/proc/orphan-guard.ts; issue 17 item 7): a child started through the exec seam does
 * not outlive an engine killed with SIGKILL. The engine is test/proc/fixtures/orphan-probe.ts, bundled with
 * esbuild and run as `node probe.mjs SECONDS`; its child is `sleep SECONDS`, found by its command line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { guardGroup } from "../../src/proc/orphan-guard.js";
import { pidsWithCommandLine } from "../engine/runtime-harness.js";
import { eventually, killLeftovers, processIsGone } from "./process-probe.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/orphan-probe.ts", import.meta.url));
let dir = "";
let probe = "";
const leftovers: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "eg-orphan-probe-"));
  probe = join(dir, "probe.mjs");
  await build({
    entryPoints: [FIXTURE],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: probe,
    logLevel: "warning",
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => killLeftovers(leftovers.splice(0)));

/** Starts the probe and resolves once its child runs: the probe and the child's pid. */
async function probeWithChild(
  seconds: number,
  extra: string[] = [],
): Promise<{ engine: ChildProcess; child: number }> {
  const engine = spawn(process.execPath, [probe, String(seconds), ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (engine.pid !== undefined) leftovers.push(engine.pid);
  await new Promise<void>((resolve, reject) => {
    engine.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes('"ready":true')) resolve();
    });
    engine.on("exit", (code) => reject(new Error(`the probe exited (${code}) before its child ran`)));
  });
  const [child] = pidsWithCommandLine(`sleep ${seconds}`);
  expect(child, `no running "sleep ${seconds}"`).toBeDefined();
  leftovers.push(child!);
  return { engine, child: child! };
}

describe("a child of an engine killed with SIGKILL", () => {
  it("is killed by its guard once the engine is gone (its own process group, so nothing else stops it)", async () => {
    const { engine, child } = await probeWithChild(3701);

    engine.kill("SIGKILL");

    expect(await eventually(() => processIsGone(child), 20_000)).toBe(true);
  });

  it("without the guard (orphanGuard: false) runs on: the case the guard exists for", async () => {
    const { engine, child } = await probeWithChild(3702, ["--no-guard"]);

    engine.kill("SIGKILL");
    await new Promise<void>((resolve) => engine.on("exit", () => resolve()));

    // Given the time the guarded child took to go, and more: still running.
    expect(await eventually(() => processIsGone(child), 1500)).toBe(false);
  });
});

describe("guardGroup", () => {
  it("released, it ends without signalling the group", async () => {
    const sleeper = spawn("/bin/sh", ["-c", "exec sleep 3703"], { detached: true, stdio: "ignore" });
    leftovers.push(sleeper.pid!);
    const guard = guardGroup(sleeper.pid!);
    const marker = `evidence-gate-orphan-guard ${sleeper.pid}`;
    const [guardPid] = pidsWithCommandLine(marker);
    expect(guardPid).toBeDefined();

    guard.release();

    expect(await eventually(() => pidsWithCommandLine(marker).length === 0, 10_000)).toBe(true);
    expect(processIsGone(sleeper.pid!)).toBe(false);
  });
});
