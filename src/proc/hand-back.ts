/**
 * Handing the files the separate user made back to the engine's user (issue 12 leftovers; SECURITY.md "A
 * separate user for PR code"). A file the verify command or a model's tool creates in the workspace belongs
 * to `evidence-gate-pr`; the runner's user — the engine's own git committing and pushing them with `push:
 * true` (when the engine is not root), later steps of the job reading or deleting them, the runner cleaning
 * the workspace — may not be able to read a file it made 0600, nor write into a folder it made 0755.
 *
 * So, whenever no PR code runs any more — when a leg ends, before the engine reads the final working tree
 * and commits it (`finish-run.ts`), and when the action's step ends — every process of the user is killed
 * first (nothing of it can swap a path for a symbolic link meanwhile), then, as root or through `sudo -n`:
 * 1. `find <dir> -user <uid> ! -type l -exec chmod g+rwX {} +`: the user's files get group read/write, so
 *    that a later cycle of the same run (the group is the user's: setgid folders) can still change them;
 * 2. `chown -R -h --from=<uid> <engine uid> <dir>`: only what the user owns changes owner, to the engine's
 *    user (the runner's); `-h` and `-R` (which follows no link) change a link itself, never its target, and
 *    the kernel drops the set-user-ID and set-group-ID bits of every regular file whose owner changes. The
 *    group stays the user's group, which the set-up gave the whole workspace (`isolate-user.ts`).
 */
import { spawnSync } from "node:child_process";
import {
  type ChildIdentity,
  currentChildScope,
  privileged,
  runPrivileged,
  SYSTEM_TOOLS_ENV,
} from "./child-identity.js";
import { killUserProcesses } from "./leftovers.js";

/**
 * Hands what `identity`'s user owns under each of `dirs` (absolute; missing ones skipped) to the user `owner`
 * (a uid; default the engine's own, `process.getuid()`), as the module comment says. Call it only when no
 * process of the user runs (see {@link handBackPrCodeFiles}).
 *
 * @returns one sentence per folder it could not hand back (the command and its first error line), empty when
 *   all went.
 */
export function handBackFiles(
  identity: ChildIdentity,
  dirs: readonly string[],
  owner: number = process.getuid?.() ?? 0,
): string[] {
  const problems: string[] = [];
  const uid = String(identity.uid);
  for (const dir of dirs) {
    for (const step of [
      ["find", dir, "-user", uid, "!", "-type", "l", "-exec", "chmod", "g+rwX", "{}", "+"],
      ["chown", "-R", "-h", `--from=${uid}`, String(owner), dir],
    ]) {
      const [file, ...args] = privileged(identity, step);
      const done = spawnSync(file as string, args, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
      if (done.status === 0) continue;
      const why = (done.stderr ?? String(done.error ?? "")).trim().split("\n")[0] ?? "";
      // A folder that is gone has nothing to hand back (a run removed its own temporary folder).
      if (/No such file or directory/.test(why) && step[0] === "find" && why.includes(`'${dir}'`)) break;
      problems.push(
        `could not hand ${dir} back from ${identity.user} (${step[0]} exited ${done.status ?? done.signal}: ${why})`,
      );
      break;
    }
  }
  return problems;
}

/**
 * Takes the workspace back from the separate user's group once no PR code runs any more (the fifth attack:
 * on a self-hosted runner, workspaces stay on disk between jobs, and one left `chgrp evidence-gate-pr` with
 * group write let a later job's PR code — the same user — rename another repository's `.git` aside and plant
 * a copy its next `actions/checkout` ran as the runner's user). Every entry under `workspace` whose group is
 * the user's goes to `group` (the engine's own), without following links, and the set-group-id bit the
 * set-up put on its folders is taken off. Run as root or through `sudo -n`, as the set-up.
 *
 * @returns one sentence per step that failed (for the log), empty when all went.
 */
export function reclaimWorkspaceGroup(
  identity: Pick<ChildIdentity, "gid" | "user" | "via">,
  workspace: string,
  group: number = process.getgid?.() ?? 0,
): string[] {
  const steps = [
    [
      "find",
      workspace,
      "-xdev",
      "-group",
      String(identity.gid),
      "-exec",
      "chgrp",
      "-h",
      String(group),
      "{}",
      "+",
    ],
    ["find", workspace, "-xdev", "-type", "d", "-perm", "-2000", "-exec", "chmod", "g-s", "{}", "+"],
  ];
  return steps.flatMap((step) => {
    const failed = runPrivileged(identity, step);
    return failed === null
      ? []
      : [`could not take ${workspace} back from ${identity.user}'s group (${failed})`];
  });
}

/**
 * When the run's PR-code children run as a separate user (inside `withChildIdentity`): kills every process
 * of that user still running (counted in the scope's `leftBehind`), then hands what it owns under `dirs`
 * back to the engine's user ({@link handBackFiles}; a failure is kept in the scope's `handBackProblems`
 * for the log). Does nothing outside such a scope. Never throws.
 */
export function handBackPrCodeFiles(dirs: readonly string[]): void {
  const scope = currentChildScope();
  if (scope === null || scope.identity === null) return;
  scope.leftBehind += killUserProcesses(scope.identity);
  scope.handBackProblems.push(...handBackFiles(scope.identity, dirs));
}

/**
 * {@link handBackPrCodeFiles} before the engine's own git reads the working tree between two pieces of PR
 * code (a sink's evidence tree and git-ignored files, before and after its verify command), and only where
 * the engine is not root: a root engine reads every file as it is, while the runner's user (the `sudo`
 * path) cannot read a file the user made 0600 or enter a folder it made 0700, and the evidence tree would
 * be unknown (`test/e2e/action-isolate-sudo.root.test.ts`). Call it only when no PR code runs (it kills
 * every process of the user). Does nothing outside a scope with the user. Never throws.
 */
export function handBackBeforeEngineReads(dirs: readonly string[]): void {
  if (process.getuid?.() === 0) return;
  handBackPrCodeFiles(dirs);
}
