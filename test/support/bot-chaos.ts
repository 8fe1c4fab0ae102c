/**
 * The bot under chaos (issue 23's acceptance): real bot replicas — child processes running `evidence-gate
 * bot` — behind one address (a round-robin loopback proxy, as a load balancer with no affinity), the
 * OpenAPI-checked GitHub double sending every delivery signed as GitHub does, and everything GitHub really
 * does across deliveries at once:
 *
 * - every delivery sent twice with the same `X-GitHub-Delivery` (a second copy after a random pause, some at
 *   the same instant, so the copies often reach different replicas);
 * - a share of the pull requests (one in three) has its four deliveries reordered and delayed (the run has
 *   already completed at GitHub when the first of them arrives: a late `requested` after `completed`);
 * - one replica `kill -9`ed while it has answered deliveries whose work is unfinished (mid-delivery);
 * - 5xx and `Retry-After` answers injected by the double (`failNext`) throughout: a 502 Octokit's retries
 *   absorb, a 502 that outlasts them (the App's own redelivery), a secondary rate limit with `Retry-After`, a
 *   503 with `Retry-After`, a 500 after the check run was created (a gateway that timed out after GitHub did
 *   the write);
 * - a writer's Re-run (`check_run.rerequested`, duplicated too) on a share of the pull requests (one in six):
 *   GitHub re-runs the workflow run, and attempt 2 runs with a ledger of its own.
 *
 * GitHub's side is simulated as it behaves: the workflow run's state (`GET …/actions/runs/{id}`) is what the
 * delivery last sent says (after a re-run: the new attempt, `queued`, until its first delivery), the ledger artifact is uploaded before `completed`, and deliveries that failed
 * (a `502` from the proxy when the replica died mid-request) are redelivered only when the App asks
 * (`REDELIVER_EVERY`) — the App's own sweeps (`RECONCILE_EVERY`) repair the work the killed replica lost.
 *
 * No test runner inside: `test/e2e/bot-chaos.test.ts` asserts on {@link ChaosResult}; `bench/b9-bot-chaos.mjs`
 * prints it at a larger scale with production waits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseCheckKey } from "../../src/bot/check-key.js";
import { SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, NEUTRAL_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  BASE_SHA,
  botEnv,
  checkRunPayload,
  pullRequestPayload,
  secondaryRateLimit,
  startAppGitHubServer,
  uploadLedger,
  WEBHOOK_SECRET,
  workflowRunPayload,
} from "./bot-fixtures.js";
import type { DeliveryRecord, FaultSpec, GitHubServer } from "./github-server/index.js";

/** What the scenario is made of. */
export interface ChaosOptions {
  /** `node <replicaEntry>` starts one replica (a bundle of `bench/bot-replica.ts`). */
  readonly replicaEntry: string;
  /** The load balancer's script; default `round-robin-proxy.mjs` beside this module (a bundle passes its path). */
  readonly proxyEntry?: string;
  /** Bot replicas behind the proxy (2 or 3). */
  readonly replicas: number;
  readonly pullRequests: number;
  /**
   * `EVIDENCE_GATE_BACKOFF_SECOND_MS` for the replicas: 1000 is production (writes one second apart per
   * installation, `Retry-After` waited in full); below 1000 the waits shrink by that factor.
   */
  readonly backoffSecondMs: number;
  /** A new pull request's deliveries start every this many ms. */
  readonly paceMs: number;
  /** Longest delay of a reordered delivery, ms. */
  readonly reorderDelayMs: number;
  /** Longest pause before a delivery's second copy, ms. */
  readonly duplicateDelayMs: number;
  /** `RECONCILE_EVERY`, `RECONCILE_AFTER`, `REDELIVER_EVERY` for the replicas (e.g. `2s`). */
  readonly reconcileEvery: string;
  readonly reconcileAfter: string;
  readonly redeliverEvery: string;
  /** Once every event was sent, give up waiting for every check run to settle after this many ms. */
  readonly settleTimeoutMs: number;
  /** The pseudo-random sequence (delays, order); printed, so a failing run can be replayed. */
  readonly seed: number;
  /** Progress lines (default: none). */
  readonly progress?: (line: string) => void;
}

/** One (head, attempt) the scenario expects exactly one completed check run for. */
export interface ExpectedVerdict {
  readonly pullRequest: number;
  readonly headSha: string;
  readonly runId: number;
  readonly attempt: number;
  /** The ledger's own conclusion (`ledger.conclusion.conclusion`). */
  readonly conclusion: string;
}

/** What the App left at GitHub for one (head, attempt), and what was expected. */
export interface VerdictFound extends ExpectedVerdict {
  /** The App's check runs named CHECK_NAME on the head recording this run and attempt. */
  readonly checkRuns: readonly { id: number; status: string; conclusion: string | null }[];
}

export type { ProxyAnswer };

export interface ChaosResult {
  readonly seed: number;
  readonly replicas: number;
  readonly pullRequests: number;
  readonly expected: readonly VerdictFound[];
  /** Check runs named CHECK_NAME that record no expected (head, attempt): must be none. */
  readonly unexpected: readonly { id: number; headSha: string; externalId: string | null; status: string }[];
  /** Every check run of the App not `completed` (renamed duplicates included). */
  readonly open: readonly { id: number; name: string; headSha: string; status: string }[];
  /** Race losers renamed `<name> (duplicate)` and completed `skipped` (GitHub has no delete). */
  readonly renamedDuplicates: number;
  /** Re-runs GitHub was asked for, per workflow run id, and which were expected (one each). */
  readonly reruns: readonly number[];
  readonly expectedReruns: readonly number[];
  readonly dispatches: number;
  /** Every delivery attempt GitHub made (copies and redeliveries included). */
  readonly deliveries: readonly DeliveryRecord[];
  /** Events (GUIDs) sent, and those never answered 2xx in the end. */
  readonly events: number;
  readonly neverAnswered2xx: readonly string[];
  /**
   * Every answer the replicas gave through the load balancer (the proxy, a process of its own): its time, from
   * the request received to the answer sent, is the App's answer time GitHub's 10 s applies to.
   */
  readonly answers: readonly ProxyAnswer[];
  readonly answerMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /**
   * The same seen from the GitHub double's sender (`DeliveryRecord.duration`): it shares the test process with
   * the double's OpenAPI checks, so on a busy machine it also counts that process's own waits.
   */
  readonly senderMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** The replica killed, and how many deliveries it had answered but not finished at that moment. */
  readonly killed: { readonly replica: number; readonly unfinished: number; readonly atMs: number } | null;
  readonly faultsInjected: number;
  readonly violations: readonly string[];
  /** Outcomes the replicas logged (delivery lines), counted. */
  readonly outcomes: Readonly<Record<string, number>>;
  readonly reconciled: number;
  readonly selfRedelivered: number;
  /** From the first delivery until every check run settled (or the timeout), ms. */
  readonly settledMs: number;
  readonly settled: boolean;
  readonly wallMs: number;
  /** Each replica's log lines (JSON), for a failing run's diagnosis. */
  readonly logs: readonly (readonly Record<string, unknown>[])[];
  /** Every API call the double answered (method, path, status, injected), in order. */
  readonly calls: readonly {
    method: string;
    path: string;
    status: number;
    injected: boolean;
    body: unknown;
  }[];
}

/** mulberry32: a small seeded generator, so one seed replays one run's delays and order. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `p`-th percentile (nearest rank) of `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Replica {
  readonly child: ChildProcess;
  readonly url: string;
  readonly lines: Record<string, unknown>[];
}

function startReplica(entry: string, env: Record<string, string | undefined>): Promise<Replica> {
  const child = spawn(process.execPath, [entry], {
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  return new Promise((resolve, reject) => {
    let rest = "";
    let started = false;
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        if (line === "") continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (!started && entry.kind === "start") {
          started = true;
          resolve({ child, url: String(entry.url), lines });
        }
      }
    });
    child.once("exit", (code) => {
      if (!started) reject(new Error(`bot replica exited ${code} before it started: ${stderr}`));
    });
  });
}

/** One answer the proxy (`round-robin-proxy.mjs`, a process of its own) sent: which replica, status, ms. */
interface ProxyAnswer {
  readonly guid: string;
  readonly replica: number;
  readonly status: number;
  /** From the request received to the answer sent, as the load balancer measures it. */
  readonly ms: number;
}

/** Starts `round-robin-proxy.mjs` in front of `upstreams`; its answers are collected in `answered`. */
function startProxy(upstreams: readonly Replica[], script: string) {
  const child = spawn(process.execPath, [script, ...upstreams.map((u) => u.url)], {
    env: { PATH: process.env.PATH },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const answered: ProxyAnswer[] = [];
  return new Promise<{ url: string; answered: ProxyAnswer[]; close(): void }>((resolve, reject) => {
    let rest = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        const entry = JSON.parse(line) as { kind: string; url?: string } & ProxyAnswer;
        if (entry.kind === "listening")
          resolve({ url: String(entry.url), answered, close: () => void child.kill("SIGTERM") });
        else answered.push(entry);
      }
    });
    child.once("exit", (code) => reject(new Error(`the proxy exited ${code}`)));
  });
}

/** The faults injected in turn while the deliveries flow (one every few hundred ms). */
function faultRotation(): readonly FaultSpec[] {
  const artifacts = "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts";
  const checkRun = "/repos/{owner}/{repo}/check-runs/{check_run_id}";
  return [
    // A 502 Octokit's retries absorb.
    { method: "GET", pathPattern: artifacts, status: 502 },
    // A secondary rate limit on a check-run update: waited out as Retry-After says.
    secondaryRateLimit({ method: "PATCH", pathPattern: checkRun, retryAfterS: 2 }),
    // A 502 that outlasts the retries: the work fails, the App asks GitHub to redeliver.
    { method: "GET", pathPattern: artifacts, status: 502, times: SERVER_ERROR_RETRIES + 1 },
    // A 503 with Retry-After on the check-run listing.
    {
      method: "GET",
      pathPattern: "/repos/{owner}/{repo}/commits/{ref}/check-runs",
      status: 503,
      headers: { "retry-after": "1" },
    },
    // The create went through, the answer did not (a gateway timeout): a retried create must not duplicate.
    { method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status: 500, afterHandling: true },
    // A 502 on the completion itself.
    {
      method: "PATCH",
      pathPattern: checkRun,
      status: 502,
      bodyMatches: (b) => (b as { status?: string }).status === "completed",
    },
  ];
}

const LEDGERS: readonly Ledger[] = [
  SUCCESS_LEDGER,
  SUCCESS_LEDGER,
  SUCCESS_LEDGER,
  FAILURE_LEDGER,
  NEUTRAL_LEDGER,
];

/** Runs the scenario once and reports what GitHub holds afterwards; asserts nothing. */
export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const started = performance.now();
  const random = generator(o.seed);
  const note = o.progress ?? (() => {});
  const github: GitHubServer = await startAppGitHubServer();
  github.state.setCollaborator("mona", "write");
  const env = botEnv(github, {
    EVIDENCE_GATE_BACKOFF_SECOND_MS: String(o.backoffSecondMs),
    RECONCILE_EVERY: o.reconcileEvery,
    RECONCILE_AFTER: o.reconcileAfter,
    REDELIVER_EVERY: o.redeliverEvery,
    SHUTDOWN_DEADLINE: "2s",
  });
  const replicas: Replica[] = [];
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  const pending: Promise<unknown>[] = [];
  let faultsInjected = 0;
  let stopFaults = false;
  try {
    for (let i = 0; i < o.replicas; i++)
      replicas.push(await startReplica(o.replicaEntry, { PATH: process.env.PATH, ...env }));
    proxy = await startProxy(
      replicas,
      o.proxyEntry ?? fileURLToPath(new URL("./round-robin-proxy.mjs", import.meta.url)),
    );
    github.state.webhooks.target = { url: proxy.url, secret: WEBHOOK_SECRET };
    const guids: string[] = [];

    /** Sends one event twice with the same GUID; resolves when both copies were answered. */
    const send = (event: string, payload: unknown): Promise<unknown> => {
      const guid = randomUUID();
      guids.push(guid);
      const first = github.state.webhooks.deliver({ event, payload, guid });
      const pause = random() < 0.25 ? 0 : Math.round(random() * o.duplicateDelayMs);
      const second = sleep(pause).then(() => github.state.webhooks.deliver({ event, payload, guid }));
      const both = Promise.all([first, second]);
      pending.push(both);
      return both;
    };

    const expected: ExpectedVerdict[] = [];
    const expectedReruns: number[] = [];
    const t0 = performance.now();

    // Faults while the deliveries flow.
    const rotation = faultRotation();
    // At most two faults wait at a time (a fault waits until a request it matches comes), so they are spread
    // over the run instead of piling up on a route few requests take.
    let faultTimes = 0;
    const injecting = (async () => {
      for (let i = 0; !stopFaults; ) {
        const waiting = faultTimes - github.calls.filter((c) => c.injected).length;
        if (waiting < 2) {
          const fault = rotation[i++ % rotation.length]!;
          github.failNext(fault);
          faultsInjected += 1;
          faultTimes += fault.times ?? 1;
        }
        await sleep(250);
      }
    })();

    // The kill: the first replica seen with answered but unfinished work once a third of the events are in.
    let killed: ChaosResult["killed"] = null;
    const unfinished = (index: number): number => {
      const answered = new Map<string, number>();
      for (const a of proxy!.answered)
        if (a.replica === index && a.status === 202) answered.set(a.guid, (answered.get(a.guid) ?? 0) + 1);
      for (const l of replicas[index]!.lines)
        if (l.kind === "delivery" && typeof l.delivery === "string" && answered.has(l.delivery))
          answered.set(l.delivery, answered.get(l.delivery)! - 1);
      return [...answered.values()].filter((n) => n > 0).length;
    };
    const killer = (async () => {
      const threshold = Math.ceil((o.pullRequests * 4) / 3);
      while (killed === null && !stopFaults) {
        if (guids.length >= threshold) {
          for (let i = 1; i < replicas.length && killed === null; i++) {
            const n = unfinished(i);
            if (n > 0) {
              replicas[i]!.child.kill("SIGKILL");
              killed = { replica: i, unfinished: n, atMs: Math.round(performance.now() - t0) };
              note(`kill -9 replica ${i} with ${n} answered deliveries unfinished`);
            }
          }
        }
        await sleep(20);
      }
    })();

    const checksOn = (sha: string) =>
      github.state.checkRuns.filter((c) => c.headSha === sha && c.app.id === github.state.app.id);

    const pullRequest = async (k: number): Promise<void> => {
      const number = 100 + k;
      const headSha = (0xc0ffee000 + k).toString(16).padStart(40, "0");
      const runId = 91_000_000 + k;
      const reordered = k % 3 === 0;
      const rerun = k % 6 === 1;
      const ledger1 = LEDGERS[k % LEDGERS.length]!;
      github.state.addPullRequest({
        number,
        headSha,
        headRef: `chaos-${k}`,
        baseSha: BASE_SHA,
        files: ["src/sum.js"],
      });
      const run = github.state.addWorkflowRun({ id: runId, headSha });
      const wr = (action: "requested" | "in_progress" | "completed", attempt: number, ledger?: Ledger) =>
        workflowRunPayload({
          action,
          runId,
          headSha,
          attempt,
          fork: false,
          pullRequest: number,
          headBranch: `chaos-${k}`,
          ...(ledger === undefined
            ? {}
            : { conclusion: ledger.conclusion?.conclusion === "failure" ? "failure" : "success" }),
        }) as { workflow_run: Record<string, unknown> };
      /** GitHub's state of the run becomes what `payload` says, then the event is sent. */
      const happen = (payload: { workflow_run: Record<string, unknown> }) => {
        run.body = payload.workflow_run;
        return send("workflow_run", payload);
      };
      const opened = pullRequestPayload({ headSha, number, fork: false });
      expected.push({
        pullRequest: number,
        headSha,
        runId,
        attempt: 1,
        conclusion: ledger1.conclusion!.conclusion,
      });
      const upload = (ledger: Ledger) =>
        uploadLedger(github, {
          ledger: { ...ledger, headSha },
          runId,
          headSha,
          fork: false,
          pullRequest: number,
        });
      if (reordered) {
        // Everything happened at GitHub; the four deliveries arrive in any order, each late.
        upload(ledger1);
        const completed = wr("completed", 1, ledger1);
        run.body = completed.workflow_run;
        const events: [string, unknown][] = [
          ["pull_request", opened],
          ["workflow_run", wr("requested", 1)],
          ["workflow_run", wr("in_progress", 1)],
          ["workflow_run", completed],
        ];
        for (let i = events.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [events[i], events[j]] = [events[j]!, events[i]!];
        }
        await Promise.all(
          events.map(async ([event, payload]) => {
            await sleep(Math.round(random() * o.reorderDelayMs));
            await send(event, payload);
          }),
        );
      } else {
        const step = () => sleep(Math.round(50 + random() * 200));
        await send("pull_request", opened);
        await step();
        await happen(wr("requested", 1));
        await step();
        await happen(wr("in_progress", 1));
        await step();
        upload(ledger1);
        await happen(wr("completed", 1, ledger1));
      }
      if (!rerun) return;
      // A writer clicks Re-run once attempt 1's check run completed (the button shows only then).
      // (Bounded only so a broken bot cannot hang the run: the button shows once the check run completed.)
      const deadline = performance.now() + 3 * o.settleTimeoutMs;
      let first: { id: number } | undefined;
      while (performance.now() < deadline) {
        first = checksOn(headSha).find(
          (c) =>
            c.status === "completed" &&
            parseCheckKey(c.externalId)?.run?.attempt === 1 &&
            c.name === "evidence-gate",
        );
        if (first !== undefined) break;
        await sleep(100);
      }
      if (first === undefined) return;
      expectedReruns.push(runId);
      const clicked = guids.length;
      await send(
        "check_run",
        checkRunPayload({ action: "rerequested", checkRunId: first.id, headSha, sender: "mona" }),
      );
      const click = guids[clicked]!;
      while (performance.now() < deadline && !github.state.reruns.includes(runId)) await sleep(100);
      if (!github.state.reruns.includes(runId)) return;
      // A real attempt runs for minutes, far longer than the click's handling: attempt 2 finishes only once
      // both copies of the click were worked (GitHub refuses a re-run while an attempt runs) — or a copy
      // went down with the killed replica: answered 202 there and never worked, it is gone with the process
      // (the re-run above is the other copy's work), so waiting for it would only run out the deadline.
      const worked = () =>
        replicas.flatMap((r) => r.lines).filter((l) => l.kind === "delivery" && l.delivery === click).length;
      const lostWithKilled = () => {
        if (killed === null) return 0;
        const down = killed.replica;
        const answeredThere = proxy!.answered.filter(
          (a) => a.replica === down && a.guid === click && a.status === 202,
        ).length;
        const workedThere = replicas[down]!.lines.filter(
          (l) => l.kind === "delivery" && l.delivery === click,
        ).length;
        return Math.max(0, answeredThere - workedThere);
      };
      while (performance.now() < deadline && worked() + lostWithKilled() < 2) await sleep(100);
      const ledger2 = ledger1.conclusion?.conclusion === "success" ? FAILURE_LEDGER : SUCCESS_LEDGER;
      expected.push({
        pullRequest: number,
        headSha,
        runId,
        attempt: 2,
        conclusion: ledger2.conclusion!.conclusion,
      });
      await happen(wr("requested", 2));
      await sleep(100);
      await happen(wr("in_progress", 2));
      await sleep(100);
      upload(ledger2);
      run.running = false;
      await happen(wr("completed", 2, ledger2));
    };

    const flows: Promise<void>[] = [];
    for (let k = 0; k < o.pullRequests; k++) {
      flows.push(pullRequest(k));
      await sleep(o.paceMs);
    }
    await Promise.all(flows);
    await Promise.all(pending);
    note(`all ${guids.length} events sent twice (${Math.round(performance.now() - t0)} ms)`);
    stopFaults = true;
    await injecting;
    await killer;

    // Wait until every expected verdict is there and nothing of the App's is open, and GitHub's log shows
    // each event answered 2xx at least once (the App's redelivery sweep asks for the failed ones).
    const verdicts = (): VerdictFound[] =>
      expected.map((e) => ({
        ...e,
        checkRuns: checksOn(e.headSha)
          .filter((c) => {
            const key = parseCheckKey(c.externalId);
            return c.name === "evidence-gate" && key?.run?.id === e.runId && key.run.attempt === e.attempt;
          })
          .map((c) => ({ id: c.id, status: c.status, conclusion: c.conclusion })),
      }));
    const answered2xx = () =>
      new Set(
        github.state.webhooks.records
          .filter((r) => r.statusCode >= 200 && r.statusCode < 300)
          .map((r) => r.guid),
      );
    const done = () => {
      const ok = answered2xx();
      return (
        verdicts().every(
          (v) =>
            v.checkRuns.length === 1 &&
            v.checkRuns[0]!.status === "completed" &&
            v.checkRuns[0]!.conclusion === v.conclusion,
        ) &&
        github.state.checkRuns.every((c) => c.status === "completed") &&
        guids.every((g) => ok.has(g))
      );
    };
    let settled = false;
    const sent = performance.now();
    while (performance.now() - sent < o.settleTimeoutMs) {
      if (done()) {
        settled = true;
        break;
      }
      await sleep(250);
    }
    const settledMs = performance.now() - t0;
    // Then a quiet spell: a late write (a redelivery, a sweep) that would reopen or duplicate shows now.
    const writes = () => github.calls.filter((c) => c.method !== "GET").length;
    for (let quiet = 0, before = writes(); quiet < 8; ) {
      await sleep(250);
      const now = writes();
      quiet = now === before ? quiet + 1 : 0;
      before = now;
      if (performance.now() - sent > o.settleTimeoutMs + 10_000) break;
    }
    await github.state.webhooks.settled();

    const found = verdicts();
    const known = new Set(found.flatMap((v) => v.checkRuns.map((c) => c.id)));
    const lines = replicas.flatMap((r) => r.lines);
    const outcomes: Record<string, number> = {};
    for (const l of lines)
      if (l.kind === "delivery") outcomes[String(l.outcome)] = (outcomes[String(l.outcome)] ?? 0) + 1;
    const times = proxy.answered.map((a) => a.ms).sort((a, b) => a - b);
    const sender = github.state.webhooks.records.map((r) => r.duration * 1000).sort((a, b) => a - b);
    const ok = answered2xx();
    return {
      seed: o.seed,
      replicas: o.replicas,
      pullRequests: o.pullRequests,
      expected: found,
      unexpected: github.state.checkRuns
        .filter((c) => c.name === "evidence-gate" && !known.has(c.id))
        .map((c) => ({ id: c.id, headSha: c.headSha, externalId: c.externalId, status: c.status })),
      open: github.state.checkRuns
        .filter((c) => c.status !== "completed")
        .map((c) => ({ id: c.id, name: c.name, headSha: c.headSha, status: c.status })),
      renamedDuplicates: github.state.checkRuns.filter((c) => c.name === "evidence-gate (duplicate)").length,
      reruns: [...github.state.reruns],
      expectedReruns,
      dispatches: github.state.dispatches.length,
      deliveries: [...github.state.webhooks.records],
      events: guids.length,
      neverAnswered2xx: guids.filter((g) => !ok.has(g)),
      answers: [...proxy.answered],
      answerMs: { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? 0 },
      senderMs: { p50: percentile(sender, 50), p99: percentile(sender, 99), max: sender.at(-1) ?? 0 },
      killed,
      faultsInjected,
      violations: github.violations.map(
        (v) =>
          `${v.kind} ${v.method} ${v.path}${v.operationId ? ` (${v.operationId})` : ""}: ${v.errors.join("; ")}`,
      ),
      outcomes,
      reconciled: lines.filter(
        (l) =>
          l.kind === "reconcile-check" &&
          typeof l.outcome === "string" &&
          !String(l.outcome).startsWith("left"),
      ).length,
      selfRedelivered: lines.filter((l) => l.kind === "redeliver-one" && l.result === "redelivered").length,
      settledMs,
      settled,
      wallMs: performance.now() - started,
      logs: replicas.map((r) => [...r.lines]),
      calls: github.calls.map((c) => ({
        method: c.method,
        path: c.path,
        status: c.status,
        injected: c.injected,
        body: c.body,
      })),
    };
  } finally {
    stopFaults = true;
    for (const r of replicas)
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    await Promise.allSettled(pending);
    proxy?.close();
    await github.close();
  }
}
