// Load on the bot (docs/bot.md, "Stateless"): signed webhook deliveries at a fixed rate on loopback against
// bot replicas (each a child process running `evidence-gate bot`) that share one local GitHub server, as
// replicas behind a load balancer share GitHub. Prints numbers; asserts nothing (CONVENTIONS: benches never
// fail on timing).
//
//   node bench/bot-load.mjs [PULL_REQUESTS=40] [RATE=5 deliveries/s]
//
// Per pull request, four deliveries — pull_request.opened and workflow_run.requested sent at the same
// moment to different replicas (the race two replicas must settle), then workflow_run.in_progress, then
// workflow_run.completed (its ledger artifact uploaded beforehand) — plus a replay of one completed
// delivery in five (same GUID, to the other replica). Deliveries alternate between replicas. The replicas
// run with production waits (writes one second apart per installation); the bot answers 202 and works
// after, so the bench waits until every check run completed before it counts. Measured
// once with one replica (the baseline) and once with two, each against a fresh GitHub server:
// throughput, p50/p99 latency, deliveries answered non-2xx (then redelivered with
// `evidence-gate bot --redeliver-failed`), and per commit the check runs named `evidence-gate` (must be 1),
// completed `success`, and duplicates a race created and renamed.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { emitRow } from "./lib/row.mjs";

/** `entry` bundled as an ES module with a `require` for the CommonJS dependencies that call it (as scripts/build.mjs does). */
const bundle = (entry, outfile) =>
  build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: {
      js: "import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);",
    },
  });

const pulls = Number(process.argv[2] ?? 40);
const rate = Number(process.argv[3] ?? 5);

// Bundled two folders under the repository (`.bench-cache/<tmp>`, git-ignored) so the bundles resolve
// node_modules (GitHub's OpenAPI description, the webhook examples) from where they are.
mkdirSync(".bench-cache", { recursive: true });
const work = mkdtempSync(join(".bench-cache", "bot-load-"));
const children = [];
try {
  await bundle("bench/bot-load-rig.ts", join(work, "rig.mjs"));
  await bundle("bench/bot-replica.ts", join(work, "replica.mjs"));
  const rig = await import(pathToFileURL(join(work, "rig.mjs")).href);
  const replicaEntry = join(work, "replica.mjs");

  const cleanEnv = (env) => Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));

  /** Starts one replica; resolves with its URL once it logged its start line. */
  function startReplica(github) {
    const child = spawn(process.execPath, [replicaEntry], {
      // Production waits: writes one second apart per installation, GitHub's Retry-After, 1/4/9 s 5xx backoff.
      env: cleanEnv({
        PATH: process.env.PATH,
        ...rig.botEnv(github),
        EVIDENCE_GATE_BACKOFF_SECOND_MS: undefined,
      }),
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const lines = [];
    return new Promise((resolve, reject) => {
      let rest = "";
      let started = false;
      child.stdout.setEncoding("utf8").on("data", (chunk) => {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const line of parts) {
          if (line === "") continue;
          const entry = JSON.parse(line);
          lines.push(entry);
          if (!started && entry.kind === "start") {
            started = true;
            resolve({ child, url: entry.url, lines });
          }
        }
      });
      child.once("exit", (code) => reject(new Error(`replica exited ${code} before it started`)));
    });
  }

  function stop(child) {
    return new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      process.kill(child.pid, "SIGTERM");
    });
  }

  /** Runs `command` (`--redeliver-failed …`) once as the bot and waits for it to exit. */
  function botCommand(github, args) {
    return new Promise((resolve) => {
      // Its stderr lists each event it left for the next sweep: counted here, not printed.
      const child = spawn(process.execPath, [replicaEntry, ...args], {
        env: cleanEnv({ PATH: process.env.PATH, ...rig.botEnv(github) }),
        stdio: ["ignore", "ignore", "ignore"],
      });
      child.once("exit", (code) => resolve(code));
    });
  }

  const percentile = (sorted, p) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const sha = (k) => (k + 1).toString(16).padStart(40, "a");

  async function measure(replicaCount) {
    const github = await rig.startAppGitHubServer();
    const replicas = await Promise.all(Array.from({ length: replicaCount }, () => startReplica(github)));
    github.state.webhooks.target = { url: replicas[0].url, secret: rig.WEBHOOK_SECRET };
    for (let k = 0; k < pulls; k++) {
      rig.uploadLedger(github, {
        ledger: { ...rig.SUCCESS_LEDGER, headSha: sha(k) },
        runId: 9_000_000 + k,
        headSha: sha(k),
        pullRequest: k + 1,
      });
    }
    const latencies = [];
    const records = [];
    let sent = 0;
    const url = (i) => replicas[i % replicas.length].url;
    const send = async (event, payload, i, extra = {}) => {
      sent += 1;
      const started = performance.now();
      const record = await github.state.webhooks.deliver({ event, payload, url: url(i), ...extra });
      latencies.push(performance.now() - started);
      records.push(record);
      return record;
    };
    const interval = 1000 / rate;
    const t0 = performance.now();
    let slot = 0;
    const pace = async () => {
      const due = t0 + slot * interval;
      slot += 1;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    };
    const inFlight = [];
    const wave = async (make) => {
      for (let k = 0; k < pulls; k++) {
        await pace();
        inFlight.push(make(k));
      }
    };
    const run = (k) => ({ runId: 9_000_000 + k, headSha: sha(k) });
    // Wave 1: the race — opened and requested for one commit at the same moment, to different replicas.
    await wave(async (k) => {
      slot += 1;
      await Promise.all([
        send("pull_request", rig.pullRequestPayload({ headSha: sha(k), number: 1000 + k }), k),
        send("workflow_run", rig.workflowRunPayload({ action: "requested", ...run(k) }), k + 1),
      ]);
    });
    await Promise.all(inFlight.splice(0));
    await wave((k) => send("workflow_run", rig.workflowRunPayload({ action: "in_progress", ...run(k) }), k));
    await Promise.all(inFlight.splice(0));
    const completed = [];
    await wave(async (k) => {
      completed[k] = await send(
        "workflow_run",
        rig.workflowRunPayload({ action: "completed", ...run(k) }),
        k,
      );
    });
    await Promise.all(inFlight.splice(0));
    // Replays: one completed delivery in five again, same GUID, to the other replica.
    for (let k = 0; k < pulls; k += 5) {
      await pace();
      inFlight.push(
        send("workflow_run", rig.workflowRunPayload({ action: "completed", ...run(k) }), k + 1, {
          guid: completed[k].guid,
        }),
      );
    }
    await Promise.all(inFlight.splice(0));
    const answeredMs = performance.now() - t0;
    // The work runs after the 202: wait until every commit's check run completed (or 10 minutes).
    const allDone = () =>
      Array.from({ length: pulls }, (_, k) => k).every((k) =>
        github.state.checkRuns.some(
          (r) => r.headSha === sha(k) && r.name === "evidence-gate" && r.status === "completed",
        ),
      );
    for (let waited = 0; waited < Number(process.env.BOT_LOAD_WAIT_S ?? 600) && !allDone(); waited += 1)
      await new Promise((r) => setTimeout(r, 1000));
    if (!allDone()) {
      const open = github.state.checkRuns.filter((r) => r.status !== "completed").length;
      console.log(`not done after 10 minutes: ${open} check runs still open; the replicas' last lines:`);
      for (const r of replicas)
        for (const l of r.lines.slice(-15)) console.log(JSON.stringify(l).slice(0, 300));
    }
    const wallMs = performance.now() - t0;
    const failed = records.filter((r) => r.statusCode < 200 || r.statusCode >= 300);
    let redeliveredOk = 0;
    // Sweeps as REDELIVER_EVERY would make them (each redelivers at most 100), until no event is left failed.
    const okNow = () =>
      new Set(
        github.state.webhooks.records
          .filter((r) => r.statusCode >= 200 && r.statusCode < 300)
          .map((r) => r.guid),
      );
    let sweeps = 0;
    while (sweeps < 10 && failed.some((r) => !okNow().has(r.guid))) {
      sweeps += 1;
      await botCommand(github, ["--redeliver-failed", "--since", "1h"]);
      await github.state.webhooks.settled();
    }
    redeliveredOk = failed.filter((r) => okNow().has(r.guid)).length;
    const okGuids = new Set(
      github.state.webhooks.records
        .filter((r) => r.statusCode >= 200 && r.statusCode < 300)
        .map((r) => r.guid),
    );
    const lost = new Set(records.map((r) => r.guid).filter((g) => !okGuids.has(g))).size;
    const named = Array.from({ length: pulls }, (_, k) =>
      github.state.checkRuns.filter((r) => r.headSha === sha(k) && r.name === "evidence-gate"),
    );
    const perCommit = named.map((runs) => runs.length);
    const success = named.filter((runs) => runs.length === 1 && runs[0].conclusion === "success").length;
    const duplicates = github.state.checkRuns.filter((r) => r.name === "evidence-gate (duplicate)").length;
    const stale = replicas
      .flatMap((r) => r.lines)
      .filter((l) => l.kind === "delivery" && l.outcome === "stale").length;
    const violations = github.violations.length;
    await Promise.all(replicas.map((r) => stop(r.child)));
    // The time each delivery spent inside a bot (its log line's ms), apart from waiting to be accepted.
    const inside = replicas
      .flatMap((r) => r.lines.filter((l) => l.kind === "delivery").map((l) => l.ms))
      .sort((a, b) => a - b);
    await github.close();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      replicas: replicaCount,
      deliveries: sent,
      answeredS: answeredMs / 1000,
      wallS: wallMs / 1000,
      throughput: sent / (wallMs / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
      botP50: percentile(inside, 50),
      botP99: percentile(inside, 99),
      failed: failed.length,
      redeliveredOk,
      sweeps,
      lost,
      checkRunsPerCommit: `${Math.min(...perCommit)}..${Math.max(...perCommit)}`,
      success,
      duplicates,
      stale,
      violations,
    };
  }

  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  console.log(
    `machine: ${cpus().length} cores, load average ${load()} (other work on the machine slows every number)`,
  );
  console.log(
    `bot load: ${pulls} pull requests, ${pulls * 4 + Math.ceil(pulls / 5)} signed deliveries, offered at ${rate}/s on loopback`,
  );
  const one = await measure(1);
  const two = await measure(2);
  const row = (m) =>
    `${String(m.replicas).padStart(8)}  ${String(m.deliveries).padStart(10)}  ${m.throughput.toFixed(1).padStart(10)}/s  ${m.p50.toFixed(1).padStart(7)} ms  ${m.p99.toFixed(1).padStart(7)} ms  ${m.max.toFixed(1).padStart(7)} ms  ${String(m.failed).padStart(6)}  ${String(m.lost).padStart(4)}  ${m.checkRunsPerCommit.padStart(9)}  ${String(m.success).padStart(7)}  ${String(m.duplicates).padStart(10)}  ${String(m.stale).padStart(5)}  ${String(m.violations).padStart(10)}`;
  console.log(
    "answer latency (p50, p99, max) is send to answer; throughput counts until every check run completed\nreplicas  deliveries    throughput       p50          p99          max  non-2xx  lost  checks/sha  success  duplicates  stale  violations",
  );
  console.log(row(one));
  console.log(row(two));
  console.log(`load average after: ${load()}`);
  for (const m of [one, two]) {
    console.log(
      `${m.replicas} replica(s): all answered in ${m.answeredS.toFixed(1)} s, all work done (every check run completed) in ${m.wallS.toFixed(1)} s; answer to end of work per delivery p50 ${m.botP50.toFixed(1)} ms, p99 ${m.botP99.toFixed(1)} ms` +
        (m.failed > 0
          ? `; ${m.failed} deliveries not answered 2xx within GitHub's 10 s, ${m.redeliveredOk} of them 2xx after ${m.sweeps} redelivery sweep(s)`
          : ""),
    );
  }
  console.log(
    `ratio (2 replicas / 1): throughput ${(two.throughput / one.throughput).toFixed(2)}×, p50 ${(two.p50 / one.p50).toFixed(2)}×, p99 ${(two.p99 / one.p99).toFixed(2)}×`,
  );
  // The `npm run bench` row (bench/b8-bot.mjs runs this script): no loss and one check run per commit.
  const oneCheckRun = [one, two].every((m) => m.checkRunsPerCommit === "1..1");
  emitRow({
    id: "B8",
    measure: `bot, two replicas, ${two.deliveries} signed deliveries at ${rate}/s`,
    figure: `${two.throughput.toFixed(1)}/s, p99 ${two.p99.toFixed(0)} ms, lost ${two.lost}, checks/sha ${two.checkRunsPerCommit}`,
    reference: `one replica ${one.throughput.toFixed(1)}/s, p99 ${one.p99.toFixed(0)} ms`,
    goal: "no loss, no duplicate check run",
    ratio: two.throughput / one.throughput,
    atGoal: one.lost === 0 && two.lost === 0 && oneCheckRun && one.violations === 0 && two.violations === 0,
  });
  console.log(
    "non-2xx deliveries are redelivered with --redeliver-failed before counting; lost = events never answered 2xx; checks/sha = check runs named evidence-gate per commit (min..max); duplicates = race losers renamed and skipped; stale = replays that wrote nothing.",
  );
} finally {
  for (const child of children) if (child.exitCode === null) process.kill(child.pid, "SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
