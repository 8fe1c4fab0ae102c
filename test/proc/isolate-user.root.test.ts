/**
 * The separate user for PR code, for real (issue 12 item 3; SECURITY.md "A separate user for PR code"):
 * NEEDS ROOT — it creates a user (`eg-isolate-probe`, set up as the action sets up `evidence-gate-pr`) on this machine with `useradd` (idempotently) and
 * switches to it with `setpriv`, as the action does when it runs as root. Every probe below is a real
 * read or write by a process of that user; the table in SECURITY.md is these results.
 *
 * "The engine" is this test's own process (root, as the action's engine is here); "RUNNER_TEMP" is a
 * folder made the way the runner makes its own (default umask, the file-command files inside it 0644).
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runVerify } from "../../src/evidence/verify.js";
import { type ChildIdentity, withChildIdentity } from "../../src/proc/child-identity.js";
import { ISOLATED_USER, type Isolation, setUpIsolation } from "../../src/proc/isolate-user.js";
import { killUserProcesses } from "../../src/proc/leftovers.js";
import { sweepSharedTemp } from "../../src/proc/run-home.js";
import { runProcess } from "../../src/proc/run-process.js";
import { eventually, minimalEnv, processIsGone } from "./process-probe.js";

const root = mkdtempSync(join(tmpdir(), "eg-isolate-"));
const workspace = join(root, "workspace");
const temp = join(root, "runner-temp");
const runsDir = join(temp, "evidence-gate", "runs");
const fileCommand = join(temp, "_runner_file_commands", "set_output_1");
const runHomeParent = join(temp, "evidence-gate");
const runnerHome = userInfo().homedir;
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The user this file creates, set up exactly as the action sets up {@link ISOLATED_USER} — but not that
 * user: this file kills every process of its user (`killUserProcesses`), and the action's e2e tests run
 * as `evidence-gate-pr` in the other vitest worker at the same time.
 */
const PROBE_USER = "eg-isolate-probe";

let identity: ChildIdentity;

beforeAll(() => {
  mkdirSync(workspace, { recursive: true });
  execFileSync("git", ["init", "-q", workspace]);
  // What actions/checkout leaves with persist-credentials: true (the default): the token in .git/config.
  execFileSync("git", [
    "-C",
    workspace,
    "config",
    "http.https://github.com/.extraheader",
    "AUTHORIZATION: basic c2VjcmV0",
  ]);
  writeFileSync(join(workspace, "package.json"), '{"name":"probe"}\n');
  mkdirSync(join(runsDir, "run-1"), { recursive: true });
  writeFileSync(join(runsDir, "run-1", "state.json"), '{"runId":"run-1"}\n');
  mkdirSync(join(temp, "_runner_file_commands"), { recursive: true });
  writeFileSync(fileCommand, "");
  writeFileSync(join(temp, "cache-note.txt"), "runner temp file\n");
});

/** A shell line that prints `name=yes` when `test` succeeds as the user, else `name=no`. */
const probe = (name: string, test: string) =>
  `if ${test} >/dev/null 2>&1; then echo ${name}=yes; else echo ${name}=no; fi`;

/** Runs `script` with `sh -c` as the user, started plainly with setpriv (not through the exec seam). */
const asTheUser = (script: string): Buffer =>
  execFileSync(identity.setpriv, [
    `--reuid=${identity.uid}`,
    `--regid=${identity.gid}`,
    "--init-groups",
    "--",
    "sh",
    "-c",
    script,
  ]);

async function asUser(script: string): Promise<Record<string, string>> {
  const lines: string[] = [];
  const result = await withChildIdentity(identity, () =>
    runProcess({
      command: script,
      shell: true,
      cwd: workspace,
      env: minimalEnv(),
      prCode: true,
      onStdoutLine: (line) => void lines.push(line),
    }),
  );
  expect(result.kind).toBe("exited");
  return Object.fromEntries(
    lines.filter((l) => l.includes("=")).map((l) => l.split("=", 2) as [string, string]),
  );
}

describe("isolate-user where it cannot be set up", () => {
  it("off, or not root without passwordless sudo: off with the notice saying what does not hold", () => {
    const off = setUpIsolation({
      setting: "false",
      workspace,
      privateDirs: [],
      env: process.env,
      runHomeParent,
    });
    expect(off).toMatchObject({ kind: "off", required: false });
    expect(off.note).toMatch(
      /^isolate-user is false: the verify command and the model CLIs run as the runner's own user/,
    );
    const notRoot = setUpIsolation({
      setting: "auto",
      workspace,
      privateDirs: [],
      env: process.env,
      runHomeParent,
      uid: 1000,
      // This machine's root has sudo: a `sudo -n true` that fails, as for a user not in sudoers.
      sudo: "/bin/false",
    });
    expect(notRoot).toMatchObject({ kind: "off", required: false });
    expect(notRoot.note).toContain("`sudo -n true` failed");
    expect(notRoot.note).toContain("state.json");
    // Without the user nothing is fresh per run: the note says the build's home is the runner's own.
    expect(notRoot.note).toContain(
      "the verify command's HOME, TMPDIR and caches are the runner's own, which a self-hosted runner keeps for the next job's build",
    );
    const required = setUpIsolation({
      setting: "true",
      workspace,
      privateDirs: [],
      env: process.env,
      runHomeParent,
      platform: "darwin",
    });
    expect(required).toMatchObject({ kind: "off", required: true });
    expect(required.note).toContain("it needs Linux");
  });
});

describe("as root: the separate user for PR code", () => {
  it("as root: is set up, twice over (idempotent), with the run directories private", () => {
    const first = setUpIsolation({
      setting: "auto",
      workspace,
      privateDirs: [runsDir],
      env: process.env,
      runHomeParent,
      user: PROBE_USER,
    });
    const second: Isolation = setUpIsolation({
      setting: "auto",
      workspace,
      privateDirs: [runsDir],
      env: process.env,
      runHomeParent,
      user: PROBE_USER,
    });
    expect(first.kind).toBe("on");
    expect(second.kind).toBe("on");
    if (first.kind !== "on" || second.kind !== "on") return;
    // The same user, set up the same way; each set-up makes its run a fresh home of its own.
    const fresh = ({ home: _h, runEnv: _e, ...same }: ChildIdentity) => same;
    expect(fresh(second.identity)).toEqual(fresh(first.identity));
    expect(second.runHome.root).not.toBe(first.runHome.root);
    expect(first.identity.home).toBe(first.runHome.home);
    expect(statSync(first.runHome.root)).toMatchObject({ uid: first.identity.uid });
    expect(statSync(first.runHome.root).mode & 0o777).toBe(0o700);
    expect(first.identity.user).toBe(PROBE_USER);
    expect(first.identity.uid).not.toBe(0);
    expect(first.identity.via).toBe("root");
    expect(first.note).toContain(`run as ${PROBE_USER}`);
    expect(statSync(runsDir).mode & 0o777).toBe(0o700);
    identity = first.identity;
  });

  it("as root: what the user can and cannot read and write (the SECURITY.md table)", async () => {
    const engine = process.pid;
    const seen = await asUser(
      [
        `echo uid=$(id -u)`,
        probe("engine_environ", `cat /proc/${engine}/environ`),
        probe("engine_cmdline", `cat /proc/${engine}/cmdline`),
        probe("engine_mem", `sh -c 'exec 3</proc/${engine}/mem'`),
        probe("engine_fd1_write", `sh -c 'echo forged > /proc/${engine}/fd/1'`),
        probe("state_json", `cat ${runsDir}/run-1/state.json`),
        probe("runner_temp_list", `ls ${temp}`),
        probe("runner_temp_read", `cat ${temp}/cache-note.txt`),
        probe("runner_temp_create", `touch ${temp}/planted`),
        probe("file_command_write", `sh -c 'echo verdict=pass >> ${fileCommand}'`),
        probe("runner_home_list", `ls ${runnerHome}`),
        probe("runner_home_gitconfig", `cat ${runnerHome}/.gitconfig`),
        probe("workspace_git_config", `grep -q extraheader ${workspace}/.git/config`),
        probe("workspace_write", `sh -c 'mkdir -p build && echo ok > build/out.txt'`),
        probe("workspace_git_status", `git status --porcelain`),
      ].join("\n"),
    );
    expect(seen).toEqual({
      uid: String(identity.uid),
      engine_environ: "no",
      engine_cmdline: "yes",
      engine_mem: "no",
      engine_fd1_write: "no",
      state_json: "no",
      runner_temp_list: "yes",
      runner_temp_read: "yes",
      runner_temp_create: "no",
      file_command_write: "no",
      runner_home_list: "no",
      runner_home_gitconfig: "no",
      workspace_git_config: "yes",
      workspace_write: "yes",
      workspace_git_status: "yes",
    });
    expect(readFileSync(fileCommand, "utf8")).toBe("");
  });

  it("as root: a verify command runs as the user, builds in the workspace and passes", async () => {
    const evidence = await withChildIdentity(identity, () =>
      runVerify({
        command: `test "$(id -u)" = ${identity.uid}\nnode -e "require('fs').writeFileSync('dist.txt', 'built')"\ngit status --porcelain`,
        cwd: workspace,
        timeoutMs: 60_000,
        expectExit: 0,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        passThrough: [],
        knownSecrets: [],
      }),
    );
    expect(evidence.outcome).toBe("passed");
    expect(statSync(join(workspace, "dist.txt")).uid).toBe(identity.uid);
  });

  it("as root: every process the user left running is killed when the run ends, setsid included", async () => {
    // Not prCode's per-child kill: a plain spawn as the user, so only the user-wide kill can reach it.
    const pid = Number(asTheUser("setsid sleep 300 >/dev/null 2>&1 & echo $!").toString().trim());
    expect(processIsGone(pid)).toBe(false);
    expect(killUserProcesses(identity)).toBeGreaterThanOrEqual(1);
    await eventually(() => processIsGone(pid), 10_000);
    expect(processIsGone(pid)).toBe(true);
    expect(killUserProcesses(identity)).toBe(0);
  });

  it("as root: the sweep of the shared temporary folders removes the user's files, folders and links, and nothing of another owner, nor what a link names, nor a kept folder's contents", () => {
    // A stand-in for /tmp: sticky and world-writable, as the real ones are.
    const shared = join(root, "shared-tmp");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const rootsFile = join(root, "roots-file");
    writeFileSync(rootsFile, "root's\n");
    writeFileSync(join(shared, "roots-own"), "root's\n");
    const kept = join(shared, "kept");
    mkdirSync(kept, { mode: 0o777 });
    chmodSync(kept, 0o777);
    asTheUser(
      [
        `cd '${shared}'`,
        "echo left > file",
        "mkdir -p dir/deeper && echo left > dir/deeper/file",
        `ln -s '${rootsFile}' link`,
        "mkdir holds-roots && chmod 777 holds-roots",
        "echo left > kept/file",
      ].join(" && "),
    );
    writeFileSync(join(shared, "holds-roots", "roots"), "root's\n");
    const problems = sweepSharedTemp(identity, { dirs: [shared, join(root, "no-such-dir")], keep: [kept] });
    expect(readdirSync(shared).sort()).toEqual(["holds-roots", "kept", "roots-own"]);
    expect(readFileSync(rootsFile, "utf8")).toBe("root's\n");
    expect(readFileSync(join(shared, "holds-roots", "roots"), "utf8")).toBe("root's\n");
    expect(readFileSync(join(kept, "file"), "utf8")).toBe("left\n");
    // The user's folder holding root's file cannot go whole: said, not hidden.
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`could not remove everything of uid ${identity.uid} in ${shared}`);
    // Nothing of the user's left to sweep a second time but that folder.
    rmSync(join(shared, "holds-roots", "roots"));
    expect(sweepSharedTemp(identity, { dirs: [shared], keep: [kept] })).toEqual([]);
    expect(readdirSync(shared).sort()).toEqual(["kept", "roots-own"]);
  });
});
