/**
 * `evidence-gate run GRAPH` in-process (SPEC §2–§4, §10; issue 24: the CLI's decisions in the fast tier):
 * the CLI's dispatcher with the model calls played by the scripted stand-in (test/support/cli-in-process.ts)
 * against a real git repository; every edit (a play's `writes`), verify command, state file, recorded check
 * run and printed line is real. Moved from test/e2e/cli-run.test.ts, which keeps one real end-to-end run
 * (the real `claude` editing through its tools) and what only the process shows (signals, the bundle).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { replied } from "../engine/port-harness.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { checkRunsOf, rowWords } from "../support/cli-run-result.js";
import { FIX_GRAPH, FIX_GRAPH_WITH_RETRY, RETRY_MARK } from "../support/scenarios/cli-graphs.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { commitAll, FIXED_SUM } from "../support/temp-repo.js";

const lines = (text: string): string[] => text.split("\n");

describe("run GRAPH: a line per node event, the ledger, the exit code by outcome", () => {
  test("--commit: the verified fix is committed and the run ends success", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const start = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), ["--commit"]);

    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.ledger?.conclusion?.conclusion).toBe("success");
    const head = await h.repo.git(["rev-parse", "HEAD"]);
    expect(head).not.toBe(start);
    expect(r.ledger?.postedCommit?.sha).toBe(head);
  });

  test("--commit when HEAD moved while the run ran (another run's --commit): nothing is committed onto the other commit, and the line says why (issue 17 item 4)", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
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
    const h = await cliInProcess({ plays: fixSumPlays({ newBody: "return a * b;" }) });

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
    const h = await cliInProcess({
      plays: { ...fixSumPlays(), check: [replied("claude", "FAIL"), replied("claude", "PASS")] },
    });

    const r = await h.runGraph(h.writeGraph("retry.yml", FIX_GRAPH_WITH_RETRY), []);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(rowWords(r.ledger!)).toEqual([
      "implement PASS (exit-only)",
      "check FAIL result_mismatch superseded",
      "check PASS (verified)",
    ]);
    // The second attempt is the retry (its prompt says so: the model server chose its reply by this).
    expect(h.madeFor("check").map((c) => c.prompt.includes(RETRY_MARK))).toEqual([false, true]);
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
    const h = await cliInProcess({ plays: fixSumPlays() });
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
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
    // The recorded check run says why nothing ran; it is never left in progress.
    const [run] = checkRunsOf(r.checkRunRequests!);
    expect(run?.completions).toEqual([
      expect.objectContaining({ conclusion: "action_required", title: "Usage error: nothing ran" }),
    ]);
    expect(lines(r.stdout)).toContain("conclusion: action_required");
  });

  test("without a check run (no --repository, no --check-run-out) an invalid graph prints no conclusion: a conclusion is a check run's", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
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
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.runGraph("missing.yml", []);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(`no graph file at "missing.yml" (${join(h.scratch, "missing.yml")})`);
    expect(r.checkRunRequests).toBeNull();
    expect(h.calls()).toHaveLength(0);
  });

  test("a {{ inputs.NAME }} without --input is a usage error naming the flag to pass; with it, the value reaches the prompt", async () => {
    const h = await cliInProcess({ plays: { greet: [replied("claude", "hello")] } });
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
    expect(h.calls()).toHaveLength(0);

    const given = await h.runGraph(graph, ["--input", "who=Ada Lovelace"]);
    expect(given.exitCode, given.stderr).toBe(0);
    expect(
      h
        .calls()
        .map((c) => c.prompt)
        .join("\n"),
    ).toContain("greet Ada Lovelace");
  });

  test("--accept-loaded-user-config is refused on run: hand-written nodes already load your configuration", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.runGraph(h.writeGraph("fix.yml", FIX_GRAPH), ["--accept-loaded-user-config"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      "evidence-gate run: --accept-loaded-user-config is meaningless on run: hand-written nodes already load your configuration",
    );
    expect(h.calls()).toHaveLength(0);
  });
});

describe("the policy file's require-evidence applies to run (SPEC §5, §11)", () => {
  test("verify-cmd in the policy is said not to apply; require-evidence turns a gate-only run's neutral into failure on resume", async () => {
    // A gate-only graph calls no model: nothing is scripted, and a call would fail the test.
    const h = await cliInProcess();
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
    expect(h.calls()).toHaveLength(0);
  });
});

describe("a run that fails while a gate waits is not paused (SPEC §10)", () => {
  test("a sibling fails under halt: the gate is said to be reached, but no resume command is printed; exit 1", async () => {
    const h = await cliInProcess({ plays: { broken: [replied("claude", "nope")] } });
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
