// B9 (issue 23's acceptance, at bench size): the bot under chaos — bot replicas (child processes running
// `evidence-gate bot`) behind one round-robin address, every delivery sent twice, one pull request in three
// with its deliveries reordered and delayed, one replica `kill -9`ed mid-delivery, 5xx and `Retry-After`
// injected by the OpenAPI-checked GitHub double, a writer's Re-run on one pull request in six
// (test/support/bot-chaos.ts; test/e2e/bot-chaos.test.ts asserts the same scenario at test size). The replicas
// run with PRODUCTION waits (writes one second apart per installation, Retry-After in full, 1/4/9 s 5xx
// backoff) and their sweeps every 30 s. Prints the figures (docs/bot.md "Under chaos") and one row; fails
// on nothing timed (CONVENTIONS: benches never fail on timing) — its row is "at goal" only when the outcome
// is right: one completed check run per head and attempt with its ledger's conclusion, nothing open, no
// extra run, every delivery answered within 10 s, no contract violation.
//
//   node bench/b9-bot-chaos.mjs [PULL_REQUESTS=60×BENCH_SCALE] [REPLICAS=3]
//   CHAOS_SEED=n (replay one run)   CHAOS_BACKOFF_SECOND_MS=100 (scaled waits, as the test)   CHAOS_SETTLE_S=600
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { ROOT } from "./lib/cli.mjs";
import { loadRig } from "./lib/rig.mjs";
import { benchScale, emitRow } from "./lib/row.mjs";

const pulls = Number(process.argv[2] ?? Math.max(12, Math.round(60 * benchScale())));
const replicas = Number(process.argv[3] ?? 3);
const backoff = Number(process.env.CHAOS_BACKOFF_SECOND_MS ?? 1000);
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);

mkdirSync(join(ROOT, ".bench-cache"), { recursive: true });
const work = mkdtempSync(join(ROOT, ".bench-cache", "bot-chaos-"));
const rig = await loadRig("bot-chaos-rig.ts");
try {
  const entry = join(work, "replica.mjs");
  await build({
    entryPoints: [join(ROOT, "bench", "bot-replica.ts")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile: entry,
    logLevel: "warning",
    banner: {
      js: "import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);",
    },
  });
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  console.log(`machine: ${cpus().length} cores, load average ${load()}`);
  const scaled = backoff / 1000;
  const span = (s) => `${Math.max(1, Math.round(s * scaled))}s`;
  const r = await rig.runChaos({
    replicaEntry: entry,
    proxyEntry: join(ROOT, "test", "support", "round-robin-proxy.mjs"),
    replicas,
    pullRequests: pulls,
    backoffSecondMs: backoff,
    paceMs: 200,
    reorderDelayMs: 5_000,
    duplicateDelayMs: 2_000,
    reconcileEvery: span(30),
    reconcileAfter: span(30),
    redeliverEvery: span(30),
    settleTimeoutMs: Number(process.env.CHAOS_SETTLE_S ?? 600) * 1000,
    seed,
    progress: (line) => console.log(line),
  });
  const wrong = r.expected.filter(
    (v) =>
      v.checkRuns.length !== 1 ||
      v.checkRuns[0].status !== "completed" ||
      v.checkRuns[0].conclusion !== v.conclusion,
  );
  const late = r.answers.filter((a) => a.ms >= 10_000);
  const extraRuns = r.reruns.length - r.expectedReruns.length + r.dispatches;
  const byStatus = {};
  for (const d of r.deliveries) byStatus[d.statusCode] = (byStatus[d.statusCode] ?? 0) + 1;
  console.log(`load average after: ${load()}`);
  console.log(
    `bot chaos (seed ${r.seed}, waits ${backoff === 1000 ? "production" : `× ${scaled}`}): ${r.replicas} replicas, ${r.pullRequests} pull requests, ${r.expected.length} (head, attempt) verdicts, ${r.events} events sent twice, ${r.deliveries.length} delivery attempts (answers by status ${JSON.stringify(byStatus)})`,
  );
  console.log(
    `answer at the load balancer (${r.answers.length} answers): p50 ${r.answerMs.p50.toFixed(0)} ms, p99 ${r.answerMs.p99.toFixed(0)} ms, max ${r.answerMs.max.toFixed(0)} ms; ${late.length} at or past 10 s (at GitHub's sender, in the bench's busy process: p50 ${r.senderMs.p50.toFixed(0)} ms, p99 ${r.senderMs.p99.toFixed(0)} ms)`,
  );
  console.log(
    `kill -9: replica ${r.killed?.replica ?? "—"} at ${((r.killed?.atMs ?? 0) / 1000).toFixed(1)} s with ${r.killed?.unfinished ?? 0} answered deliveries unfinished; ${r.faultsInjected} faults injected; the App redelivered ${r.selfRedelivered} failed deliveries itself, its reconcile sweeps settled ${r.reconciled} check runs`,
  );
  console.log(
    `settled: ${r.settled ? "yes" : "NO"} after ${(r.settledMs / 1000).toFixed(1)} s (wall ${(r.wallMs / 1000).toFixed(1)} s); verdicts wrong or missing ${wrong.length}, unexpected check runs ${r.unexpected.length}, open ${r.open.length}, renamed race duplicates ${r.renamedDuplicates}; re-runs ${r.reruns.length} for ${r.expectedReruns.length} Re-runs, dispatches ${r.dispatches}; never answered 2xx ${r.neverAnswered2xx.length}; contract violations ${r.violations.length}`,
  );
  console.log(`outcomes logged: ${JSON.stringify(r.outcomes)}`);
  for (const v of wrong.slice(0, 10)) console.log(`  wrong: ${JSON.stringify(v)}`);
  for (const v of r.violations.slice(0, 5)) console.log(`  violation: ${v}`);
  emitRow({
    id: "B9",
    measure: `bot under chaos, ${r.replicas} replicas, ${r.pullRequests} pull requests, ${r.deliveries.length} deliveries`,
    figure: `answer p50 ${r.answerMs.p50.toFixed(0)} ms, p99 ${r.answerMs.p99.toFixed(0)} ms; settled in ${(r.settledMs / 1000).toFixed(0)} s`,
    reference: `GitHub's cut-off 10000 ms; ${late.length} answers at or past it`,
    goal: "every verdict right, nothing open, no extra run, every answer < 10 s, no violation",
    ratio: r.answerMs.p99 / 10_000,
    atGoal:
      r.settled &&
      wrong.length === 0 &&
      r.unexpected.length === 0 &&
      r.open.length === 0 &&
      extraRuns === 0 &&
      late.length === 0 &&
      r.neverAnswered2xx.length === 0 &&
      r.violations.length === 0,
  });
} finally {
  rig.dispose();
  rmSync(work, { recursive: true, force: true });
}
