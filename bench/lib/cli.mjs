// Running the built CLI (`dist/cli.js`, as a user does) on a hand-written graph with the bench's fake
// `claude`, and reading the run directory it wrote.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./row.mjs";

/** The repository's root (bench/lib/ is two folders down). */
export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The built CLI (`npm run build`). */
export const DIST_CLI = join(ROOT, "dist", "cli.js");
/** The built action entry. */
export const DIST_ACTION = join(ROOT, "dist", "index.js");

/**
 * `evidence-gate run GRAPH` in `repo` with `claudePath`, `home` as HOME, `graph` (an object) written to
 * `<scratch>/graph.json`; `wrap` (argv prefix, e.g. `/usr/bin/time -f %M`) runs the CLI under a tool.
 * Resolves with run()'s `{code, stdout, stderr, ms}` plus `events` (events.jsonl, parsed) and `ledger`.
 */
export async function runGraph({ graph, repo, scratch, claudePath, home, wrap = [], env = {} }) {
  const graphFile = join(scratch, `graph-${Date.now()}.json`);
  writeFileSync(graphFile, JSON.stringify(graph));
  const argv = [process.execPath, DIST_CLI, "run", graphFile, "--claude-path", claudePath, "--repo", repo];
  const [file, ...args] = [...wrap, ...argv];
  const result = await run(file, args, {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", ...env },
  });
  if (result.code !== 0 && result.code !== 1)
    throw new Error(
      `evidence-gate run exited ${result.code}:\n${result.stderr}\n${result.stdout.slice(-2000)}`,
    );
  const runsDir = join(repo, ".evidence-gate", "runs");
  const runDir = join(runsDir, readdirSync(runsDir).sort().at(-1));
  const events = readFileSync(join(runDir, "events.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
  const ledger = JSON.parse(readFileSync(join(runDir, "ledger.json"), "utf8"));
  return { ...result, events, ledger, runDir };
}
