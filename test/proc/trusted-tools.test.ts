/**
 * The engine's own programs resolved to trusted paths (issue 21 item 2; `src/proc/trusted-tools.ts`): real
 * folders and files in a temp dir, real owners and modes. A `git` planted first on `PATH` in the workspace,
 * in a folder others may write, or in a file of another user is passed over for the system's; none trusted
 * is an error naming the program and the `PATH`.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkExecutable, resolveTrustedTools } from "../../src/proc/trusted-tools.js";

const base = mkdtempSync(join(tmpdir(), "eg-trusted-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A folder under the test's base holding an executable `name` (mode 0755 unless told). */
function planted(folder: string, name = "git", mode = 0o755): string {
  const dir = join(base, folder);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, "#!/bin/sh\nexit 0\n");
  chmodSync(file, mode);
  return dir;
}

const systemGit = realpathSync("/usr/bin/git");

describe("resolveTrustedTools", () => {
  it("passes over a git in the workspace, in a folder others may write, and in a group-writable file; takes the system's", () => {
    const workspace = join(base, "ws");
    const inWorkspace = planted("ws/node_modules/.bin");
    const open = planted("open");
    chmodSync(open, 0o777);
    const groupFile = planted("group-file", "git", 0o775);
    const trusted = resolveTrustedTools({
      pathEnv: [inWorkspace, open, groupFile, "/usr/bin", "/bin"].join(":"),
      untrustedRoots: [workspace],
    });
    expect(trusted.tools.git).toEqual({ kind: "found", path: "/usr/bin/git" });
    expect(realpathSync("/usr/bin/git")).toBe(systemGit);
    expect(trusted.skipped).toHaveLength(3);
    expect(trusted.skipped[0]).toContain(`lies in ${workspace}, which the pull request can write`);
    expect(trusted.skipped[1]).toContain("is writable by its group or by others (mode 777)");
    expect(trusted.skipped[2]).toContain("is writable by its group or by others (mode 775)");
    // The engine's own children get the PATH without those folders; the system's stay (a folder is judged
    // as a folder: the one holding a group-writable file is itself trusted, its file is not run as git).
    expect(trusted.path).toBe([groupFile, "/usr/bin", "/bin"].join(":"));
    expect(trusted.tools.sh).toEqual({ kind: "found", path: join(realpathSync("/bin"), "sh") });
  });

  it("passes over a git owned by another user (the separate user's), even in a folder only it may write", () => {
    if (process.getuid?.() !== 0) throw new Error("this test chowns a file: run it as root");
    const theirs = planted("theirs");
    chownSync(join(theirs, "git"), 65534, 65534);
    const checked = checkExecutable(join(theirs, "git"), { pathEnv: "", untrustedRoots: [] });
    expect(checked).toEqual({
      reason: `${realpathSync(theirs)}/git is owned by uid 65534, not root or the engine's own user (uid 0, 0)`,
    });
    chownSync(theirs, 65534, 65534);
    chownSync(join(theirs, "git"), 0, 0);
    expect(checkExecutable(join(theirs, "git"), { pathEnv: "", untrustedRoots: [] })).toEqual({
      reason: `${realpathSync(theirs)} is owned by uid 65534, not root or the engine's own user (uid 0, 0)`,
    });
  });

  it("a link into the workspace is followed and refused; a trusted folder under sticky /tmp is fine", () => {
    const workspace = join(base, "ws2");
    const inside = planted("ws2/bin");
    const fine = planted("fine");
    expect(checkExecutable(join(fine, "git"), { pathEnv: "", untrustedRoots: [workspace] })).toEqual({
      path: join(realpathSync(fine), "git"),
    });
    const links = join(base, "links");
    mkdirSync(links);
    symlinkSync(join(inside, "git"), join(links, "git"));
    const checked = checkExecutable(join(links, "git"), { pathEnv: "", untrustedRoots: [workspace] });
    expect(checked).toEqual({
      reason: `${realpathSync(inside)}/git lies in ${workspace}, which the pull request can write`,
    });
  });

  it("no trusted copy: using it is an error naming the program, the PATH searched and what was passed over", () => {
    const open = planted("open-only");
    chmodSync(open, 0o777);
    const trusted = resolveTrustedTools({ pathEnv: open, untrustedRoots: [] });
    expect(trusted.tools.git.kind).toBe("missing");
    const message = trusted.tools.git.kind === "missing" ? trusted.tools.git.message : "";
    expect(message).toContain(`no trusted git on PATH (${JSON.stringify(open)})`);
    expect(message).toContain(
      `passed over: ${open}/git: ${realpathSync(open)} is writable by its group or by others`,
    );
    expect(trusted.tools.npm.kind).toBe("missing");
    expect(trusted.path).toBe("");
  });
});
