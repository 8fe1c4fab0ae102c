/**
 * Issue 23's acceptance: the bot under chaos (`test/support/bot-chaos.ts`) — three real bot replicas (child
 * processes) behind one round-robin address, 54 pull requests, every delivery sent twice, one in three pull
 * requests' deliveries reordered and delayed, one replica `kill -9`ed mid-delivery, 5xx and `Retry-After`
 * injected by the OpenAPI-checked GitHub double, a writer's Re-run on one in six. The replicas run with
 * waits scaled to 1/10 (`EVIDENCE_GATE_BACKOFF_SECOND_MS=100`) and sweeps every 10–15 s (about 5 minutes on
 * 2 cores at load 20+, docs/bot.md "Under chaos"); `bench/b9-bot-chaos.mjs` runs it with production waits and
 * prints the figures.
 *
 * Asserted at the end, from GitHub's state: every pull request has exactly one completed check run per head
 * and attempt, each with its ledger's conclusion; nothing of the App's is left `queued` / `in_progress`; one
 * re-run per Re-run and no workflow dispatch; every delivery answered within GitHub's 10 s (the percentiles
 * are printed, never asserted) as the load balancer in front of the replicas measures it — the double's
 * sender shares this process with the double's OpenAPI checks, so its own clock also counts this process's
 * waits on a busy machine; it is printed beside — and every event answered 2xx in the end; every API call
 * valid against GitHub's OpenAPI description.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChaos } from "../support/bot-chaos.js";

const REPO_ROOT = join(import.meta.dirname, "..", "..");
let work = "";
let entry = "";

beforeAll(async () => {
  // The replica is `evidence-gate bot` from this checkout's sources, bundled as scripts/build.mjs bundles it.
  // `.bench-cache/` is git-ignored: a clean clone (CI) has none yet.
  mkdirSync(join(REPO_ROOT, ".bench-cache"), { recursive: true });
  work = mkdtempSync(join(REPO_ROOT, ".bench-cache", "chaos-"));
  entry = join(work, "replica.mjs");
  await build({
    entryPoints: [join(REPO_ROOT, "bench", "bot-replica.ts")],
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
});
afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

// `CHAOS_SEED=N` replays one run's delays and order (the seed is printed). Seed 322255 once failed here: the
// GitHub double showed a re-run run as attempt 2 already `completed` with attempt 1's conclusion, and a
// reconcile sweep settled attempt 2's fresh check run from it (test/bot/chaos-findings.test.ts; docs/bot.md).
describe("the bot under chaos (issue 23 acceptance)", () => {
  it("three replicas, 54 pull requests, every delivery twice, reordered and delayed deliveries, a replica kill -9ed mid-delivery, 5xx and Retry-After: one completed check run per head and attempt with its ledger's conclusion, nothing open, no extra run, every answer inside 10 s, every call valid", {
    timeout: 600_000,
  }, async () => {
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
    const r = await runChaos({
      replicaEntry: entry,
      replicas: 3,
      pullRequests: 54,
      backoffSecondMs: 100,
      paceMs: 300,
      reorderDelayMs: 3_000,
      duplicateDelayMs: 1_000,
      reconcileEvery: "15s",
      reconcileAfter: "5s",
      redeliverEvery: "10s",
      settleTimeoutMs: 60_000,
      seed,
      progress: (line) => console.log(`chaos: ${line}`),
    });
    console.log(
      `chaos (seed ${r.seed}): ${r.replicas} replicas, ${r.pullRequests} pull requests, ${r.events} events, ${r.deliveries.length} deliveries; answer (at the load balancer) p50 ${r.answerMs.p50.toFixed(0)} ms, p99 ${r.answerMs.p99.toFixed(0)} ms, max ${r.answerMs.max.toFixed(0)} ms (at GitHub's sender in this busy process: p50 ${r.senderMs.p50.toFixed(0)} ms, p99 ${r.senderMs.p99.toFixed(0)} ms); killed ${JSON.stringify(r.killed)}; ${r.faultsInjected} faults; settled ${r.settled} after ${(r.settledMs / 1000).toFixed(1)} s; wall ${(r.wallMs / 1000).toFixed(1)} s; reconciled ${r.reconciled}, self-redelivered ${r.selfRedelivered}, renamed duplicates ${r.renamedDuplicates}; outcomes ${JSON.stringify(r.outcomes)}`,
    );
    if (process.env.CHAOS_DUMP) writeFileSync(process.env.CHAOS_DUMP, JSON.stringify(r));
    // The scenario did what it says: a replica died with answered work unfinished.
    expect(r.killed?.unfinished ?? 0).toBeGreaterThan(0);
    expect(r.expected.length).toBe(54 + r.expectedReruns.length);
    expect(r.expectedReruns.length).toBe(9);
    // One completed check run per head and attempt, with its ledger's conclusion.
    const wrong = r.expected.filter(
      (v) =>
        v.checkRuns.length !== 1 ||
        v.checkRuns[0]!.status !== "completed" ||
        v.checkRuns[0]!.conclusion !== v.conclusion,
    );
    expect(wrong).toEqual([]);
    expect(r.unexpected).toEqual([]);
    expect(r.open).toEqual([]);
    // No extra run: one re-run per Re-run, no dispatch.
    expect([...r.reruns].sort()).toEqual([...r.expectedReruns].sort());
    expect(r.dispatches).toBe(0);
    // Every delivery answered inside GitHub's 10 s, as the load balancer in front of the replicas measures it
    // (a 502 when a replica died mid-request is an answer too; GitHub redelivers it).
    expect(r.answers.length).toBeGreaterThanOrEqual(r.events * 2);
    expect(r.answers.filter((a) => a.ms >= 10_000)).toEqual([]);
    expect(r.neverAnswered2xx).toEqual([]);
    expect(r.violations).toEqual([]);
  });
});
