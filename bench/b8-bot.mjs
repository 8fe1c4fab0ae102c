// B8 (issue 16): the bot's signed deliveries/s and p99 latency with two replicas, no loss, no duplicate
// check run. bench/bot-load.mjs measures exactly this (one replica, then two; its own table, docs/bot.md)
// and prints the row; this runs it with its pull requests scaled by BENCH_SCALE (40 at full size).
//
//   node bench/b8-bot.mjs
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./lib/cli.mjs";
import { benchScale } from "./lib/row.mjs";

const pulls = Math.max(5, Math.round(40 * benchScale()));
const r = spawnSync(process.execPath, [join(ROOT, "bench", "bot-load.mjs"), String(pulls), "5"], {
  cwd: ROOT,
  stdio: "inherit",
});
process.exitCode = r.status ?? 1;
