// B2 (issue 16): start → first child spawn (bundle load + input parsing), against `node -e 0` on the
// same machine in the same run.
//
//   node bench/b2-first-spawn.mjs
//
// The entry is the built CLI (`node dist/cli.js verify --verify-cmd true`; the action's dist/index.js loads
// the same engine bundle). Its first child is git: a `git` shim first on PATH records the wall clock
// (`date +%s%N`) when it starts, then execs the real git. The figure is the median over 5 runs of that
// instant minus the instant this script spawned the CLI; the reference is the median wall time of 5
// `node -e 0`. Prints numbers; asserts nothing.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_CLI } from "./lib/cli.mjs";
import { emitRow, fixed, makeRepo, median, run } from "./lib/row.mjs";

const ROUNDS = 5;
const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b2-"));
try {
  const repo = join(scratch, "repo");
  const bin = join(scratch, "bin");
  mkdirSync(repo);
  mkdirSync(bin);
  makeRepo(repo);
  const realGit = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
  const stamp = join(scratch, "first-git");
  const shim = join(bin, "git");
  writeFileSync(shim, `#!/bin/sh\n[ -e '${stamp}' ] || date +%s%N > '${stamp}'\nexec '${realGit}' "$@"\n`);
  chmodSync(shim, 0o755);

  const first = [];
  for (let i = 0; i < ROUNDS; i++) {
    rmSync(stamp, { force: true });
    const spawnedAt = Date.now();
    const r = await run(process.execPath, [DIST_CLI, "verify", "--verify-cmd", "true", "--repo", repo], {
      cwd: repo,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: scratch, LANG: "C.UTF-8" },
    });
    if (r.code !== 0) throw new Error(`evidence-gate verify exited ${r.code}: ${r.stderr}`);
    first.push(Number(BigInt(readFileSync(stamp, "utf8").trim()) / 1_000_000n) - spawnedAt);
  }
  const bare = [];
  for (let i = 0; i < ROUNDS; i++) bare.push((await run(process.execPath, ["-e", "0"])).ms);
  const figure = median(first);
  const reference = median(bare);
  const ratio = figure / reference;
  console.log(
    `B2: start → first git ${first.map((m) => fixed(m)).join(", ")} ms; node -e 0 ${bare.map((m) => fixed(m)).join(", ")} ms`,
  );
  emitRow({
    id: "B2",
    measure: "CLI start → first child (git) spawn, median of 5",
    figure: `${fixed(figure)} ms`,
    reference: `node -e 0 ${fixed(reference)} ms`,
    goal: "≤ 5× and ≤ 250 ms",
    ratio,
    atGoal: ratio <= 5 && figure <= 250,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
