// B5 (issue 16): GitHub API writes per action run with 100 annotations and 20 nodes, against the bound
// 3 + ⌈annotations / 50⌉ + throttled progress updates.
//
//   node bench/b5-api-writes.mjs
//
// The bundled action (`node dist/index.js`, `mode: run`, as the runner starts it) runs a 20-sink graph read
// from the base ref, against the local GitHub server (test/support/github-server: every request validated
// against GitHub's OpenAPI description, every call recorded). Each node is the bench's fake `claude`
// (bench/lib/fake-cli.mjs) in the tool cache; `on_fail: continue`, so every sink runs. Ten sinks' verify
// commands fail, each printing ten distinct `README.md:N:1` locations (check-annotations.ts marks up to
// 10 per failed row): 100 annotations. The bound: one request per 50 annotations (⌈a/50⌉; the first batch
// rides on the completion, so it counts the completion), the create, the plan update and the pull request's comment (3), and the
// throttled progress updates sent, at most one per started 10 s window of the run's wall time
// (check-run-reporter.ts). Prints numbers; asserts nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFakeClaude } from "./lib/fake-cli.mjs";
import { loadRig } from "./lib/rig.mjs";
import { emitRow, fixed } from "./lib/row.mjs";

const SINKS = 20;
const FAILING = 10;
const PER_FAIL = 10;
const GRAPH_PATH = ".github/evidence-gate/b5.yml";
/** `pull_request.base.sha` of the harness's event fixture: where `mode: run` reads the graph. */
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
/** Writes to GitHub's API: everything but reads. */
const WRITE = new Set(["POST", "PATCH", "PUT", "DELETE"]);

const rig = await loadRig();
const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b5-"));
let github = null;
let repo = null;
try {
  const lines = Array.from({ length: FAILING * PER_FAIL + 1 }, (_, i) => `line ${i + 1}`).join("\n");
  repo = await rig.makeTempRepo({ files: { "README.md": `${lines}\n` }, commit: true });
  const sinks = Array.from({ length: SINKS }, (_, i) => {
    const fails = i < FAILING;
    const where = Array.from(
      { length: PER_FAIL },
      (_, k) => `README.md:${i * PER_FAIL + k + 1}:1: bench failure`,
    );
    // Each command distinct, so no two sinks share a verify (B3's dedup would merge them).
    const command = fails ? `printf '%s\\n' ${where.map((w) => `'${w}'`).join(" ")}; exit 1` : `echo ok ${i}`;
    return { id: `sink-${i + 1}`, prompt: "bench", success_check: { verify: { command } } };
  });
  const graph = { name: "b5", concurrency: 8, on_fail: "continue", nodes: sinks };
  github = await rig.startGitHubServer();
  github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: JSON.stringify(graph, null, 2) });
  const claude = writeFakeClaude(scratch, { sleepSeconds: 0.05 });

  const started = performance.now();
  const result = await rig.runActionStep({
    workspace: repo.dir,
    inputs: { graph: GRAPH_PATH },
    github,
    toolCacheClis: { claude },
    timeoutMs: 300_000,
  });
  const wallMs = performance.now() - started;
  const writes = result.calls.filter((c) => WRITE.has(c.method));
  const checkWrites = writes.filter((c) => c.route?.startsWith("/repos/{owner}/{repo}/check-runs"));
  const annotations = checkWrites
    .map((c) => c.body?.output?.annotations?.length ?? 0)
    .reduce((a, b) => a + b, 0);
  for (const c of writes)
    console.log(
      `B5:   ${c.method} ${c.route} ${c.body?.conclusion ?? ""} ${c.body?.output?.annotations?.length ?? 0} annotations ${JSON.stringify(c.body?.output?.title ?? "")}`,
    );
  // Progress updates: in-progress PATCHes (no conclusion) without annotations, after the plan's (forced).
  const inProgress = checkWrites.filter(
    (c) =>
      c.method === "PATCH" && c.body?.conclusion === undefined && !(c.body?.output?.annotations?.length > 0),
  );
  const progress = Math.max(0, inProgress.length - 1);
  const allowance = Math.ceil(wallMs / 10_000);
  const bound = 3 + Math.ceil(annotations / 50) + progress;
  const byRoute = new Map();
  for (const c of writes)
    byRoute.set(`${c.method} ${c.route}`, (byRoute.get(`${c.method} ${c.route}`) ?? 0) + 1);
  console.log(
    `B5: action exit ${result.exitCode}, outcome ${result.outputs.outcome}, ${fixed(wallMs)} ms; ${writes.length} writes (${[...byRoute].map(([k, n]) => `${n}× ${k}`).join(", ")}), ${annotations} annotations, ${progress} throttled progress updates (at most ${allowance} in ${fixed(wallMs / 1000)} s), ${github.violations.length} contract violations`,
  );
  if (annotations !== FAILING * PER_FAIL)
    console.log(
      `B5: expected ${FAILING * PER_FAIL} annotations, the check run got ${annotations}\n${result.stdout.slice(-3000)}`,
    );
  emitRow({
    id: "B5",
    measure: `GitHub API writes per run, ${annotations} annotations, ${SINKS} nodes`,
    figure: `${writes.length} writes`,
    reference: `3 + ⌈${annotations}/50⌉ + ${progress} progress (≤ ${allowance} in ${fixed(wallMs / 1000)} s) = ${bound}`,
    goal: "at the bound",
    ratio: writes.length / bound,
    atGoal: writes.length <= bound && progress <= allowance && github.violations.length === 0,
  });
} finally {
  await github?.close();
  await repo?.cleanup();
  rig.dispose();
  rmSync(scratch, { recursive: true, force: true });
}
