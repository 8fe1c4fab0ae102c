// B10 (issue 24 item 5): the CPU `evidence-gate --version` and `evidence-gate --help` cost, against
// `node -e 0` on the same machine in the same run. The CLI loads each command's code only when that
// command runs (src/cli/dispatch.ts), so these two should cost about what Node's own start-up does.
//
//   node bench/b10-cli-start.mjs
//
// Each round runs `node -e 0` then `node dist/cli.js FLAG` (a pair, back to back, so both see the same
// load), each under /usr/bin/time (`%U %S`: the child's user + system CPU seconds, from the kernel's rusage).
// The figure is the median CPU of the CLI over 7 pairs; the ratio the median of the 7 per-pair ratios.
// Prints numbers; asserts nothing.
import { existsSync } from "node:fs";
import { DIST_CLI } from "./lib/cli.mjs";
import { emitRow, fixed, median, notMeasured, run } from "./lib/row.mjs";

const PAIRS = 7;
const TIME = "/usr/bin/time";
const GOAL = "≤ 2×";
const cases = [
  { id: "B10", flag: "--version" },
  { id: "B10b", flag: "--help" },
];

/** CPU milliseconds (user + system) of one `node ARGS` run, read from /usr/bin/time's last stderr line. */
async function cpuMs(args) {
  const r = await run(TIME, ["-f", "EG-CPU %U %S", process.execPath, ...args]);
  if (r.code !== 0) throw new Error(`node ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  const m = /EG-CPU ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (m === null) throw new Error(`no CPU line from ${TIME}: ${r.stderr}`);
  return (Number(m[1]) + Number(m[2])) * 1000;
}

for (const { id, flag } of cases) {
  const measure = `CPU of \`evidence-gate ${flag}\` (node dist/cli.js), median of ${PAIRS} pairs`;
  if (!existsSync(TIME)) {
    notMeasured(id, measure, GOAL, `${TIME} is not installed (Debian package time)`);
    continue;
  }
  const cli = [];
  const bare = [];
  for (let i = 0; i < PAIRS; i++) {
    bare.push(await cpuMs(["-e", "0"]));
    cli.push(await cpuMs([DIST_CLI, flag]));
  }
  // /usr/bin/time reports 10 ms steps: a pair whose `node -e 0` reads 0 would divide by zero.
  const ratios = cli.map((c, i) => c / Math.max(bare[i], 10));
  const ratio = median(ratios);
  console.log(
    `${id}: evidence-gate ${flag} ${cli.map((m) => fixed(m)).join(", ")} ms CPU; node -e 0 ${bare.map((m) => fixed(m)).join(", ")} ms CPU`,
  );
  emitRow({
    id,
    measure,
    figure: `${fixed(median(cli))} ms CPU`,
    reference: `node -e 0 ${fixed(median(bare))} ms CPU`,
    goal: GOAL,
    ratio,
    atGoal: ratio <= 2,
  });
}
