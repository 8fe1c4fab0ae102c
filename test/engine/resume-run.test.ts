/**
 * Pauses and resumed legs (SPEC §4, §6; research/oh-my-graph.md §5.6, §7.3–§7.7): a gate pauses a fresh
 * run (`action_required`, outcome `paused`) and `resumeRun` approves or rejects it; a "hit your session
 * limit" reply pauses the run and `resume --retry-failed` finishes exactly the work that never ran; a
 * failed node is re-run by `--retry-failed` with its judged reply quoted. Every leg is checked in
 * `state.json` (`rows`, `nodes`, `gates`, `paused`, `legs`) as well as in the ledger.
 *
 * Through the model port (./port-harness.ts), on claude (the engine never branches on the runtime): each
 * call's stream goes through the real parser, in real repositories with real verify commands. A later
 * leg's replies ("the limit reset", "the model does better now") are the label's next plays; a call
 * nobody scripted fails the test, so "nothing that passed ran again" is also what the plays allow. The
 * session limit is the stream claude 2.1.332 wrote for the model API's 429
 * (test/runtime/fixtures/session-limit-429.jsonl); the real CLI on it is test/engine/pause-and-bypass.test.ts,
 * and the CLI's pause and `resume --retry-failed` on it test/cli/resume-command.test.ts.
 */
import { describe, expect, test } from "vitest";
import {
  claudeSessionLimit,
  type Plays,
  type PortHarness,
  portHarnessPerTest,
  replied,
} from "./port-harness.js";
import { asFail, asPass, eventIndex, readEvents, readState, rowWords } from "./run-readers.js";

const harness = portHarnessPerTest();
const reply = (text: string, more: Parameters<typeof replied>[2] = {}) => replied("claude", text, more);

const RELEASE = `
name: release
nodes:
  - id: build
    prompt: "BUILD-MARK: prepare the release notes."
    allowed_tools: [Read]
    success_check: { verify: { command: "test -f README.md" } }
  - id: changelog
    prompt: "CHANGELOG-MARK: update the changelog."
    allowed_tools: [Read]
  - id: approve-release
    type: gate
    depends_on: [build, changelog]
  - id: publish
    depends_on: [approve-release]
    prompt: "PUBLISH-MARK: publish the release notes."
    allowed_tools: [Read]
    success_check: { verify: { command: "test -f README.md" } }
`;

const releasePlays: Plays = {
  build: [reply("notes ready")],
  changelog: [reply("changelog updated")],
  publish: [reply("published")],
};

/** The release's plays without `publish`'s: a run that calls it fails the test. */
const { publish: _publish, ...unpublishedPlays } = releasePlays;

describe("resume-run", () => {
  describe("a gate pauses the run; a person approves or rejects it (research §7.7)", () => {
    async function pausedRun(h: PortHarness) {
      const paused = await h.run(RELEASE);
      expect(paused.ledger.conclusion).toMatchObject({
        conclusion: "action_required",
        outcome: "paused",
        rule: "paused",
      });
      expect(rowWords(paused.ledger.rows)).toEqual([
        "build PASS (verified)",
        "changelog PASS (exit-only)",
        "approve-release SKIPPED",
        "publish SKIPPED",
      ]);
      expect(paused.ledger.rows[2]).toMatchObject({
        reason: "waiting for a person to approve or reject this gate",
      });
      expect(paused.ledger.rows[3]).toMatchObject({
        reason: 'not run yet: the run is paused at gate "approve-release"',
      });
      expect(h.spawnsOf("publish")).toBe(0);
      const state = readState(paused.runDir);
      expect(state.paused).toEqual({ reason: "gate", node: "approve-release" });
      expect(state.gates).toEqual({ "approve-release": { status: "waiting" } });
      expect(state.nodes).toMatchObject({
        build: { status: "passed" },
        changelog: { status: "passed" },
        "approve-release": { status: "waiting" },
        publish: { status: "skipped" },
      });
      expect(rowWords(state.rows)).toEqual(
        expect.arrayContaining(["build PASS (verified)", "changelog PASS (exit-only)"]),
      );
      expect(state.rows).toHaveLength(2);
      expect(state.legs).toEqual([expect.objectContaining({ kind: "fresh", outcome: "paused" })]);
      expect(readEvents(paused.runDir).map((e) => e.type)).toContain("gate_paused");
      return paused;
    }

    test("approve: the gate row is PASS (approved) with who and the head SHA, its dependents run, and the run succeeds", async () => {
      const h = await harness({ plays: releasePlays });
      const paused = await pausedRun(h);
      const head = await h.repo.git(["rev-parse", "HEAD"]);

      const { ledger, runDir } = await h.resume(paused.runId, {
        kind: "approve",
        gate: "approve-release",
        by: "alice",
      });

      expect(rowWords(ledger.rows)).toEqual([
        "build PASS (verified)",
        "changelog PASS (exit-only)",
        "approve-release PASS (approved)",
        "publish PASS (verified)",
      ]);
      expect(asPass(ledger.rows[2]).approvedBy).toEqual({ login: "alice", headSha: head });
      expect(ledger.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
      // Nothing that passed before the pause ran again.
      expect(h.spawnsOf("build")).toBe(1);
      expect(h.spawnsOf("changelog")).toBe(1);
      expect(h.spawnsOf("publish")).toBe(1);

      const state = readState(runDir);
      expect(state.paused).toBeNull();
      expect(state.gates["approve-release"]).toMatchObject({
        status: "approved",
        by: "alice",
        head_sha: head,
      });
      expect(state.nodes).toMatchObject({
        "approve-release": { status: "passed" },
        publish: { status: "passed", executions: 1 },
      });
      expect(state.rows).toHaveLength(4);
      expect(state.legs).toEqual([
        expect.objectContaining({ kind: "fresh", outcome: "paused" }),
        expect.objectContaining({ kind: "approve approve-release", outcome: "passed" }),
      ]);
      const events = readEvents(runDir);
      expect(eventIndex(events, "gate_approved", "approve-release")).toBeLessThan(
        eventIndex(events, "node_started", "publish"),
      );
    });

    test("reject: the gate row is FAIL rejected, its subtree is SKIPPED and never runs, and the run fails", async () => {
      const h = await harness({ plays: unpublishedPlays });
      const paused = await pausedRun(h);

      const { ledger, runDir } = await h.resume(paused.runId, {
        kind: "reject",
        gate: "approve-release",
        by: "bob",
      });

      expect(rowWords(ledger.rows)).toEqual([
        "build PASS (verified)",
        "changelog PASS (exit-only)",
        "approve-release FAIL rejected",
        "publish SKIPPED",
      ]);
      expect(asFail(ledger.rows[2]).detail).toMatch(/^gate rejected by bob at [0-9a-f]{12}$/);
      expect(ledger.rows[3]).toMatchObject({ reason: 'dependency "approve-release" was rejected' });
      expect(h.spawnsOf("publish")).toBe(0);
      expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
      const state = readState(runDir);
      expect(state.gates["approve-release"]).toMatchObject({ status: "rejected", by: "bob" });
      expect(state.paused).toBeNull();
      expect(state.nodes).toMatchObject({
        "approve-release": { status: "failed" },
        publish: { status: "skipped" },
      });
      expect(state.legs.map((l) => [l.kind, l.outcome])).toEqual([
        ["fresh", "paused"],
        ["reject approve-release", "failed"],
      ]);
      // A rejected gate stays rejected: --retry-failed has nothing it may run.
      const again = await h.resumeRaw(paused.runId, { kind: "retry-failed" });
      expect(again).toMatchObject({
        kind: "nothing_to_retry",
        failed: true,
        message: expect.stringContaining('gate "approve-release", which a person rejected'),
      });
      expect(readState(paused.runDir).legs).toHaveLength(2);
    });

    test("a paused gate is decided by approve/reject only, and only the gate the run waits at", async () => {
      const h = await harness({ plays: unpublishedPlays });
      const paused = await pausedRun(h);
      const retry = await h.resumeRaw(paused.runId, { kind: "retry-failed" });
      expect(retry).toMatchObject({
        kind: "usage_error",
        message: expect.stringContaining("--approve approve-release"),
      });
      const wrong = await h.resumeRaw(paused.runId, { kind: "approve", gate: "publish", by: "alice" });
      expect(wrong).toMatchObject({
        kind: "usage_error",
        message: expect.stringContaining('waiting at gate "approve-release"'),
      });
      // Neither refusal changed the run.
      expect(readState(paused.runDir).legs).toHaveLength(1);
    });

    test("after an approval the run pauses again at the next undecided gate; a second approval finishes it", async () => {
      const h = await harness({
        plays: {
          staging: [reply("deployed to staging")],
          production: [reply("deployed to production")],
        },
      });
      const graph = `
name: two-gates
nodes:
  - id: qa-sign-off
    type: gate
  - id: staging
    depends_on: [qa-sign-off]
    prompt: "STAGE-MARK: deploy to staging."
    allowed_tools: [Read]
  - id: release-sign-off
    type: gate
    depends_on: [staging]
  - id: production
    depends_on: [release-sign-off]
    prompt: "PROD-MARK: deploy to production."
    allowed_tools: [Read]
    success_check: { verify: { command: "test -f README.md" } }
`;
      const first = await h.run(graph);
      expect(readState(first.runDir).paused).toEqual({ reason: "gate", node: "qa-sign-off" });
      expect([h.spawnsOf("staging"), h.spawnsOf("production")]).toEqual([0, 0]);

      const second = await h.resume(first.runId, { kind: "approve", gate: "qa-sign-off", by: "qa" });
      expect(second.ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
      expect(rowWords(second.ledger.rows)).toEqual([
        "qa-sign-off PASS (approved)",
        "staging PASS (exit-only)",
        "release-sign-off SKIPPED",
        "production SKIPPED",
      ]);
      const state2 = readState(second.runDir);
      expect(state2.paused).toEqual({ reason: "gate", node: "release-sign-off" });
      expect(state2.gates).toMatchObject({
        "qa-sign-off": { status: "approved", by: "qa" },
        "release-sign-off": { status: "waiting" },
      });

      const third = await h.resume(first.runId, { kind: "approve", gate: "release-sign-off", by: "lead" });
      expect(rowWords(third.ledger.rows)).toEqual([
        "qa-sign-off PASS (approved)",
        "staging PASS (exit-only)",
        "release-sign-off PASS (approved)",
        "production PASS (verified)",
      ]);
      expect(third.ledger.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
      expect(h.spawnsOf("staging")).toBe(1);
      expect(h.spawnsOf("production")).toBe(1);
      expect(readState(third.runDir).legs.map((l) => [l.kind, l.outcome])).toEqual([
        ["fresh", "paused"],
        ["approve qa-sign-off", "paused"],
        ["approve release-sign-off", "passed"],
      ]);
    });

    test("a gate pause drains a running sibling (it finishes and passes) instead of cancelling it", async () => {
      // `changelog` answers only once the gate has paused the run: it is running during the pause.
      let gatePaused: () => void = () => {};
      const paused = new Promise<void>((resolve) => {
        gatePaused = resolve;
      });
      const h = await harness({
        plays: { ...unpublishedPlays, changelog: [reply("changelog updated", { until: paused })] },
      });
      const { ledger, runDir } = await h.run(
        RELEASE.replace("depends_on: [build, changelog]", "depends_on: [build]"),
        { hooks: { onGatePaused: () => gatePaused() } },
      );
      const events = readEvents(runDir);
      expect(eventIndex(events, "gate_paused", "approve-release")).toBeLessThan(
        eventIndex(events, "node_passed", "changelog"),
      );
      expect(rowWords(ledger.rows)).toEqual([
        "build PASS (verified)",
        "changelog PASS (exit-only)",
        "approve-release SKIPPED",
        "publish SKIPPED",
      ]);
      expect(ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    });
  });

  describe("--retry-failed after a FAIL (research §7.6)", () => {
    test("keeps every PASS, supersedes the FAIL, re-runs the node with its judged reply quoted and its skipped dependents", async () => {
      const firstReply = "The fix needs a decision on negative numbers.";
      const h = await harness({
        plays: {
          plan: [reply("plan: handle negatives")],
          // The model does better on the retry.
          fix: [reply(firstReply), reply("FIXED: negatives rejected")],
          notify: [reply("team told")],
        },
      });
      const graph = `
name: retry-failed
nodes:
  - id: plan
    prompt: "PLAN-MARK: plan the fix."
    allowed_tools: [Read]
  - id: fix
    depends_on: [plan]
    prompt: "FIX-MARK: apply {{ artifacts.plan }}. Start your reply with FIXED."
    allowed_tools: [Read, Edit]
    success_check: { exit_zero: true, result_matches: "^FIXED" }
  - id: notify
    depends_on: [fix]
    prompt: "NOTIFY-MARK: tell the team."
    allowed_tools: [Read]
`;
      const failed = await h.run(graph);
      expect(rowWords(failed.ledger.rows)).toEqual([
        "plan PASS (exit-only)",
        "fix FAIL result_mismatch",
        "notify SKIPPED",
      ]);
      expect(failed.ledger.conclusion).toMatchObject({ conclusion: "failure" });
      expect(readState(failed.runDir).nodes.fix).toMatchObject({ status: "failed", judged: true });

      expect(h.spawnsOf("notify")).toBe(0);
      const { ledger, runDir } = await h.resume(failed.runId, { kind: "retry-failed" });

      expect(rowWords(ledger.rows)).toEqual([
        "plan PASS (exit-only)",
        "fix FAIL result_mismatch superseded",
        "fix PASS (self-reported)",
        "notify PASS (exit-only)",
      ]);
      const retried = h.callsOf("fix")[1]!;
      expect(retried.prompt).toContain("FIX-MARK");
      expect(retried.prompt).toContain("previous-attempt-reply");
      expect(retried.prompt).toContain(`\n${firstReply}\n<<<END DATA nonce=`);
      // A judged retry starts a fresh session, never the failed one's.
      expect(retried.session.kind).toBe("fresh");
      expect(retried.session).not.toEqual(h.callsOf("fix")[0]!.session);
      expect(h.spawnsOf("plan")).toBe(1);
      expect(ledger.conclusion).toMatchObject({ conclusion: "neutral", outcome: "passed" });
      const state = readState(runDir);
      expect(state.nodes).toMatchObject({
        plan: { status: "passed", executions: 1 },
        fix: { status: "passed", executions: 2 },
        notify: { status: "passed", executions: 1 },
      });
      expect(state.legs.map((l) => [l.kind, l.outcome])).toEqual([
        ["fresh", "failed"],
        ["retry-failed", "passed"],
      ]);
    });
  });
});

describe("resume-run: a session limit pauses the run; --retry-failed finishes the rest (SPEC §4; research §5.6)", () => {
  const NIGHTLY = `
name: nightly
nodes:
  - id: fetch
    prompt: "FETCH-MARK: collect yesterday's merged pull requests."
    allowed_tools: [Read]
  - id: summarise
    depends_on: [fetch]
    prompt: "SUMMARISE-MARK: summarise {{ artifacts.fetch }}."
    allowed_tools: [Read]
    retry: { max: 2, on: [run_error] }
  - id: changelog
    depends_on: [fetch]
    prompt: "CHANGELOG-MARK: turn {{ artifacts.fetch }} into changelog entries."
    allowed_tools: [Read]
  - id: publish
    depends_on: [summarise, changelog]
    prompt: "PUBLISH-MARK: publish the digest."
    allowed_tools: [Read]
    success_check: { verify: { command: "test -f README.md" } }
`;
  const limited = claudeSessionLimit("5:20pm (UTC)");

  test("the limited node pauses the run (not a failure, not retried), passed rows are kept; the resumed leg runs only the unpassed nodes and finishes green", async () => {
    const h = await harness({
      plays: {
        fetch: [reply("3 pull requests")],
        // The limit, then (it reset) the same model answers.
        summarise: [limited, reply("digest: 3 changes")],
        changelog: [reply("3 entries", { delayMs: 300 })],
        publish: [reply("published")],
      },
    });
    const paused = await h.run(NIGHTLY);

    expect(paused.ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "paused",
      rule: "paused",
    });
    // The limit is not the node's failure and is not retried, whatever retry.on says.
    expect(h.spawnsOf("summarise")).toBe(1);
    expect(h.spawnsOf("publish")).toBe(0);
    const words = rowWords(paused.ledger.rows);
    expect(words).toContain("fetch PASS (exit-only)");
    expect(words).toContain("changelog PASS (exit-only)");
    expect(words).toContain("publish SKIPPED");
    // The node is shown once: its PAUSED row (which says how to resume), no SKIPPED row repeating it.
    expect(words.filter((w) => w.startsWith("summarise"))).toEqual([
      "summarise PAUSED session_limit, resets 5:20pm (UTC)",
    ]);
    const state1 = readState(paused.runDir);
    expect(state1.paused).toEqual({ reason: "session-limit", node: "summarise", resets_at: "5:20pm (UTC)" });
    expect(state1.nodes).toMatchObject({
      fetch: { status: "passed" },
      summarise: { status: "limited" },
      changelog: { status: "passed" },
      publish: { status: "skipped" },
    });
    expect(state1.gates).toEqual({});
    expect(state1.legs).toEqual([expect.objectContaining({ kind: "fresh", outcome: "paused" })]);
    expect(readEvents(paused.runDir).filter((e) => e.type === "session_limit")).toEqual([
      expect.objectContaining({ node: "summarise", resetsAt: "5:20pm (UTC)" }),
    ]);

    const { ledger, runDir } = await h.resume(paused.runId, { kind: "retry-failed" });

    // Over both legs: the resumed leg ran only summarise and publish.
    const perNode = (name: string) => h.spawnsOf(name);
    expect([perNode("fetch"), perNode("changelog"), perNode("summarise"), perNode("publish")]).toEqual([
      1, 1, 2, 1,
    ]);
    expect(rowWords(ledger.rows)).toEqual([
      "fetch PASS (exit-only)",
      "summarise PAUSED session_limit, resets 5:20pm (UTC)",
      "summarise PASS (exit-only)",
      "changelog PASS (exit-only)",
      "publish PASS (verified)",
    ]);
    expect(ledger.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
    const state2 = readState(runDir);
    expect(state2.paused).toBeNull();
    expect(state2.nodes).toMatchObject({
      fetch: { status: "passed", executions: 1 },
      summarise: { status: "passed", executions: 2 },
      changelog: { status: "passed", executions: 1 },
      publish: { status: "passed", executions: 1 },
    });
    expect(state2.rows).toHaveLength(5);
    expect(state2.legs.map((l) => [l.kind, l.outcome])).toEqual([
      ["fresh", "paused"],
      ["retry-failed", "passed"],
    ]);
    // The summarise output of the second leg is what the run keeps.
    expect(asPass(ledger.rows[2]).sessionId).not.toBe(ledger.rows[1]!.sessionId);

    // Nothing is left: a further --retry-failed says so and runs nothing.
    const again = await h.resumeRaw(paused.runId, { kind: "retry-failed" });
    expect(again.kind).toBe("nothing_to_retry");
    expect([perNode("fetch"), perNode("changelog"), perNode("summarise"), perNode("publish")]).toEqual([
      1, 1, 2, 1,
    ]);
  });
});
