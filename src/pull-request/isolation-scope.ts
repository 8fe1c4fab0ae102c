/**
 * The separate user around a mode that runs PR code in the action (input `isolate-user`; issue 12 item 3;
 * SECURITY.md "A separate user for PR code"): the pull-request modes (`auto`, `run`, `verify`) and `mode:
 * resume` alike. Sets the user up (`proc/isolate-user.ts`), refuses the run where `isolate-user: true` and it
 * cannot be set up, warns where `auto` goes on without it, runs the mode in a child scope (every PR-code
 * child as the user, with a fresh home, temp folder and caches: `proc/run-home.ts`), and when the mode is
 * over kills every process of the user, removes the run's fresh home (saved for the post step first, which
 * removes it where this step could not: `removeLeftRunHome`), hands the files it made back to the engine's
 * user (`proc/hand-back.ts`), removes what it left in the shared temporary folders (`sweepSharedTemp`) and
 * says what it had to kill.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  guardCheckoutGit,
  movedCheckoutGits,
  readCheckoutGitGuard,
  restoreCheckoutGit,
} from "../proc/checkout-git.js";
import { type ChildIdentity, ChildScope } from "../proc/child-identity.js";
import { handBackFiles, reclaimWorkspaceGroup } from "../proc/hand-back.js";
import { type IsolateSetting, setUpIsolation } from "../proc/isolate-user.js";
import { killUserProcesses } from "../proc/leftovers.js";
import { removeRunHome, type SharedCache, sweepSharedTemp } from "../proc/run-home.js";
import { removeScheduledJobs } from "../proc/scheduled-jobs.js";
import { withTrustedGit } from "../proc/trusted-git.js";
import { makeTrustedGitDir, removeTrustedGitDir } from "../proc/trusted-git-dir.js";
import type { Runner } from "./runner.js";
import { SAVED_STATE } from "./saved-state.js";

export interface PrCodeIsolationOptions {
  readonly runner: Runner;
  /** Input `isolate-user`. */
  readonly setting: IsolateSetting;
  /** `GITHUB_WORKSPACE`: writable for the user during the run, handed back after it. */
  readonly workspace: string;
  /** `<RUNNER_TEMP>/evidence-gate/runs`: made private (mode 0700). */
  readonly runsDir: string;
  /** `RUNNER_TEMP`: the model CLIs' homes under `<temp>/evidence-gate` are handed back after the run. */
  readonly temp: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Input `pr-user-cache`: the shared caches kept between runs (`proc/run-home.ts`). */
  readonly sharedCaches: readonly SharedCache[];
  /** Values never passed to git (the run's secrets). */
  readonly knownSecrets: readonly string[];
}

/**
 * Runs `body` with the separate user where it can be set up (see the module comment). `body` gets the
 * set-up's note (for the summaries: what holds, or what does not). Where `isolate-user: true` and the user
 * cannot be set up, `refuse` ends the step instead, with a message naming the input and why (nothing ran).
 * Rejects only when `body` or `refuse` does.
 */
export async function withPrCodeIsolation(
  o: PrCodeIsolationOptions,
  refuse: (message: string, note: string) => Promise<void>,
  body: (note: string) => Promise<void>,
): Promise<void> {
  const { runner } = o;
  const isolation = setUpIsolation({
    setting: o.setting,
    workspace: o.workspace,
    privateDirs: [o.runsDir],
    env: o.env,
    runHomeParent: join(o.temp, "evidence-gate"),
    sharedCaches: o.sharedCaches,
  });
  if (isolation.kind === "off" && isolation.required)
    return refuse(`input \`isolate-user\` is true, but ${isolation.note} Nothing was run.`, isolation.note);
  if (isolation.kind === "off" && o.setting === "auto") runner.warning(isolation.note);
  else runner.info(isolation.note);
  // The post step's last net: it removes the fresh home where this step ends before it could (cancelled).
  if (isolation.kind === "on") runner.saveState(SAVED_STATE.prUserHome, isolation.runHome.root);
  if (isolation.kind === "off" && o.sharedCaches.length > 0)
    runner.info(
      "evidence-gate: pr-user-cache has no effect without the separate user: the verify command uses the runner's own caches.",
    );
  const scope = new ChildScope(isolation.kind === "on" ? isolation.identity : null);
  // Before any PR code runs: the engine's git from here on uses a git directory of its own (ADR 0012).
  const trusted = await makeTrustedGitDir({
    workspace: o.workspace,
    parent: o.runsDir,
    baseEnv: o.env,
    knownSecrets: o.knownSecrets,
  });
  // ... and the checkout's own `.git` is recorded and locked, to be put back when the run ends (the runner's
  // git after the action reads it: actions/checkout's post step, the next job's checkout).
  const guard =
    isolation.kind === "on"
      ? guardCheckoutGit(
          isolation.identity,
          resolve(o.workspace),
          mkdtempSync(join(o.runsDir, ".checkout-git-")),
        )
      : null;
  if (guard !== null && typeof guard !== "string") runner.saveState(SAVED_STATE.checkoutGit, guard.snapshot);
  try {
    if (typeof guard === "string")
      throw new Error(`evidence-gate: ${guard}; nothing of the pull request's code was run.`);
    // A `.git` the pull request moved aside is left out of every tree the engine makes (and so of a push).
    const moved = guard === null ? () => [] : () => movedCheckoutGits(guard);
    await scope.run(() => withTrustedGit(trusted, () => body(isolation.note), moved));
  } finally {
    await removeTrustedGitDir(trusted);
    const identity = scope.identity;
    // First, nothing scheduled may start a process of the user after the kill below (`crontab -`, `at`).
    const unscheduled = identity !== null ? removeScheduledJobs(identity, identity.user) : null;
    if (unscheduled !== null && unscheduled.removed.length > 0)
      runner.warning(
        `evidence-gate: the pull request's code had scheduled jobs as ${identity?.user}, removed: ${unscheduled.removed.join(", ")}.`,
      );
    const killed = scope.leftBehind + (identity !== null ? killUserProcesses(identity) : 0);
    if (killed > 0) {
      runner.warning(
        `evidence-gate: ${killed} process${killed === 1 ? "" : "es"} the pull request's code (the verify command, a model CLI or its tools) left running ${killed === 1 ? "was" : "were"} killed${identity !== null ? ` (every process of ${identity.user} is killed when the run ends)` : ""}.`,
      );
    }
    // Nothing of the user runs now: its fresh home goes, and what it made in the workspace and in the model
    // CLIs' homes is the runner's again.
    const removed =
      isolation.kind === "on" ? removeRunHome(isolation.identity, isolation.runHome.root) : null;
    if (removed === null && isolation.kind === "on") runner.saveState(SAVED_STATE.prUserHome, "");
    const handedBack = [o.workspace, join(o.temp, "evidence-gate")];
    const problems =
      identity !== null
        ? [
            ...(removed !== null ? [removed] : []),
            ...scope.handBackProblems,
            ...handBackFiles(identity, handedBack),
            ...(unscheduled?.problems ?? []),
            // Last: what it left in /tmp, /var/tmp and /dev/shm (its files in the folders above are handed back).
            ...sweepSharedTemp(identity, { keep: [...handedBack, o.temp] }),
          ]
        : [];
    // Nothing of the user runs and what it made is the runner's: the checkout's `.git` goes back.
    if (guard !== null && typeof guard !== "string") {
      const put = restoreCheckoutGit(guard);
      problems.push(...put.problems);
      if (put.restored.length > 0) runner.warning(restoredWarning(put.restored));
      // Put back: the post step must not do it again (a later step — a second actions/checkout — may have
      // made the checkout's `.git` anew, and "putting back" would undo it). Left saved only when something
      // could not be put back, for the post step to try once more.
      if (put.problems.length === 0) {
        rmSync(guard.snapshot, { recursive: true, force: true });
        runner.saveState(SAVED_STATE.checkoutGit, "");
      }
    }
    // Last: the workspace is no longer the user's group's to write (a kept workspace outlives the job).
    if (identity !== null) problems.push(...reclaimWorkspaceGroup(identity, o.workspace));
    for (const problem of problems)
      runner.warning(
        `evidence-gate: ${problem}; later steps of the job may not be able to read or delete those files.`,
      );
  }
}

/** The warning naming what the pull request's code had changed in the checkout's git directories. */
function restoredWarning(restored: readonly string[]): string {
  return `evidence-gate: the pull request's code had changed the checkout's git directories; put back as they were before it ran (nothing it wrote there may run as the runner's user in a later step): ${restored.join(", ")}.`;
}

/**
 * The post step's second line for the checkout's `.git` (`proc/checkout-git.ts`): where the main step saved
 * a snapshot (`STATE_checkout-git`) and did not record that it put `.git` back itself (it saves `""` once it
 * did: a killed or cancelled main step did not), removes the user's scheduled jobs, kills every process of the user,
 * hands what it made in the workspace back to the engine's user, puts every recorded `.git` back as it was
 * before PR code ran (again: the main step did it when it ended, unless it was killed), and removes the
 * snapshot. As root or through `sudo -n`, as the main step.
 *
 * @returns sentences for the log (what was put back, and warnings), empty when nothing was saved.
 */
export function restoreLeftCheckoutGit(env: Readonly<Record<string, string | undefined>>): {
  readonly info: string[];
  readonly warnings: string[];
} {
  const saved = (env[`STATE_${SAVED_STATE.checkoutGit}`] ?? "").trim();
  const guard = saved === "" ? null : readCheckoutGitGuard(saved);
  if (guard === null) return { info: [], warnings: [] };
  const identity: ChildIdentity = { ...guard.identity, home: "" };
  const unscheduled = removeScheduledJobs(identity, identity.user);
  killUserProcesses(identity);
  const handed = handBackFiles(identity, [guard.workspace]);
  const put = restoreCheckoutGit(guard);
  handed.push(...reclaimWorkspaceGroup(identity, guard.workspace));
  rmSync(guard.snapshot, { recursive: true, force: true });
  return {
    info: [
      `evidence-gate post step: checked the checkout's git directories against the snapshot taken before the pull request's code ran${put.restored.length === 0 ? ": unchanged" : ""}.`,
    ],
    warnings: [
      ...(put.restored.length > 0 ? [restoredWarning(put.restored)] : []),
      ...[...unscheduled.problems, ...handed, ...put.problems].map((p) => `evidence-gate post step: ${p}.`),
    ],
  };
}

/**
 * The post step's part (issue 21 item 3): removes the fresh home the main step saved (`STATE_pr-user-home`)
 * and could not remove itself (the step was cancelled or killed), as root or through `sudo -n`.
 *
 * @returns what was done, one sentence for the log, or `null` when nothing was saved or it is gone.
 */
export function removeLeftRunHome(env: Readonly<Record<string, string | undefined>>): string | null {
  const saved = (env[`STATE_${SAVED_STATE.prUserHome}`] ?? "").trim();
  // Nothing saved, or the main step removed it itself (its "" came after the path, or it is simply gone).
  if (saved === "" || !existsSync(saved)) return null;
  const problem = removeRunHome({ via: process.getuid?.() === 0 ? "root" : "sudo" }, saved);
  return problem === null
    ? `evidence-gate post step: removed the separate user's fresh home ${saved}, which the main step left.`
    : `evidence-gate post step: ${problem}.`;
}
