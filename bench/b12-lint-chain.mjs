// B12: `evidence-gate lint` on long dependency chains. `mode: lint` reads the pull request's own graph, so the
// time it takes is the pull request's to choose: it must grow about linearly with the graph, not with its
// square (a 12,000-node chain took 2 min 39 s before the placeholder and look-alike checks stopped walking
// the whole graph once per node). Two graphs of the same length: a plain chain (`n<i>` depends on `n<i-1>`)
// and a chain whose every prompt names its parent's output (`{{ artifacts.n<i-1> }}`: each such node asks
// whether the named node is an ancestor). The reference is the plain chain at a quarter of the length, so
// the ratio shows the growth (linear: ~4×).
//
//   node bench/b12-lint-chain.mjs        BENCH_SCALE=0.25 node bench/b12-lint-chain.mjs
//
// Each figure is the wall time of one `node dist/cli.js lint FILE` (which exits 0: advisories only).
// Prints numbers; asserts nothing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_CLI } from "./lib/cli.mjs";
import { benchScale, emitRow, fixed, run } from "./lib/row.mjs";

const length = Math.max(400, Math.round(12_000 * benchScale()));

/** A chain of `n` nodes as graph YAML; `named`: every prompt names its parent's output. */
function chain(n, named) {
  let text = 'name: chain\nversion: "1"\nnodes:\n';
  for (let i = 0; i < n; i++) {
    const ref = named && i > 0 ? ` {{ artifacts.n${i - 1} }}` : "";
    text += `  - id: n${i}\n    prompt: "step ${i}${ref}"\n`;
    if (i > 0) text += `    depends_on: [n${i - 1}]\n`;
  }
  return text;
}

/** Wall milliseconds of `evidence-gate lint` on `text`. */
async function lintMs(dir, name, text) {
  const file = join(dir, name);
  writeFileSync(file, text);
  const started = performance.now();
  const r = await run(process.execPath, [DIST_CLI, "lint", file]);
  const ms = performance.now() - started;
  if (r.code !== 0) throw new Error(`lint ${name} exited ${r.code}: ${r.stderr.slice(-400)}`);
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), "eg-b12-"));
try {
  const quarter = await lintMs(dir, "quarter.yml", chain(Math.round(length / 4), false));
  for (const [id, named, what] of [
    ["B12", false, "a plain chain"],
    ["B12b", true, "a chain whose every prompt names its parent's output"],
  ]) {
    const ms = await lintMs(dir, `${id}.yml`, chain(length, named));
    console.log(
      `${id}: lint of ${what}, ${length} nodes: ${fixed(ms)} ms (plain chain of ${Math.round(length / 4)}: ${fixed(quarter)} ms)`,
    );
    emitRow({
      id,
      measure: `\`evidence-gate lint\` wall time, ${what} of ${length} nodes`,
      figure: `${fixed(ms)} ms`,
      reference: `plain chain of ${Math.round(length / 4)} nodes ${fixed(quarter)} ms`,
      goal: "≤ 8× the quarter-length chain (linear: ~4×)",
      ratio: ms / quarter,
      atGoal: ms / quarter <= 8,
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
