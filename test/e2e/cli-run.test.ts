/**
 * End-to-end acceptance tests of `evidence-gate run GRAPH` (SPEC §2–§4, §10) that only the real process
 * shows: one real run (the CLI command in-process against a real git repository, the real pinned `claude`
 * CLI editing through its own tools, and the scripted model server), `node dist/cli.js run` stopped by
 * SIGKILL and SIGINT, and the bundle's --help. Every edit, verify command and state file is real.
 *
 * The CLI's decisions with the model incidental (--commit, HEAD moved meanwhile, a failed verify and --json,
 * a judged retry's lines, the refusals before anything is spent, the policy file, a failure while a gate
 * waits) run in-process through the model port: test/cli/run-command.test.ts (issue 24).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { pidsWithCommandLine } from "../engine/runtime-harness.js";
import { eventually } from "../proc/process-probe.js";
import {
  CLAUDE_BIN,
  type CliHarness,
  checkRunsOf,
  cliHarness,
  type DistProcess,
  rowWords,
} from "../support/cli-harness.js";
import { claudeEnvFor, type ModelScript, startModelServer } from "../support/model-server/index.js";
import { FIX_GRAPH } from "../support/scenarios/cli-graphs.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM } from "../support/temp-repo.js";

const lines = (text: string): string[] => text.split("\n");

describe("run GRAPH: a line per node event, the ledger, the exit code by outcome", () => {
  test("implement → check (verify npm test) passes: plan, started / verifying / PASS lines with qualifier and cost, the ledger table, exit 4 (action_required: the fix is not committed)", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const graph = h.writeGraph("fix.yml", FIX_GRAPH);

    const r = await h.runGraph(graph, []);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(rowWords(r.ledger!)).toEqual(["implement PASS (exit-only)", "check PASS (verified)"]);
    expect(r.ledger?.mode).toBe("run");
    expect(r.ledger?.conclusion?.outcome).toBe("passed");
    const out = lines(r.stdout);
    expect(out).toContain(`graph ${graph}: 2 nodes`);
    expect(out).toContain("  check ← implement  [Read]  verify: npm test");
    expect(out).toContain("build evidence: the graph's own verify commands, engine-run at check");
    // One line per event, in order: started → PASS for implement, then started → verifying → PASS for check.
    const events = out.filter((l) => /^[▶✓✗↻…⏸] /.test(l));
    expect(events.map((l) => l.replace(/\$\d+\.\d{4} +\d+\.\ds/, "COST TIME"))).toEqual([
      "▶ implement started",
      "✓ implement  PASS (exit-only)  COST TIME  exited 0",
      "▶ check started",
      "… check  verifying: npm test",
      "✓ check  PASS (verified)  COST TIME  verify `npm test` exited 0",
    ]);
    expect(r.stdout).toMatch(/^check +PASS \(verified\) +[0-9a-f]{8} +\$\d+\.\d{4} /m);
    expect(r.stdout).toMatch(/^CONCLUSION: +action_required \(outcome passed\)/m);
    expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
    // The check run (recorded) and the summary carry the same ledger.
    const [run] = checkRunsOf(r.checkRunRequests!);
    expect(run?.headSha).toBe(await h.repo.git(["rev-parse", "HEAD"]));
    expect(run?.completions.map((c) => c.conclusion)).toEqual([r.ledger?.conclusion?.conclusion]);
    expect(r.summary).toContain("PASS (verified)");
  });
});

/** first → second; second's model answer takes two minutes, so the CLI is stopped while it waits. */
/** Stops the second node's claude left running by a SIGKILLed engine (and waits until it is gone). */
async function killOrphans(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const orphans = pidsWithCommandLine("SECOND-MARK: take your time");
    if (orphans.length === 0) return;
    for (const pid of orphans) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const SLOW_SCRIPT: ModelScript = {
  conversations: [
    { name: "first", match: "FIRST-MARK", turns: [{ text: "first done" }] },
    { name: "second", match: "SECOND-MARK", turns: [{ text: "second done", delay_ms: 120_000 }] },
  ],
};
const SLOW_GRAPH = `nodes:
  - id: first
    prompt: "FIRST-MARK: say done"
    allowed_tools: [Read]
  - id: second
    depends_on: [first]
    prompt: "SECOND-MARK: take your time"
    allowed_tools: [Read]
`;

interface RunEvent {
  readonly type: string;
  readonly node?: string;
}

/**
 * Starts `node dist/cli.js run SLOW_GRAPH` and waits until `first` passed and `second` is running (its
 * model request in flight).
 */
async function slowRunAtSecondNode(h: CliHarness): Promise<DistProcess> {
  const graph = h.writeGraph("slow.yml", SLOW_GRAPH);
  const run = h.spawnDist(["run", graph, "--repo", h.repo.dir, "--claude-path", CLAUDE_BIN]);
  onTestFinished(() => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL");
  });
  const events = (): RunEvent[] => {
    const [dir] = h.runDirs();
    const path = dir === undefined ? null : join(dir, "events.jsonl");
    if (path === null || !existsSync(path)) return [];
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as RunEvent);
  };
  const has = (type: string, node: string): boolean =>
    events().some((e) => e.type === type && e.node === node);
  const reached = await eventually(
    () =>
      has("node_passed", "first") &&
      has("node_started", "second") &&
      h.server.requests.some((q) => q.conversation === "second"),
    60_000,
  );
  expect(reached, `the run never reached the second node:\n${JSON.stringify(run.output())}`).toBe(true);
  return run;
}

describe("a stopped CLI leaves a run directory that says what finished (issue acceptance)", () => {
  test("SIGKILL of `node dist/cli.js run` while the second node waits on the model: state.json parses and records the first node as passed", async () => {
    const h = await cliHarness({ script: () => SLOW_SCRIPT });
    const run = await slowRunAtSecondNode(h);

    expect(pidsWithCommandLine("SECOND-MARK: take your time").length).toBeGreaterThan(0);
    run.child.kill("SIGKILL");
    expect((await run.closed).signal).toBe("SIGKILL");
    // A SIGKILLed engine runs no cleanup, and the second node's claude is in its own process group: its
    // orphan guard ends it (issue 17 item 7), where it used to wait on the model for its whole reply.
    onTestFinished(killOrphans);
    expect(
      await eventually(() => pidsWithCommandLine("SECOND-MARK: take your time").length === 0, 30_000),
    ).toBe(true);

    const [runDir] = h.runDirs();
    const state = JSON.parse(readFileSync(join(runDir!, "state.json"), "utf8")) as {
      nodes: Record<string, { status: string }>;
      rows: { nodeId: string; verdict: string }[];
    };
    expect(state.nodes.first?.status).toBe("passed");
    expect(state.rows).toEqual([expect.objectContaining({ nodeId: "first", verdict: "PASS" })]);
    expect(state.nodes.second?.status ?? "never recorded").not.toBe("passed");
    // No half-written temp file was left beside it.
    expect(readdirSync(runDir!).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test("SIGINT: the running node is stopped, the ledger printed, exit 130; resume --retry-failed then runs only the stopped node", async () => {
    const h = await cliHarness({ script: () => SLOW_SCRIPT });
    const run = await slowRunAtSecondNode(h);

    run.child.kill("SIGINT");
    const { code } = await run.closed;

    const { stdout, stderr } = run.output();
    expect(code, `${stdout}\n${stderr}`).toBe(130);
    expect(stderr).toContain("evidence-gate: interrupted — stopping the running nodes");
    expect(stdout).toMatch(/^✗ second {2}FAIL cancelled /m);
    const runId = /^run (\S+) \(/m.exec(stdout)?.[1];
    expect(runId, stdout).toBeDefined();
    // The interrupted run says how to continue it, as a paused one does (issue 17 item 7).
    expect(stdout).toContain(
      "interrupted: the run is saved — continue it (the stopped nodes run again, the passed ones are kept) with",
    );
    expect(stdout).toMatch(new RegExp(`^ {2}evidence-gate resume ${runId} (.* )?--retry-failed$`, "m"));

    // The model answers at once now: the resumed leg runs `second` only.
    const fast = await startModelServer({
      script: {
        conversations: SLOW_SCRIPT.conversations.map((c) => ({ ...c, turns: [{ text: `${c.name} done` }] })),
      },
    });
    onTestFinished(() => fast.close());
    const resumed = await h.resume(runId!, ["--retry-failed"], { env: claudeEnvFor(fast.url, h.home) });

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(fast.requests.map((q) => q.conversation)).toEqual(["second"]);
    expect(rowWords(resumed.ledger!)).toEqual([
      "first PASS (exit-only)",
      "second FAIL cancelled superseded",
      "second PASS (exit-only)",
    ]);
  });
});

describe("the shipped CLI lists run and resume, each with its own --help", () => {
  test("`evidence-gate --help` names run and resume; `run --help` and `resume --help` print their usage, exit 0", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const dist = async (argv: string[]): Promise<{ code: number | null; stdout: string }> => {
      const run = h.spawnDist(argv);
      const { code } = await run.closed;
      return { code, stdout: run.output().stdout };
    };

    const top = await dist(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^ {2}run +run a hand-written graph file/m);
    expect(top.stdout).toMatch(/^ {2}resume +continue a paused or failed run/m);
    const run = await dist(["run", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: evidence-gate run GRAPH/);
    const resume = await dist(["resume", "--help"]);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(
      /^usage: evidence-gate resume RUN_ID \(--approve GATE \| --reject GATE \| --retry-failed\)/,
    );
  });
});
