/**
 * A model CLI that is a node script runs on the engine's own node (issue 12 leftovers; SECURITY.md "A
 * separate user for PR code"): `codex.js` starts `#!/usr/bin/env node`, which finds `node` on the child's
 * `PATH` — where an earlier step's `GITHUB_PATH` may have put a program of the pull request's first. The
 * action registers its pinned script in the run's child scope (`ChildScope.runWithOwnNode`), and the exec
 * seam then starts it as `process.execPath <script> <args>`; `PinnedCli.nodeScript` tells a node script
 * from a native executable. Real files and real children: a planted `node` first on `PATH` that says so.
 */
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ChildScope } from "../../src/proc/child-identity.js";
import { runProcess } from "../../src/proc/run-process.js";
import { PinnedCli } from "../../src/run/install-cli.js";
import { minimalEnv } from "./process-probe.js";

const MODULES = fileURLToPath(new URL("../../node_modules", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "eg-own-node-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function executable(path: string, text: string): string {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

/** Runs `script` as a PR-code child in `scope`, with a planted `node` first on PATH; its output lines. */
async function runIn(scope: ChildScope, script: string, planted: string): Promise<string[]> {
  const lines: string[] = [];
  const result = await scope.run(() =>
    runProcess({
      command: script,
      args: ["--flag", "a b"],
      cwd: root,
      env: minimalEnv({ PATH: `${planted}:${process.env.PATH ?? "/usr/bin:/bin"}` }),
      prCode: true,
      onStdoutLine: (line) => void lines.push(line),
    }),
  );
  expect(result.kind).toBe("exited");
  return lines;
}

describe("a node-script model CLI runs on the engine's node, not the PATH's", () => {
  it("PinnedCli.nodeScript: the pinned codex.js is a node script, claude's native executable and a shell script are not", () => {
    expect(new PinnedCli(realpathSync(join(MODULES, ".bin", "codex")), "x").nodeScript).toBe(true);
    const claude = realpathSync(join(MODULES, ".bin", "claude"));
    expect(new PinnedCli(claude, "x").nodeScript).toBe(false);
    const shell = executable(join(root, "shell-cli"), "#!/bin/sh\necho hi\n");
    expect(new PinnedCli(shell, "x").nodeScript).toBe(false);
    const direct = executable(join(root, "direct-cli"), "#!/usr/local/bin/node --no-warnings\n");
    expect(new PinnedCli(direct, "x").nodeScript).toBe(true);
  });

  it("a registered script is started with process.execPath and its arguments; an unregistered one still goes through PATH (the planted node)", async () => {
    const planted = mkdtempSync(join(root, "planted-"));
    executable(join(planted, "node"), "#!/bin/sh\necho planted-node-ran\n");
    const script = executable(
      join(root, "cli.js"),
      [
        "#!/usr/bin/env node",
        'console.log("node=" + process.execPath);',
        'console.log("args=" + JSON.stringify(process.argv.slice(2)));',
        "",
      ].join("\n"),
    );

    const scope = new ChildScope(null);
    // Without the registration the shebang picks the planted node: the probe is meaningful.
    expect(await runIn(scope, script, planted)).toEqual(["planted-node-ran"]);
    scope.runWithOwnNode(script);
    expect(await runIn(scope, script, planted)).toEqual([
      `node=${process.execPath}`,
      `args=${JSON.stringify(["--flag", "a b"])}`,
    ]);
    // Only inside its scope: another run's children are not affected.
    expect(await runIn(new ChildScope(null), script, planted)).toEqual(["planted-node-ran"]);
  });
});
