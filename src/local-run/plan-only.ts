/**
 * `plan`: `auto` without the run (SPEC §2 "`plan` (= auto --plan-only)", §11). The same planning half as
 * `auto` (`src/engine/auto-plan.ts`): the build-evidence decision before any model call, the planner call
 * repaired once, the trusted mutations — the verify command attached to every sink, each planned node's
 * tool ceiling, with the loaded-user-config opt-in if given — and the plan section with its one
 * tool-ceiling disclosure slot (seed 001 §2.6). No node runs, no run directory is made, no check run is
 * created; the planner call is the only thing spent.
 */
import { type AutoPlanResult, planAuto, startPlanning } from "../engine/auto-plan.js";
import { executableFor, missingCliProblem } from "../engine/runtime-setup.js";
import type { RunModeRequest, RunPorts, RunRequest } from "../run/request.js";

/** What `plan` answers: why nothing was planned, or the plan (planned, or rejected after its repair). */
export type PlanOnlyResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string }
  | AutoPlanResult;

/** A request for `auto`'s planning half: an `auto` mode, and no run directory. */
export type PlanRequest = Omit<RunRequest, "mode" | "runsDir" | "runId" | "commit"> & {
  readonly mode: Extract<RunModeRequest, { readonly kind: "auto" }>;
};

/** Plans `request.mode.goal` as `auto` would, and stops there. Rejects only on internal errors. */
export async function planOnly(
  request: PlanRequest,
  ports: Pick<RunPorts, "modelCli" | "signal">,
): Promise<PlanOnlyResult> {
  const { mode, policy } = request;
  const options = {
    goal: mode.goal,
    repoDir: request.repoDir,
    ...(request.workingDirectory !== undefined ? { workingDirectory: request.workingDirectory } : {}),
    verify: mode.verify,
    verifyTimeoutMs: request.verifyTimeoutMs ?? 10 * 60_000,
    acceptNoBuildEvidence: mode.acceptNoBuildEvidence,
    acceptLoadedUserConfig: mode.acceptLoadedUserConfig,
    runtime: mode.runtime,
    ...(request.codexConfig.length + (ports.modelCli.codexConfig?.length ?? 0) > 0
      ? { codexConfig: [...request.codexConfig, ...(ports.modelCli.codexConfig ?? [])] }
      : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    surface: request.surface,
    ...(policy !== undefined ? { policy } : {}),
  };
  const started = await startPlanning(options);
  if (started.kind !== "ready") return started;
  const executable = executableFor(mode.runtime, ports.modelCli);
  const missingCli = missingCliProblem(mode.runtime, executable, request.baseEnv);
  if (missingCli !== null) return { kind: "usage_error", message: missingCli };
  return planAuto(options, started, {
    executable,
    env: ports.modelCli.modelEnv("planner", mode.runtime),
    timeoutMs: mode.plannerTimeoutMs,
    ...(ports.signal ? { signal: ports.signal } : {}),
    // The model calls the surface was handed (the port tier's scripted stand-in), as `auto` passes them.
    ...(ports.modelCli.modelCalls !== undefined ? { modelCalls: ports.modelCli.modelCalls } : {}),
  });
}
