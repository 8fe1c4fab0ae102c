// B3 (issue 16): how many times the engine runs a verify command across sinks that share one evidence tree
// and command, against the distinct (tree, command) pairs — the least it can run.
//
//   node bench/b3-verify-once.mjs
//
// The graph (built CLI, the bench's fake `claude`): one root node and 12 sinks under it that change no
// file, concurrency 8 so sinks settle at once and their verifies race. Sinks 1–8 share command A, sinks
// 9–12 command B. Each command appends a line to a counter file outside the repository, so executions are counted by the commands themselves.
// The tree is the same for all (nothing edits it), so the distinct pairs are 2. Prints numbers; asserts
// nothing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGraph } from "./lib/cli.mjs";
import { benchRunFolder } from "./lib/fake-cli.mjs";
import { emitRow } from "./lib/row.mjs";

const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b3-"));
try {
  const { repo, home, claude } = benchRunFolder(scratch, { sleepSeconds: 0.05 });
  const counter = join(scratch, "verify-runs.txt");
  const command = (name) => `echo ${name} >> '${counter}'; sleep 0.2`;
  const sinks = Array.from({ length: 12 }, (_, i) => ({
    id: `sink-${i + 1}`,
    prompt: "bench",
    depends_on: ["root"],
    success_check: { verify: { command: command(i < 8 ? "A" : "B") } },
  }));
  const graph = { name: "b3", concurrency: 8, nodes: [{ id: "root", prompt: "bench" }, ...sinks] };

  const result = await runGraph({ graph, repo, scratch, claudePath: claude, home });
  const lines = readFileSync(counter, "utf8").split("\n").filter(Boolean);
  const runs = { A: lines.filter((l) => l === "A").length, B: lines.filter((l) => l === "B").length };
  const distinct = 2;
  console.log(`B3: verify executions A=${runs.A} B=${runs.B} (12 sinks), run exit ${result.code}`);
  const ratio = lines.length / distinct;
  emitRow({
    id: "B3",
    measure: "verify executions, 12 sinks sharing one tree, 2 commands",
    figure: `${lines.length} executions`,
    reference: `${distinct} distinct (tree, command) pairs`,
    goal: "= 1.0",
    ratio,
    atGoal: ratio === 1,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
