/**
 * A CLI command started in a sub-folder of a repository (issue 17 item 1): the repository is the git
 * working tree's root, the folder is the working directory, the build-signal scan covers the root and
 * every folder down to it, and the run directory goes to the root's `.evidence-gate/` — as if run from the
 * root with `--working-directory`. And a folder in no git working tree is refused before anything is
 * spent, by `plan` as by `auto` (item 6).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliPlan } from "../../src/cli/plan-command.js";
import { runCliAuto } from "../../src/cli/run-auto-command.js";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { CliIo } from "../../src/local-run/local-setup.js";
import { hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** Runs `command argv` in-process from `cwd`, with no model credential and no way to reach a model. */
async function run(command: Command, argv: readonly string[], cwd: string) {
  let stdout = "";
  let stderr = "";
  const code = await command(argv, {
    cwd,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

async function repoWith(files: Record<string, string>): Promise<TempRepo> {
  const repo = await makeTempRepo({ commit: true, files });
  repos.push(repo);
  return repo;
}

/** Every `.evidence-gate` folder under `dir`. */
function evidenceGateFolders(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".git") continue;
      const full = join(d, entry.name);
      if (entry.name === ".evidence-gate") found.push(full);
      else walk(full);
    }
  };
  walk(dir);
  return found;
}

describe("a command started in a sub-folder of a repository", () => {
  it("auto with no verify flag, from a sub-folder of a repository with package.json at its root: refused (exit 3) naming package.json, nothing written", async () => {
    const repo = await repoWith({ "package.json": "{}\n", "pkg/src/a.js": "export {};\n" });

    const r = await run(
      runCliAuto,
      ["--goal", "fix it", "--claude-path", "/bin/false"],
      join(repo.dir, "pkg/src"),
    );

    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("Detected: package.json (Node.js (npm))");
    // Phrased from the working directory, where the verify command runs.
    expect(r.stderr).toContain("--verify-cmd '(cd ../.. && npm test)'");
    expect(evidenceGateFolders(repo.dir)).toEqual([]);
  });

  it("--repo naming a sub-folder is the same: pkg/package.json is found from pkg/src", async () => {
    const repo = await repoWith({ "pkg/package.json": "{}\n", "pkg/src/a.js": "export {};\n" });

    const r = await run(
      runCliAuto,
      ["--goal", "fix it", "--repo", "pkg/src", "--claude-path", "/bin/false"],
      repo.dir,
    );

    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("Detected: pkg/package.json (Node.js (npm))");
    expect(r.stderr).toContain("--verify-cmd '(cd .. && npm test)'");
    expect(evidenceGateFolders(repo.dir)).toEqual([]);
  });

  it("the run directory goes to the root's .evidence-gate/, and the verify command runs in the sub-folder", async () => {
    const repo = await repoWith({ "pkg/src/a.js": "export {};\n" });
    const sub = join(repo.dir, "pkg/src");

    const r = await run(runCliVerify, ["--verify-cmd", 'test "$(basename "$PWD")" = src'], sub);

    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(evidenceGateFolders(repo.dir)).toEqual([join(repo.dir, ".evidence-gate")]);
    expect(r.stdout).toContain(`ledger: ${join(repo.dir, ".evidence-gate", "runs")}`);
  });

  it("--working-directory is resolved from --repo: --repo pkg --working-directory src runs in pkg/src", async () => {
    const repo = await repoWith({ "pkg/src/a.js": "export {};\n" });

    const r = await run(
      runCliVerify,
      ["--repo", "pkg", "--working-directory", "src", "--verify-cmd", 'test "$(basename "$PWD")" = src'],
      repo.dir,
    );

    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(existsSync(join(repo.dir, ".evidence-gate", "runs"))).toBe(true);
  });

  it("--working-directory may climb from --repo, but not out of the working tree", async () => {
    const repo = await repoWith({ "pkg/src/a.js": "export {};\n" });
    const sub = join(repo.dir, "pkg/src");

    const inside = await run(
      runCliVerify,
      ["--working-directory", "..", "--verify-cmd", 'test "$(basename "$PWD")" = pkg'],
      sub,
    );
    const outside = await run(runCliVerify, ["--working-directory", "../../..", "--verify-cmd", "true"], sub);

    expect(inside.code, inside.stderr + inside.stdout).toBe(0);
    expect(outside.code).toBe(64);
    expect(outside.stderr).toContain(
      `evidence-gate verify: --working-directory ../../.. is outside the repository ${repo.dir}`,
    );
  });
});

describe("a folder in no git working tree", () => {
  it("plan refuses it with exit 64 before the planner is called, as auto does", async () => {
    const folder = await makeTempRepo({ noGit: true, files: { "a.txt": "x\n" } });
    repos.push(folder);
    // A planner that would leave a mark if it were ever called.
    const marker = join(folder.dir, "planner-called");
    const planner = join(folder.dir, "planner.sh");
    await folder.write("planner.sh", `#!/bin/sh\ntouch ${marker}\n`);
    const { chmodSync } = await import("node:fs");
    chmodSync(planner, 0o755);
    const flags = ["--goal", "fix it", "--accept-no-build-evidence", "--claude-path", planner];

    const plan = await run(runCliPlan, flags, folder.dir);
    const auto = await run(runCliAuto, flags, folder.dir);

    for (const [name, r] of [
      ["plan", plan],
      ["auto", auto],
    ] as const) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(64);
      expect(r.stderr).toContain(
        `evidence-gate ${name}: the current folder ${folder.dir} is not inside a git working tree`,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });
});
