// B1 (issue 16): the engine's wall time on a 200-node graph of fixed-duration fake CLI nodes, width 8,
// concurrency 8, against its critical path measured in the same run.
//
//   node bench/b1-critical-path.mjs          (BENCH_SCALE scales the node duration, 1 s at full size)
//
// The graph: 25 layers of 8 nodes; node i of layer k depends on nodes i and i+1 (mod 8) of layer k-1, so
// every layer waits for the one before and the longest chain is 25 nodes. Each node is the bench's fake
// `claude` (bench/lib/fake-cli.mjs: `/bin/sh`, stream-json, a fixed sleep). The reference, the critical
// path, is those 25 fake executions run back to back by a bare Node loop (spawn, wait for exit, next):
// the physical limit of the graph on this machine. The figure is the engine's time from `run_started` to
// its last node's settlement (events.jsonl); the CLI's whole wall time (start-up and ledger included) is
// printed beside it. Prints numbers; asserts nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGraph } from "./lib/cli.mjs";
import { benchRunFolder } from "./lib/fake-cli.mjs";
import { benchScale, emitRow, fixed, run } from "./lib/row.mjs";

const LAYERS = 25;
const WIDTH = 8;
const seconds = Math.max(0.1, Math.round(1 * benchScale() * 100) / 100);

const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b1-"));
try {
  const { repo, home, claude } = benchRunFolder(scratch, { sleepSeconds: seconds });

  const nodes = [];
  for (let layer = 0; layer < LAYERS; layer++)
    for (let i = 0; i < WIDTH; i++) {
      const parents = layer === 0 ? [] : [i, (i + 1) % WIDTH].map((j) => `n${layer - 1}-${j}`);
      nodes.push({
        id: `n${layer}-${i}`,
        prompt: "bench",
        ...(parents.length ? { depends_on: parents } : {}),
      });
    }
  const graph = { name: "b1", concurrency: WIDTH, nodes };

  // The critical path: the longest chain's executions back to back, nothing between them.
  let critical = 0;
  for (let layer = 0; layer < LAYERS; layer++) {
    const r = await run(claude, ["--session-id", `chain-${layer}`], { env: { PATH: process.env.PATH } });
    if (r.code !== 0) throw new Error(`the fake CLI exited ${r.code}: ${r.stderr}`);
    critical += r.ms;
  }

  const result = await runGraph({ graph, repo, scratch, claudePath: claude, home });
  const at = (e) => Date.parse(e.at);
  const started = result.events.find((e) => e.type === "run_started");
  const settled = result.events.filter((e) => /^node_(passed|failed)$/.test(e.type));
  if (settled.length !== LAYERS * WIDTH)
    throw new Error(`expected ${LAYERS * WIDTH} settled nodes, events.jsonl has ${settled.length}`);
  const engine = Math.max(...settled.map(at)) - at(started);
  const ratio = engine / critical;
  console.log(
    `B1: ${LAYERS * WIDTH} nodes of ${seconds} s, width ${WIDTH}: engine ${fixed(engine)} ms (CLI wall ${fixed(result.ms)} ms), critical path ${fixed(critical)} ms`,
  );
  emitRow({
    id: "B1",
    measure: `engine wall, ${LAYERS * WIDTH} nodes × ${seconds} s, width/concurrency ${WIDTH}`,
    figure: `${fixed(engine)} ms`,
    reference: `critical path ${fixed(critical)} ms`,
    goal: "≤ 1.02×",
    ratio,
    atGoal: ratio <= 1.02,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
