/**
 * The orphan guard (src/proc/orphan-guard.ts; issue 17 item 7): a child started through the exec seam does
 * not outlive an engine killed with SIGKILL, and the engine runs ONE guard for all its children (issue 16,
 * B1), which never signals a group it was told was released. The engine is test/proc/fixtures/orphan-probe.ts,
 * bundled with esbuild and run as `node probe.mjs SECONDS [CHILDREN] [flags]`; its children are
 * `sleep SECONDS`, found by their command line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GUARD_NAME } from "../../src/proc/orphan-guard.js";
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

/** The parent pid of `pid` (`/proc/<pid>/stat`, the field after the state). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Starts the probe and resolves once its children run: the probe, the children's pids, `released`. */
async function probeWithChildren(
  seconds: number,
  extra: string[] = [],
): Promise<{ engine: ChildProcess; children: number[]; released: number | null }> {
  const engine = spawn(process.execPath, [probe, String(seconds), ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (engine.pid !== undefined) leftovers.push(engine.pid);
  const ready = await new Promise<{ released: number | null }>((resolve, reject) => {
    let text = "";
    engine.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const line = text.split("\n").find((l) => l.includes('"ready":true'));
      if (line !== undefined) resolve(JSON.parse(line));
    });
    engine.on("exit", (code) => reject(new Error(`the probe exited (${code}) before its children ran`)));
  });
  if (ready.released !== null) leftovers.push(ready.released);
  const children = pidsWithCommandLine(`sleep ${seconds}`).filter((pid) => pid !== ready.released);
  expect(children.length, `no running "sleep ${seconds}"`).toBeGreaterThan(0);
  leftovers.push(...children);
  return { engine, children, released: ready.released };
}

describe("children of an engine killed with SIGKILL", () => {
  it("are all killed by the engine's one guard once the engine is gone (each its own process group, so nothing else stops them)", async () => {
    const { engine, children } = await probeWithChildren(3701, ["3"]);
    expect(children).toHaveLength(3);
    const guards = pidsWithCommandLine(GUARD_NAME).filter((pid) => parentOf(pid) === engine.pid);
    expect(guards).toHaveLength(1);

    engine.kill("SIGKILL");

    expect(await eventually(() => children.every(processIsGone), 20_000)).toBe(true);
    expect(await eventually(() => processIsGone(guards[0]!), 20_000)).toBe(true);
  });

  it("without the guard (orphanGuard: false) run on: the case the guard exists for", async () => {
    const { engine, children } = await probeWithChildren(3702, ["--no-guard"]);

    engine.kill("SIGKILL");
    await new Promise<void>((resolve) => engine.on("exit", () => resolve()));

    // Given the time the guarded children took to go, and more: still running.
    expect(await eventually(() => processIsGone(children[0]!), 1500)).toBe(false);
  });

  it("a group released from the guard is not signalled when the engine dies; a guarded one is", async () => {
    const { engine, children, released } = await probeWithChildren(3703, ["1", "--released"]);
    expect(released).not.toBeNull();

    engine.kill("SIGKILL");

    expect(await eventually(() => processIsGone(children[0]!), 20_000)).toBe(true);
    expect(processIsGone(released!)).toBe(false);
  });
});
