/**
 * Nothing a PR-code child starts outlives it (issue 12 item 4; `src/proc/leftovers.ts`), driven with real
 * processes: a `setsid` grandchild and a double-forked one, which the process-group kill does not reach.
 * Bounds on waits only stop a broken test from hanging; nothing asserts how long anything took.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runVerify } from "../../src/evidence/verify.js";
import { ChildScope } from "../../src/proc/child-identity.js";
import { type ProcessResult, runProcess } from "../../src/proc/run-process.js";
import { eventually, killLeftovers, minimalEnv, parsePid, processIsGone } from "./process-probe.js";

const workDir = mkdtempSync(join(tmpdir(), "eg-leftovers-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let recorded: number[] = [];
afterEach(() => {
  killLeftovers(recorded);
  recorded = [];
});

/** Starts a `setsid` sleeper and a double-forked one, prints both pids, and exits at once. */
const ESCAPE = `setsid sh -c 'echo setsid:$$; exec sleep 300' & (sh -c 'echo fork:$$; exec sleep 300' &); sleep 0.3; exit 0`;

/** The pids the script printed, by how each escaped. */
function printed(lines: readonly string[]): { readonly setsid: number[]; readonly fork: number[] } {
  const of = (kind: string) =>
    lines.flatMap((l) => (l.startsWith(`${kind}:`) ? [parsePid(l.slice(kind.length + 1))] : []));
  return { setsid: of("setsid"), fork: of("fork") };
}

async function escaped(prCode: boolean): Promise<{
  readonly result: ProcessResult;
  readonly pids: number[];
  readonly setsid: number[];
}> {
  const lines: string[] = [];
  const result = await runProcess({
    command: ESCAPE,
    shell: true,
    cwd: workDir,
    env: minimalEnv(),
    prCode,
    onStdoutLine: (line) => void lines.push(line),
    // The sleepers hold stdout open: settle without the default 2 s wait for them.
    drainGraceMs: 200,
  });
  const { setsid, fork } = printed(lines);
  const pids = [...setsid, ...fork];
  recorded.push(...pids);
  return { result, pids, setsid };
}

describe("leftover processes of PR code", () => {
  it("a prCode child's setsid and double-forked descendants are killed when it ends, and counted", async () => {
    const { result, pids } = await escaped(true);
    expect(pids).toHaveLength(2);
    expect(result.kind).toBe("exited");
    if (result.kind !== "exited") return;
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
    expect(result.leftBehind).toBe(2);
  });

  it("without prCode the setsid descendant survives the group kill (what the marker closes)", async () => {
    const { result, pids, setsid } = await escaped(false);
    expect(pids).toHaveLength(2);
    expect(result.kind === "spawn_failed" ? undefined : result.leftBehind).toBeUndefined();
    expect(setsid).toHaveLength(1);
    expect(setsid.filter((pid) => !processIsGone(pid))).toEqual(setsid);
  });

  it("a child that leaves nothing behind reports 0", async () => {
    const result = await runProcess({
      command: "true",
      shell: true,
      cwd: workDir,
      env: minimalEnv(),
      prCode: true,
    });
    expect(result.kind === "spawn_failed" ? null : result.leftBehind).toBe(0);
  });

  it("the verify command's ledger tail says that what it left running was killed; the scope counts it", async () => {
    const scope = new ChildScope(null);
    const evidence = await scope.run(async () => {
      const found = await runVerify({
        command: ESCAPE,
        cwd: workDir,
        timeoutMs: 60_000,
        expectExit: 0,
        env: minimalEnv(),
        passThrough: [],
        knownSecrets: [],
      });
      return found;
    });
    const { setsid, fork } = printed(evidence.outputTail.split("\n"));
    const pids = [...setsid, ...fork];
    recorded.push(...pids);
    expect(pids).toHaveLength(2);
    expect(scope.leftBehind).toBe(2);
    expect(evidence.outcome).toBe("passed");
    expect(evidence.outputTail).toContain(
      "[evidence-gate] 2 processes the command left running (background, setsid or double-forked) were killed when it ended",
    );
    await eventually(() => pids.every(processIsGone), 10_000);
    expect(pids.filter((pid) => !processIsGone(pid))).toEqual([]);
  });
});
