// What every bench script shares: the scale knob, the one machine-readable row it prints for
// `npm run bench` (bench/run-all.mjs), a hermetic git, and small timing helpers. Public tools only: node's
// process APIs, git, /bin/sh.
import { spawn, spawnSync } from "node:child_process";

/**
 * `BENCH_SCALE` (default 1): a factor in (0, 1] on every workload size (files, bytes, durations), so a
 * shared machine can run the whole set small (`BENCH_SCALE=0.1 npm run bench`). Anything else is refused.
 */
export function benchScale() {
  const text = process.env.BENCH_SCALE ?? "1";
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > 1)
    throw new Error(
      `BENCH_SCALE must be a number in (0, 1], got ${JSON.stringify(text)}; unset it for full size`,
    );
  return value;
}

/** The marker bench/run-all.mjs reads a row from: `BENCH-ROW {json}` on stdout. */
export const ROW_MARKER = "BENCH-ROW ";

/**
 * Prints one table row. Shape: `{id, measure, figure, reference, goal, ratio, atGoal}` — `figure` and
 * `reference` are text with their units (measured in the same run), `ratio` a number or `null` (no ratio
 * applies: a count at a bound, not measured), `atGoal` `true`/`false`/`null` (not measured).
 */
export function emitRow(row) {
  console.log(`${ROW_MARKER}${JSON.stringify(row)}`);
}

/** A row that could not be measured here, with the reason. */
export function notMeasured(id, measure, goal, why) {
  emitRow({ id, measure, figure: `not measured: ${why}`, reference: "—", goal, ratio: null, atGoal: null });
}

/** An environment for git that reads no user or system configuration. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

/** `git ARGS` in `cwd`; throws with git's stderr when it fails. Returns stdout. */
export function git(cwd, ...args) {
  const r = spawnSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} in ${cwd}: ${r.stderr}`);
  return r.stdout;
}

/** A fresh repository at `dir` with one commit of `files` (name → text). */
export function makeRepo(dir, files = { "README.md": "bench\n" }) {
  git(dir, "init", "--quiet", "--initial-branch=main");
  for (const [name, text] of Object.entries(files))
    spawnSync("sh", ["-c", 'cat > "$0"', `${dir}/${name}`], { input: text });
  git(dir, "add", "-A");
  git(dir, "commit", "--quiet", "-m", "init");
}

/**
 * Runs `file args` as an async child (stdio: stdout/stderr captured) and resolves with
 * `{code, stdout, stderr, ms}` — `ms` the wall time from spawn to exit.
 */
export function run(file, args, options = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** The median of `values` (numbers). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** `n` with `digits` decimals. */
export const fixed = (n, digits = 0) => Number(n).toFixed(digits);
