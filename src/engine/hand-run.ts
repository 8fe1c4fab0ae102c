/**
 * `run`: a hand-written graph end to end (SPEC §2, §3, §4). Load and validate the graph (every issue, or
 * nothing runs) → check the inputs it references were given (`hand-graph.ts`) → the repository checks
 * every run makes → the run opened (`fresh-run.ts`) → one leg of the engine (`leg.ts`) → the ledger and
 * its conclusion (`finish-run.ts`).
 *
 * No build-evidence refusal applies: `run` trusts the graph's own verify commands (SPEC §5; a completion
 * command too), and each node gets only its own `allowed_tools` (no ceiling; SPEC §8). The answer
 * recorded is `graph`, naming which sinks verify (`hand-plan.ts`).
 */

import { receiptSettingsOf } from "../evidence/verify.js";
import type { GraphIssue } from "../graph/issue.js";
import type { FragmentSource } from "../graph/load.js";
import type { AgentSource } from "../policy/agent-definition.js";
import type { Runtime } from "../policy/disclosure.js";
import { snapshotLedger } from "./finish-run.js";
import {
  frameCommit,
  gitContextOf,
  graphCommitSubject,
  ignoredBaselineOf,
  openFreshRun,
  prepareFreshRepository,
  type RecordedPolicy,
  startRunState,
} from "./fresh-run.js";
import { agentsAtCommit } from "./hand-agents.js";
import { type HandGraphOptions, loadHandWrittenGraph } from "./hand-graph.js";
import { handWrittenPlan } from "./hand-plan.js";
import { type FinishedLeg, legCaller, runLegAndFinish } from "./leg.js";
import type { EngineRunBase, PullRequestContext } from "./run-options.js";
import { modelCliEnd, modelCliProblem, type SetupFailed } from "./runtime-setup.js";

/** Everything `run` needs, parsed and checked by the entry point. Times in ms. */
export interface HandRunOptions extends EngineRunBase {
  /** The graph file's text (the CLI reads the file; the action reads it from the base ref). */
  readonly graphText: string;
  /** Where it came from, for messages and the ledger: a path, or `base ref main: .github/graph.yml`. */
  readonly graphSource: string;
  /** Where the graph's `use:` fragments are read ({@link HandGraphOptions.fragments}). */
  readonly fragments?: FragmentSource;
  /**
   * Where `agent: NAME` definitions are read ({@link HandGraphOptions.agents}); default: the repository's
   * committed HEAD (`git cat-file`, never the working tree).
   */
  readonly agents?: AgentSource;
  /** `--input NAME=VALUE` values. */
  readonly inputs: Readonly<Record<string, string>>;
  readonly repoDir: string;
  readonly workingDirectory?: string;
  /** `--concurrency N` (1..10): overrides the graph's `concurrency`. */
  readonly concurrency?: number;
  /** `--continue-on-fail`: ORs with the graph's `on_fail: continue`. */
  readonly continueOnFail: boolean;
  /** Largest `success_check.verify.timeout` allowed (SPEC §3: configurable, default 10 min). */
  readonly verifyTimeoutCeilingMs?: number;
  readonly verifyEnv: readonly string[];
  /** Which CLI every agent node runs (SPEC §4; `--runtime` / input `runtime`), recorded in `state.json`. */
  readonly runtime: Runtime;
  /** `--model` (claude) / `-m` (codex); default: the CLI's own. */
  readonly model?: string;
  readonly pr?: PullRequestContext;
  readonly postedHeadSha?: string;
  /** Base-branch policy: `require-evidence` turns every unverified `neutral` into `failure`. */
  readonly policy?: RecordedPolicy;
}

export type HandRunResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | SetupFailed
  /** The graph did not load: every issue, each rendered `invalid graph: node "ID": REASON`. */
  | { readonly kind: "invalid_graph"; readonly issues: readonly GraphIssue[]; readonly message: string }
  | FinishedLeg;

/** Runs a hand-written graph. Rejects only on internal errors (the entry point fails the check run then). */
export async function runHandWritten(o: HandRunOptions): Promise<HandRunResult> {
  // The CLI's subagents come from the committed HEAD; the action passes its base-ref source.
  const loaded = await loadHandWrittenGraph({
    ...o,
    agents: o.agents ?? agentsAtCommit(o.repoDir, { baseEnv: o.baseEnv }),
  });
  if (loaded.kind !== "loaded") return loaded;
  const { graph, warnings, fragments, agents } = loaded;
  const gitContext = gitContextOf(o);
  const prepared = await prepareFreshRepository(o, { commit: o.commit, gitContext });
  if (!prepared.ok) return { kind: "usage_error", message: prepared.message };
  const { repo } = prepared;
  const hasAgents = graph.nodes.some((n) => n.type !== "gate");
  const cliProblem = await modelCliProblem(o, o.runtime, { findExecutable: hasAgents });
  if (cliProblem !== null) return modelCliEnd(cliProblem);

  const { answer, policies, plan } = handWrittenPlan(graph, {
    surface: o.surface,
    runtime: o.runtime,
    ...(o.policy !== undefined ? { policy: o.policy } : {}),
    warnings,
    fragments,
    agents,
  });
  const frame = openFreshRun(o, {
    mode: "run",
    leg: "fresh",
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    repo,
    gitContext,
    answer,
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
    requireEvidence: o.policy?.requireEvidence === true,
    commit: frameCommit(o, graphCommitSubject(graph.name, o.graphSource, repo.repoDir)),
  });
  const concurrency = o.concurrency ?? graph.concurrency;
  const onFail = o.continueOnFail || graph.on_fail === "continue" ? "continue" : "halt";
  frame.dir.writeJson("graph.json", graph.spec);
  const store = startRunState(frame, {
    graphSource: o.graphSource,
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    inputs: o.inputs,
    repo,
    concurrency,
    onFail,
    // For `run` the recorded timeout is the ceiling the graph was validated with (resume re-validates).
    verify: {
      timeout_ms: o.verifyTimeoutCeilingMs ?? 10 * 60_000,
      env: [...o.verifyEnv],
      ...(o.verifyRepeat !== undefined ? { repeat: o.verifyRepeat } : {}),
    },
    ...(o.policy ? { policy: o.policy } : {}),
    toolPolicies: policies,
    plan,
  });
  await o.hooks?.onRunStarted?.(frame.runId, frame.dir.path);
  await o.hooks?.onPlan?.(frame.redactor.deep(plan));
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: [], calls: [] }), "plan");
  const ignoredBaseline = await ignoredBaselineOf(frame, o.runsDir);
  const finished = await runLegAndFinish({
    frame,
    store,
    graph,
    plan,
    calls: [],
    workDir: repo.workDir,
    inputs: o.inputs,
    policies,
    concurrency,
    onFail,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    verify: {
      baseEnv: o.baseEnv,
      passThrough: o.verifyEnv,
      knownSecrets: o.knownSecrets,
      ignoredBaseline,
      ...(o.verifyRepeat !== undefined ? { repeat: o.verifyRepeat } : {}),
      receipts: receiptSettingsOf(o.policy, o.testReports),
      ...(o.verifyBase !== undefined ? { base: o.verifyBase } : {}),
    },
    ...legCaller(o),
  });
  return { kind: "finished", ...finished, warnings };
}
