/**
 * End-to-end acceptance tests of `evidence-gate run GRAPH` (SPEC §2–§4, §10): the CLI command runs
 * in-process (and, for the crash test, as `node dist/cli.js`) against a real git repository, the real
 * pinned `claude` CLI and the scripted model server. Every edit, verify command and state file is real.
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
import { FIX_GRAPH, FIX_GRAPH_WITH_RETRY, RETRY_MARK } from "../support/scenarios/cli-graphs.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { commitAll, FIXED_SUM } from "../support/temp-repo.js";

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

  test("--commit: the verified fix is committed and the run ends success", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const start = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), ["--commit"]);

    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.ledger?.conclusion?.conclusion).toBe("success");
    const head = await h.repo.git(["rev-parse", "HEAD"]);
    expect(head).not.toBe(start);
    expect(r.ledger?.postedCommit?.sha).toBe(head);
  });

  test("--commit when HEAD moved while the run ran (another run's --commit): nothing is committed onto the other commit, and the line says why (issue 17 item 4)", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    // The verify command itself lands a commit, as a second run's --commit would while this one runs.
    const meanwhile =
      "git -c user.name=Other -c user.email=other@example.invalid commit --quiet --allow-empty -m meanwhile && npm test";
    const graph = FIX_GRAPH.replace("verify: { command: npm test }", `verify: { command: "${meanwhile}" }`);
    expect(graph).not.toBe(FIX_GRAPH);

    const r = await h.runGraph(h.writeGraph("fix.yml", graph), ["--commit"]);

    expect(rowWords(r.ledger!)).toEqual(["implement PASS (exit-only)", "check PASS (verified)"]);
    const head = await h.repo.git(["rev-parse", "HEAD"]);
    expect(await h.repo.git(["rev-parse", "HEAD~1"])).toBe(start);
    expect(await h.repo.git(["log", "-1", "--format=%s"])).toBe("meanwhile");
    expect(r.ledger?.postedCommit).toBeUndefined();
    expect(r.ledger?.patch?.notCommittedBecause).toBe(
      `HEAD moved while the run ran (from ${start.slice(0, 7)} to ${head.slice(0, 7)}: another run's --commit, or a commit made meanwhile), and the nodes' changes were made on ${start.slice(0, 7)}`,
    );
    expect(r.stdout).not.toContain("because the run did not pass");
    expect(r.stdout).toContain(
      `--commit: nothing was committed because HEAD moved while the run ran (from ${start.slice(0, 7)} to ${head.slice(0, 7)}`,
    );
    expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
  });

  test("a sink whose verify fails: ✗ check FAIL verify_failed on its line, conclusion failure, exit 1; --json: stdout is the ledger JSON alone, the progress lines go to stderr", async () => {
    const h = await cliHarness({
      script: (repo) => fixSumScript({ repoDir: repo.dir, newBody: "return a * b;" }),
    });

    const r = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), ["--json"]);

    expect(r.exitCode, r.stderr).toBe(1);
    expect(rowWords(r.ledger!)).toEqual(["implement PASS (exit-only)", "check FAIL verify_failed"]);
    const printed = JSON.parse(r.stdout) as { runId: string; rows: unknown[] };
    expect(printed.runId).toBe(r.ledger?.runId);
    expect(printed.rows).toHaveLength(2);
    expect(lines(r.stderr)).toContain("▶ implement started");
    expect(r.stderr).toMatch(/^✗ check {2}FAIL verify_failed {2}\$\d+\.\d{4} {2}\d+\.\ds {2}.*npm test/m);
    expect(r.ledger?.conclusion?.conclusion).toBe("failure");
  });

  test("a judged retry: the FAIL line, then ↻ with the attempt, the cause and the quoted reply, then the second attempt starts as attempt 2/2", async () => {
    const h = await cliHarness({
      script: (repo): ModelScript => {
        const base = fixSumScript({ repoDir: repo.dir, checkReply: "FAIL" });
        return {
          conversations: [
            { name: "check-retry", match: [MARKS.check, RETRY_MARK], turns: [{ text: "PASS" }] },
            ...base.conversations,
          ],
        };
      },
    });

    const r = await h.runGraph(h.writeGraph("retry.yml", FIX_GRAPH_WITH_RETRY), []);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check FAIL result_mismatch superseded",
      "check PASS (verified)",
    ]);
    const out = lines(r.stdout);
    const failed = out.findIndex((l) => l.startsWith("✗ check  FAIL result_mismatch"));
    const retried = out.indexOf("↻ check  retry: attempt 2/2 after result_mismatch (previous reply quoted)");
    const second = out.indexOf("▶ check started (attempt 2/2)");
    expect(failed, r.stdout).toBeGreaterThan(-1);
    expect(retried).toBeGreaterThan(failed);
    expect(second).toBeGreaterThan(retried);
    expect(out.findIndex((l) => l.startsWith("✓ check  PASS (verified)"))).toBeGreaterThan(second);
  });
});

describe("run refuses what it cannot run, before anything is spent (exit 64)", () => {
  test("an invalid graph: every issue printed, no model request, no run directory, exit 64", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const graph = h.writeGraph(
      "broken.yml",
      `nodes:
  - id: build
    prompt: build it
    success_check: { result_matches: "(DONE" }
  - id: test
    depends_on: [biuld]
    prompt: test it
`,
    );

    const r = await h.runGraph(graph, []);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(`evidence-gate run: ${graph} does not load (2 issues):`);
    expect(r.stderr).toMatch(/^invalid graph: node "build": .*result_matches/m);
    expect(r.stderr).toMatch(/^invalid graph: node "test": depends_on unknown node "biuld"/m);
    expect(h.server.requests).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
    // The recorded check run says why nothing ran; it is never left in progress.
    const [run] = checkRunsOf(r.checkRunRequests!);
    expect(run?.completions).toEqual([
      expect.objectContaining({ conclusion: "action_required", title: "Usage error: nothing ran" }),
    ]);
    expect(lines(r.stdout)).toContain("conclusion: action_required");
  });

  test("without a check run (no --repository, no --check-run-out) an invalid graph prints no conclusion: a conclusion is a check run's", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
    const graph = h.writeGraph(
      "broken.yml",
      "nodes:\n  - id: test\n    depends_on: [biuld]\n    prompt: t\n",
    );

    const r = await h.runGraph(graph, [], { checkRunOut: false });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toMatch(/^invalid graph: node "test": depends_on unknown node "biuld"/m);
    expect(r.stdout).not.toContain("conclusion");
    expect(r.stderr).not.toContain("conclusion");
  });

  test("a graph file that does not exist: a usage error naming the path, exit 64, nothing recorded", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });

    const r = await h.runGraph("missing.yml", []);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(`no graph file at "missing.yml" (${join(h.scratch, "missing.yml")})`);
    expect(r.checkRunRequests).toBeNull();
    expect(h.server.requests).toHaveLength(0);
  });

  test("a {{ inputs.NAME }} without --input is a usage error naming the flag to pass; with it, the value reaches the prompt", async () => {
    const h = await cliHarness({
      script: () => ({ conversations: [{ name: "greet", match: "GREET-MARK", turns: [{ text: "hello" }] }] }),
    });
    const graph = h.writeGraph(
      "inputs.yml",
      `nodes:
  - id: greet
    prompt: "GREET-MARK: greet {{ inputs.who }}"
    allowed_tools: [Read]
`,
    );

    const missing = await h.runGraph(graph, []);
    expect(missing.exitCode).toBe(64);
    expect(missing.stderr).toContain("pass --input who=VALUE");
    expect(h.server.requests).toHaveLength(0);

    const given = await h.runGraph(graph, ["--input", "who=Ada Lovelace"]);
    expect(given.exitCode, given.stderr).toBe(0);
    expect(h.server.requests.map((q) => q.promptText).join("\n")).toContain("greet Ada Lovelace");
  });

  test("--accept-loaded-user-config is refused on run: hand-written nodes already load your configuration", async () => {
    const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });

    const r = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), ["--accept-loaded-user-config"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      "evidence-gate run: --accept-loaded-user-config is meaningless on run: hand-written nodes already load your configuration",
    );
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("the policy file's require-evidence applies to run (SPEC §5, §11)", () => {
  test("verify-cmd in the policy is said not to apply; require-evidence turns a gate-only run's neutral into failure on resume", async () => {
    // A gate-only graph calls no model: the one conversation is never played.
    const h = await cliHarness({
      script: () => ({ conversations: [{ name: "unused", match: "UNUSED-MARK", turns: [{ text: "-" }] }] }),
    });
    await h.repo.write(".github/evidence-gate.yml", "require-evidence: true\nverify-cmd: npm test\n");
    await commitAll(h.repo, "policy");
    const graph = h.writeGraph("gate.yml", "nodes:\n  - id: sign-off\n    type: gate\n");

    const paused = await h.runGraph(graph, []);

    expect(paused.exitCode, paused.stderr).toBe(2);
    const out = lines(paused.stdout);
    expect(out).toContain(
      'policy: .github/evidence-gate.yml (working tree): require-evidence true, verify-cmd "npm test"',
    );
    expect(out).toContain(
      "policy: verify-cmd and planned-tools apply to auto's planned graphs only; this graph's nodes use their own success_check.verify and allowed_tools",
    );
    const approved = await h.resume(paused.ledger!.runId, ["--approve", "sign-off", "--by", "alice"]);
    expect(approved.exitCode, approved.stderr).toBe(1);
    expect(approved.ledger?.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
    expect(approved.ledger?.conclusion?.title).toContain("require-evidence");
    expect(h.server.requests).toHaveLength(0);
  });
});

describe("a run that fails while a gate waits is not paused (SPEC §10)", () => {
  test("a sibling fails under halt: the gate is said to be reached, but no resume command is printed; exit 1", async () => {
    const h = await cliHarness({
      script: () => ({
        conversations: [{ name: "broken", match: "BROKEN-MARK", turns: [{ text: "nope" }] }],
      }),
    });
    const graph = h.writeGraph(
      "halt.yml",
      `nodes:
  - id: broken
    prompt: "BROKEN-MARK: reply PASS"
    success_check: { result_matches: '^PASS$' }
  - id: sign-off
    type: gate
  - id: after
    depends_on: [sign-off]
    prompt: "UNUSED-MARK"
`,
    );

    const r = await h.runGraph(graph, []);

    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.ledger?.conclusion?.outcome).toBe("failed");
    const out = lines(r.stdout);
    expect(out).toContain(
      "⏸ sign-off  gate reached — waiting for a person's decision (if the run pauses, the resume commands follow the ledger)",
    );
    expect(r.stdout).not.toContain("gate paused");
    expect(r.stdout).not.toContain("evidence-gate resume");
    expect(r.stdout).not.toContain("paused at gate");
    // The failure decides the run: state.json records no pause, so --retry-failed (not an approval) continues it.
    const [runDir] = h.runDirs();
    expect(JSON.parse(readFileSync(join(runDir!, "state.json"), "utf8")).paused).toBeNull();
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
