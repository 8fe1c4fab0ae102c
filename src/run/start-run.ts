/**
 * The run service's one entry (issue 10): `startRun(request, ports)` turns a decided {@link RunRequest}
 * into the engine driver of its mode (`runAuto`, `runHandWritten`, `runVerifyOnly`, `resumeRun`), with
 * the options every driver takes alike filled once from the request and the ports, and returns the
 * engine's answer. Surfaces open and close their reports around it; none of them builds engine options.
 *
 * A request with a `timeout` gets a signal that is aborted with a {@link RunTimedOut} when the bound is
 * reached (over the surface's own interrupt signal): the engine stops the run as for a cancel and ends it
 * `timed-out`.
 *
 * A crash (the engine threw: an internal error) is told to `ports.crashed` before it goes on, so the
 * surface can complete its check run `failure`; the workspace port's `finish` runs either way.
 */

import { RunTimedOut } from "../core/run-timeout.js";
import { unreachable } from "../core/unreachable.js";
import { type AutoRunOptions, type AutoRunResult, runAuto } from "../engine/auto-run.js";
import { runGoalLoop } from "../engine/goal-loop.js";
import { runHandWritten } from "../engine/hand-run.js";
import { resumeRun } from "../engine/resume-run.js";
import type { EngineRunBase } from "../engine/run-options.js";
import type { CliSetupFailure, Runtime } from "../engine/runtime-setup.js";
import { runVerifyOnly } from "../engine/verify-run.js";
import type { VerifyBaseSetting } from "../evidence/base-verify.js";
import type { OutcomeOf, RunModeRequest, RunOutcome, RunPorts, RunRequest } from "./request.js";

/**
 * Runs `request` through the engine. Resolves to the engine's answer (a usage error, a refusal, an invalid
 * graph, nothing to retry, or a finished run with its ledger); rejects only on internal errors, after
 * `ports.crashed` was told.
 */
export async function startRun<K extends RunModeRequest["kind"]>(
  request: RunRequest & { readonly mode: Extract<RunModeRequest, { readonly kind: K }> },
  ports: RunPorts,
): Promise<OutcomeOf<K>> {
  const bound = request.timeout;
  const timer = bound !== undefined ? new AbortController() : null;
  const timeout =
    bound !== undefined && timer !== null
      ? setTimeout(() => timer.abort(new RunTimedOut(bound.limit, bound.setting)), bound.ms)
      : null;
  const signal =
    timer === null
      ? ports.signal
      : ports.signal
        ? AbortSignal.any([ports.signal, timer.signal])
        : timer.signal;
  try {
    return (await dispatch(request, signal !== undefined ? { ...ports, signal } : ports)) as OutcomeOf<K>;
  } catch (error) {
    await ports.crashed?.(error);
    throw error;
  } finally {
    if (timeout !== null) clearTimeout(timeout);
    await ports.workspace?.finish?.();
  }
}

/**
 * The run's `verify-repeat`: the larger of the request's and the policy file's (the policy is a floor a
 * workflow cannot lower); nothing when that is one run.
 */
function verifyRepeatOf(request: RunRequest): { verifyRepeat?: number } {
  const repeat = Math.max(request.verifyRepeat ?? 1, request.policy?.verifyRepeat ?? 1);
  return repeat > 1 ? { verifyRepeat: repeat } : {};
}

/**
 * The run's `verify-base` (ADR 0017): on when the request or the policy file asks; the base is the pull
 * request's base SHA, else the merge-base with `--base`, else the start commit's first parent.
 */
function verifyBaseOf(request: RunRequest): { verifyBase?: VerifyBaseSetting } {
  if (request.verifyBase !== true && request.policy?.verifyBase !== true) return {};
  if (request.pr?.baseSha !== undefined) return { verifyBase: { commit: request.pr.baseSha } };
  if (request.verifyBaseRef !== undefined) return { verifyBase: { ref: request.verifyBaseRef } };
  return { verifyBase: {} };
}

/** The options every driver takes alike (`EngineRunBase`), from the request and the ports. */
export function engineBase(request: RunRequest, ports: RunPorts): EngineRunBase {
  const { modelCli, workspace } = ports;
  const before = workspace?.beforeFirstModelCall;
  const install = modelCli.beforeFirstModelCall;
  return {
    runsDir: request.runsDir,
    surface: request.surface,
    commit: request.commit,
    ...(workspace?.publish !== undefined ? { publish: workspace.publish } : {}),
    // Read when the engine spawns: the action finds or installs the CLI in `beforeFirstModelCall`.
    get claudeExecutable(): string {
      return modelCli.claudeExecutable;
    },
    get codexExecutable(): string {
      return modelCli.codexExecutable;
    },
    // The operator's pairs, then the run's own (the key proxy's provider: last wins, so it points codex there).
    ...(request.codexConfig.length + (modelCli.codexConfig?.length ?? 0) > 0
      ? { codexConfig: [...request.codexConfig, ...(modelCli.codexConfig ?? [])] }
      : {}),
    modelEnv: modelCli.modelEnv,
    ...(modelCli.modelCalls !== undefined ? { modelCalls: modelCli.modelCalls } : {}),
    ...(before !== undefined || install !== undefined
      ? {
          // The workspace first (the agent-configuration swap), then the CLI install: a refused run does neither.
          beforeFirstModelCall: async (runtime: Runtime): Promise<string | CliSetupFailure | null> =>
            (await before?.()) ?? (await install?.(runtime)) ?? null,
        }
      : {}),
    ...(workspace?.indexOverlay !== undefined ? { indexOverlay: workspace.indexOverlay } : {}),
    baseEnv: request.baseEnv,
    knownSecrets: request.knownSecrets,
    ...verifyRepeatOf(request),
    ...verifyBaseOf(request),
    ...(request.testReports !== undefined && request.testReports.length > 0
      ? { testReports: request.testReports }
      : {}),
    ...(ports.echo !== undefined ? { echo: ports.echo } : {}),
    ...(ports.signal !== undefined ? { signal: ports.signal } : {}),
    ...(ports.hooks !== undefined ? { hooks: ports.hooks } : {}),
    ...(request.runId !== undefined ? { runId: request.runId } : {}),
  };
}

/** A verify command's timeout when the request names none (SPEC §11 `verify-timeout` default). */
export const DEFAULT_VERIFY_TIMEOUT_MS = 10 * 60_000;

/**
 * `base` with `own` over it, keeping `base`'s getters as getters (the executables are read when the engine
 * spawns, after the action's install): a spread would read them now.
 */
function withBase<T extends object>(base: EngineRunBase, own: T): EngineRunBase & T {
  const merged = Object.defineProperties({}, Object.getOwnPropertyDescriptors(base));
  return Object.defineProperties(merged, Object.getOwnPropertyDescriptors(own)) as EngineRunBase & T;
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/**
 * `auto` once, or with `max-cycles` above 1 the goal loop (SPEC §7; issue 13 item 7), whose result is the
 * last cycle's run plus its cycles (an `AutoRunResult` still, so every surface reports it the same way).
 */
function autoOrGoalLoop(
  mode: Extract<RunModeRequest, { readonly kind: "auto" }>,
  options: AutoRunOptions,
): Promise<AutoRunResult> {
  if (mode.maxCycles === undefined || mode.maxCycles <= 1) return runAuto(options);
  return runGoalLoop(options, {
    maxCycles: mode.maxCycles,
    ...(mode.maxCostUsd !== undefined ? { maxCostUsd: mode.maxCostUsd } : {}),
  });
}

async function dispatch(request: RunRequest, ports: RunPorts): Promise<RunOutcome> {
  const base = engineBase(request, ports);
  const { mode, policy } = request;
  const where = {
    repoDir: request.repoDir,
    ...optional("workingDirectory", request.workingDirectory),
    ...optional("postedHeadSha", request.postedHeadSha),
  };
  // What every mode's engine takes of the policy; `auto` adds its planned-tools allowlist.
  const judgedPolicy =
    policy !== undefined
      ? {
          requireEvidence: policy.requireEvidence,
          ...optional("requireTests", policy.requireTests),
          ...optional("testReports", policy.testReports),
          ...optional("verifyRepeat", policy.verifyRepeat),
          ...optional("verifyBase", policy.verifyBase),
          ...optional("source", policy.source),
        }
      : undefined;
  const judged = judgedPolicy !== undefined ? { policy: judgedPolicy } : {};
  switch (mode.kind) {
    case "auto":
      // An empty verify command (from the input or the policy) is the usage error `decideBuildEvidence`
      // reports before anything runs; the choice itself was made once, by the surface.
      return autoOrGoalLoop(
        mode,
        withBase(base, {
          ...where,
          goal: mode.goal,
          verify: mode.verify,
          verifyTimeoutMs: request.verifyTimeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS,
          verifyEnv: request.verifyEnv ?? [],
          acceptNoBuildEvidence: mode.acceptNoBuildEvidence,
          acceptLoadedUserConfig: mode.acceptLoadedUserConfig,
          ...(mode.repairAttempts !== undefined ? { repairAttempts: mode.repairAttempts } : {}),
          ...(policy !== undefined && judgedPolicy !== undefined
            ? { policy: { ...judgedPolicy, ...optional("plannedTools", policy.plannedTools) } }
            : {}),
          runtime: mode.runtime,
          ...optional("model", request.model),
          concurrency: mode.concurrency,
          onFail: request.continueOnFail === true ? "continue" : "halt",
          ...(request.pr !== undefined
            ? { pr: { ...request.pr, title: request.pr.title ?? "", body: request.pr.body ?? "" } }
            : {}),
          plannerTimeoutMs: mode.plannerTimeoutMs,
        }),
      );
    case "run":
      return runHandWritten(
        withBase(base, {
          ...where,
          graphText: mode.graphText,
          graphSource: mode.graphSource,
          ...optional("fragments", mode.fragments),
          ...optional("agents", mode.agents),
          inputs: mode.inputs,
          ...optional("concurrency", mode.concurrency),
          continueOnFail: request.continueOnFail === true,
          ...optional("verifyTimeoutCeilingMs", mode.verifyTimeoutCeilingMs),
          verifyEnv: request.verifyEnv ?? [],
          runtime: mode.runtime,
          ...optional("model", request.model),
          ...optional("pr", request.pr),
          ...judged,
        }),
      );
    case "verify":
      return runVerifyOnly(
        withBase(base, {
          ...where,
          verifyCmd: mode.verify.command,
          declaredBy: mode.verify.declaredBy,
          verifyTimeoutMs: request.verifyTimeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS,
          verifyEnv: request.verifyEnv ?? [],
          ...optional("pr", request.pr),
          ...judged,
        }),
      );
    case "resume":
      return resumeRun(
        withBase(base, {
          runId: mode.runId,
          action: mode.action,
          ...optional("headSha", mode.headSha),
          ...optional("repoDir", mode.repoDirOverride),
          ...optional("concurrency", mode.concurrency),
          ...optional("runtime", mode.runtime),
        }),
      );
    default:
      return unreachable(mode);
  }
}
