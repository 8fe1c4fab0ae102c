/**
 * Where fresh codex homes go (src/action/codex-home.ts): outside `/tmp`, `$TMPDIR` and the workspace,
 * which codex's workspace-write sandbox can write — `RUNNER_TEMP` first, the runner's `HOME` second, else
 * a usage error naming `RUNNER_TEMP`. Paths are compared as real paths (a symlink into /tmp is under /tmp).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexHomesRoot } from "../../src/run/codex-home.js";

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "eg-codex-home-"));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe("codexHomesRoot", () => {
  it("uses RUNNER_TEMP when it is outside /tmp, $TMPDIR and the workspace (GitHub-hosted runners)", () => {
    expect(
      codexHomesRoot(
        { RUNNER_TEMP: "/home/runner/work/_temp", HOME: "/home/runner" },
        "/home/runner/work/repo/repo",
      ),
    ).toEqual({ ok: true, path: "/home/runner/work/_temp/evidence-gate/codex-homes" });
  });

  it("falls back to the runner's HOME when RUNNER_TEMP is under /tmp or is $TMPDIR", () => {
    expect(codexHomesRoot({ RUNNER_TEMP: "/tmp/runner", HOME: "/home/ci" }, "/srv/ws")).toEqual({
      ok: true,
      path: "/home/ci/.evidence-gate/codex-homes",
    });
    expect(
      codexHomesRoot({ RUNNER_TEMP: "/scratch/t", TMPDIR: "/scratch", HOME: "/home/ci" }, "/srv/ws"),
    ).toEqual({ ok: true, path: "/home/ci/.evidence-gate/codex-homes" });
  });

  it("refuses RUNNER_TEMP inside the workspace, and a symlink that leads into /tmp", () => {
    const ws = join(scratch, "ws");
    mkdirSync(ws);
    expect(codexHomesRoot({ RUNNER_TEMP: join(ws, "_temp"), HOME: "/home/ci" }, ws)).toEqual({
      ok: true,
      path: "/home/ci/.evidence-gate/codex-homes",
    });
    const link = join(scratch, "link-to-tmp");
    symlinkSync("/tmp", link);
    const result = codexHomesRoot({ RUNNER_TEMP: link, HOME: link }, "/srv/ws");
    expect(result.ok).toBe(false);
  });

  it("when neither qualifies it is a problem naming RUNNER_TEMP and HOME, and the writable roots", () => {
    const result = codexHomesRoot({ RUNNER_TEMP: "/tmp/rt", HOME: "/tmp/home" }, "/srv/ws");
    expect(result).toEqual({
      ok: false,
      problem:
        "runtime codex needs a folder for each call's fresh CODEX_HOME that codex's workspace-write sandbox cannot write, and RUNNER_TEMP (/tmp/rt) and HOME (/tmp/home) each lie under one of /tmp, /srv/ws: run on a runner whose RUNNER_TEMP is outside /tmp, $TMPDIR and the workspace. Nothing was run",
    });
  });
});
