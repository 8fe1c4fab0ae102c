/**
 * The runner-like user of the `*.root.test.ts` e2e tests: GitHub-hosted runners run the action as an
 * unprivileged user with passwordless sudo (`runner`); these tests create, idempotently, the user
 * `eg-runner` with a home and a sudoers drop-in (`eg-runner ALL=(ALL) NOPASSWD:ALL`, mode 0440, checked
 * with `visudo -cf`), and install Debian's `sudo` package first when it is missing (as root, so that
 * `npm test` alone runs them; CI's `.ci/run` installs it first).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** The runner-like user's login name. */
export const RUNNER_USER = "eg-runner";
const SUDOERS = `/etc/sudoers.d/${RUNNER_USER}`;
const SUDOERS_LINE = `${RUNNER_USER} ALL=(ALL) NOPASSWD:ALL\n`;

/**
 * Makes sure `sudo`, the user {@link RUNNER_USER} and its sudoers drop-in exist (see the module comment).
 * NEEDS ROOT.
 *
 * @returns the user's uid and primary gid.
 * @throws Error when `sudo` is missing and cannot be installed, or a command fails.
 */
export function ensureRunnerUser(): { readonly uid: number; readonly gid: number } {
  if (spawnSync("sudo", ["-V"]).status !== 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const installed =
      spawnSync("apt-get", ["update", "-qq"], { env, stdio: "ignore" }).status === 0 &&
      spawnSync("apt-get", ["install", "-y", "-qq", "sudo"], { env, stdio: "ignore" }).status === 0;
    if (!installed || spawnSync("sudo", ["-V"]).status !== 0)
      throw new Error("sudo is not installed and `apt-get install -y sudo` failed: install it as root");
  }
  if (spawnSync("id", ["-u", RUNNER_USER]).status !== 0)
    execFileSync("useradd", ["--create-home", "--user-group", "--shell", "/bin/bash", RUNNER_USER]);
  if (!existsSync(SUDOERS) || readFileSync(SUDOERS, "utf8") !== SUDOERS_LINE) {
    const draft = `${SUDOERS}.draft`;
    writeFileSync(draft, SUDOERS_LINE, { mode: 0o440 });
    chmodSync(draft, 0o440);
    execFileSync("visudo", ["-cf", draft]);
    renameSync(draft, SUDOERS);
  }
  return {
    uid: Number(execFileSync("id", ["-u", RUNNER_USER]).toString().trim()),
    gid: Number(execFileSync("id", ["-g", RUNNER_USER]).toString().trim()),
  };
}
