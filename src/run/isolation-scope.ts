/**
 * The separate user around a mode that runs PR code in the action (input `isolate-user`; issue 12 item 3;
 * SECURITY.md "A separate user for PR code"): the pull-request modes (`auto`, `run`, `verify`) and `mode:
 * resume` alike. Sets the user up (`proc/isolate-user.ts`), refuses the run where `isolate-user: true` and it
 * cannot be set up, warns where `auto` goes on without it, runs the mode in a child scope (every PR-code
 * child as the user), and when the mode is over kills every process of the user, hands the files it made
 * back to the engine's user (`proc/hand-back.ts`) and says what it had to kill.
 */
import { join } from "node:path";
import { ChildScope } from "../proc/child-identity.js";
import { handBackFiles } from "../proc/hand-back.js";
import { type IsolateSetting, setUpIsolation } from "../proc/isolate-user.js";
import { killUserProcesses } from "../proc/leftovers.js";
import { withTrustedGit } from "../proc/trusted-git.js";
import { makeTrustedGitDir, removeTrustedGitDir } from "../proc/trusted-git-dir.js";
import type { Runner } from "./runner.js";

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
  });
  if (isolation.kind === "off" && isolation.required)
    return refuse(`input \`isolate-user\` is true, but ${isolation.note} Nothing was run.`, isolation.note);
  if (isolation.kind === "off" && o.setting === "auto") runner.warning(isolation.note);
  else runner.info(isolation.note);
  const scope = new ChildScope(isolation.kind === "on" ? isolation.identity : null);
  // Before any PR code runs: the engine's git from here on uses a git directory of its own (ADR 0012).
  const trusted = await makeTrustedGitDir({
    workspace: o.workspace,
    parent: o.runsDir,
    baseEnv: o.env,
    knownSecrets: o.knownSecrets,
  });
  try {
    await scope.run(() => withTrustedGit(trusted, () => body(isolation.note)));
  } finally {
    await removeTrustedGitDir(trusted);
    const identity = scope.identity;
    const killed = scope.leftBehind + (identity !== null ? killUserProcesses(identity) : 0);
    if (killed > 0) {
      runner.warning(
        `evidence-gate: ${killed} process${killed === 1 ? "" : "es"} the pull request's code (the verify command, a model CLI or its tools) left running ${killed === 1 ? "was" : "were"} killed${identity !== null ? ` (every process of ${identity.user} is killed when the run ends)` : ""}.`,
      );
    }
    // Nothing of the user runs now: what it made in the workspace and in its homes is the runner's again.
    const problems =
      identity !== null
        ? [
            ...scope.handBackProblems,
            ...handBackFiles(identity, [o.workspace, join(o.temp, "evidence-gate")]),
          ]
        : [];
    for (const problem of problems)
      runner.warning(
        `evidence-gate: ${problem}; later steps of the job may not be able to read or delete those files.`,
      );
  }
}
