// `npm run bench`: builds dist/, runs every `bench/b<N>[letter]-*.mjs` (B8 runs `bot-load.mjs`; B4c and B6b
// also print their own tables), one after the other, each as a child process, and prints ONE table of the rows they
// report (`BENCH-ROW {json}` lines, bench/lib/row.mjs): id, measure, figure, the reference measured in the
// same run, goal, ratio, at goal. Each script's own lines go to stderr as they come. Nothing fails on
// timing: the exit code is 1 only when a script itself failed (its row then says so).
//
//   npm run bench                 BENCH_SCALE=0.2 npm run bench     (smaller workloads; see lib/row.mjs)
//   BENCH_NO_BUILD=1 npm run bench  (use dist/ as it is)
import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./lib/cli.mjs";
import { benchScale, ROW_MARKER } from "./lib/row.mjs";

const scale = benchScale();
if (process.env.BENCH_NO_BUILD !== "1") {
  const built = spawnSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], {
    stdio: ["ignore", 2, 2],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const scripts = readdirSync(join(ROOT, "bench"))
  .filter((f) => /^b\d+[a-z]?-.*\.mjs$/.test(f))
  .sort();

const rows = [];
let failed = false;
const started = performance.now();
for (const script of scripts) {
  const id = script.split("-")[0].toUpperCase();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "bench", script)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BENCH_SCALE: String(scale) },
    });
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      buffered += chunk;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith(ROW_MARKER)) rows.push(JSON.parse(line.slice(ROW_MARKER.length)));
        else process.stderr.write(`  ${script}: ${line}\n`);
        nl = buffered.indexOf("\n");
      }
    });
    child.once("close", resolve);
  });
  if (code !== 0) {
    failed = true;
    const figure = `script failed (exit ${code})`;
    rows.push({ id, measure: script, figure, reference: "—", goal: "—", ratio: null, atGoal: null });
  }
}

const cells = (r) => [
  r.id,
  r.measure,
  r.figure,
  r.reference,
  r.goal,
  r.ratio === null ? "—" : `${r.ratio.toFixed(2)}×`,
  r.atGoal === null ? "—" : r.atGoal ? "yes" : "no",
];
const header = ["id", "measure", "figure", "reference (same run)", "goal", "ratio", "at goal"];
console.log(
  `\nevidence-gate benchmarks (BENCH_SCALE=${scale}, node ${process.version}, ${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
);
console.log(`| ${header.join(" | ")} |`);
console.log(`| ${header.map(() => "---").join(" | ")} |`);
for (const r of rows.sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true })))
  console.log(`| ${cells(r).join(" | ")} |`);
process.exitCode = failed ? 1 : 0;
