// B2 (issue 16): action start → first child spawn (bundle load + input parsing), against `node -e 0` on the
// same machine in the same run.
//
//   node bench/b2-first-spawn.mjs
//
// The entry is the action as the runner starts it: `node dist/index.js` (`mode: verify`,
// `verify-cmd: true`), through the test harness that gives it the runner's environment and the local GitHub
// server (test/support/action-harness.ts, bundled with bench/b5-rig.ts). The action's process launches the
// clean engine process (the same script, re-executed: issue 12) and the engine's first child is git: a
// `git` shim first on PATH records the wall clock (`date +%s%N`) when it starts, then execs the real git.
// The figure is the median over 5 runs of that instant minus the instant the harness spawned the action;
// the reference is the median wall time of 5 `node -e 0`. Prints numbers; asserts nothing.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRig } from "./lib/rig.mjs";
import { emitRow, fixed, median, run } from "./lib/row.mjs";

const ROUNDS = 5;
const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b2-"));
const rig = await loadRig();
let github = null;
let repo = null;
try {
  const bin = join(scratch, "bin");
  mkdirSync(bin);
  repo = await rig.makeTempRepo({ files: { "README.md": "bench\n" }, commit: true });
  const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
  const stamp = join(scratch, "first-git");
  const shim = join(bin, "git");
  writeFileSync(shim, `#!/bin/sh\n[ -e '${stamp}' ] || date +%s%N > '${stamp}'\nexec '${realGit}' "$@"\n`);
  chmodSync(shim, 0o755);
  github = await rig.startGitHubServer();

  const first = [];
  for (let i = 0; i < ROUNDS; i++) {
    rmSync(stamp, { force: true });
    let spawnedAt = 0;
    const r = await rig.runActionStep({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "true" },
      github,
      prependPath: [bin],
      onSpawn: () => {
        spawnedAt = Date.now();
      },
    });
    if (r.exitCode !== 0) throw new Error(`the action exited ${r.exitCode}: ${r.stdout.slice(-2000)}`);
    rig.cleanupActionRun(r);
    first.push(Number(BigInt(readFileSync(stamp, "utf8").trim()) / 1_000_000n) - spawnedAt);
  }
  const bare = [];
  for (let i = 0; i < ROUNDS; i++) bare.push((await run(process.execPath, ["-e", "0"])).ms);
  const figure = median(first);
  const reference = median(bare);
  const ratio = figure / reference;
  console.log(
    `B2: action start → first git ${first.map((m) => fixed(m)).join(", ")} ms; node -e 0 ${bare.map((m) => fixed(m)).join(", ")} ms`,
  );
  emitRow({
    id: "B2",
    measure: "action (node dist/index.js) start → first child (git) spawn, median of 5",
    figure: `${fixed(figure)} ms`,
    reference: `node -e 0 ${fixed(reference)} ms`,
    goal: "≤ 5× and ≤ 250 ms",
    ratio,
    atGoal: ratio <= 5 && figure <= 250,
  });
} finally {
  await github?.close();
  await repo?.cleanup();
  rig.dispose();
  rmSync(scratch, { recursive: true, force: true });
}
