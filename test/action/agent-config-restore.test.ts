/**
 * The agent-configuration swap (SPEC §9) on real git repositories: the base commit's copies are read with
 * git, fetched from `origin`, or through the OpenAPI-validating GitHub server; the pull request's copies
 * are held aside and put back; and the swap never shows in an evidence tree or a patch (SPEC §6, §11).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { workingTreePatch } from "../../src/evidence/patch.js";
import { readBaseAgentConfig } from "../../src/github/base-agent-config.js";
import { createOctokit } from "../../src/github/octokit.js";
import { isAgentConfigPath } from "../../src/policy/agent-config-paths.js";
import { swapInBaseAgentConfig } from "../../src/pull-request/agent-config-restore.js";
import { startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const gitContext = { baseEnv: hermeticGitEnv, knownSecrets: [] as string[] };

const BASE_FILES = {
  ".claude/settings.json": '{"hooks":{}, "from":"base"}\n',
  "CLAUDE.md": "base instructions\n",
  "docs/AGENTS.md": "base agents\n",
  "src/a.js": "export const a = 1;\n",
};

/** A repository whose `main` is the base and whose HEAD is the pull request's commit on top of it. */
async function prRepo(): Promise<{ repo: TempRepo; baseSha: string; aside: string }> {
  const repo = await makeTempRepo({ files: BASE_FILES, commit: true });
  cleanups.push(() => repo.cleanup());
  const baseSha = await repo.git(["rev-parse", "HEAD"]);
  await repo.git(["checkout", "-q", "-b", "feature"]);
  await repo.write(".claude/settings.json", '{"hooks":{"SessionStart":[]}, "from":"pr"}\n');
  await repo.write(".claude/commands/evil.md", "pr command\n");
  await repo.write("CLAUDE.md", "pr instructions\n");
  await repo.write(".mcp.json", '{"mcpServers":{"evil":{"command":"node"}}}\n');
  await repo.write("pkg/deep/CLAUDE.md", "pr nested instructions\n");
  await repo.git(["rm", "-q", "docs/AGENTS.md"]);
  await commitAll(repo, "the pull request");
  // Untracked, not ignored: part of the working tree (and so of the evidence tree) too.
  await repo.write("AGENTS.override.md", "pr untracked override\n");
  const aside = mkdtempSync(join(tmpdir(), "eg-aside-"));
  cleanups.push(() => rmSync(aside, { recursive: true, force: true }));
  return { repo, baseSha, aside };
}

/** The base's agent configuration read with git from `repo` (the API stand-in is never reached). */
function baseByGit(repo: TempRepo, baseSha: string) {
  return readBaseAgentConfig({
    root: repo.dir,
    baseSha,
    gitContext,
    api: {
      octokit: createOctokit({ token: "unused", baseUrl: "http://127.0.0.1:9" }),
      owner: "o",
      repo: "r",
    },
  });
}

const at = (repo: TempRepo, path: string) =>
  existsSync(join(repo.dir, path)) ? readFileSync(join(repo.dir, path), "utf8") : null;

describe("agent configuration paths (SPEC §9)", () => {
  it("names the CLIs' configuration anywhere in the tree, and nothing else", () => {
    for (const p of [
      "CLAUDE.md",
      "a/b/CLAUDE.md",
      "CLAUDE.local.md",
      "AGENTS.md",
      "x/AGENTS.override.md",
      ".mcp.json",
      ".claude.json",
      ".claude",
      ".claude/settings.json",
      "pkg/.claude/skills/s/SKILL.md",
      ".codex/config.toml",
    ])
      expect(isAgentConfigPath(p), p).toBe(true);
    for (const p of ["README.md", "claude.md", "src/CLAUDE.mdx", "my.claude/x", "docs/AGENTS.md.bak"])
      expect(isAgentConfigPath(p), p).toBe(false);
  });
});

describe("swapInBaseAgentConfig", () => {
  it("puts the base commit's copies in place (absent on base → absent), keeps the pull request's aside, and puts them back", async () => {
    const { repo, baseSha, aside } = await prRepo();
    const base = await baseByGit(repo, baseSha);
    expect(base.via).toBe("git");
    expect(base.entries.map((e) => e.path).sort()).toEqual([
      ".claude/settings.json",
      "CLAUDE.md",
      "docs/AGENTS.md",
    ]);

    const swap = await swapInBaseAgentConfig({ repoDir: repo.dir, asideDir: aside, base, gitContext });
    expect(at(repo, ".claude/settings.json")).toBe(BASE_FILES[".claude/settings.json"]);
    expect(at(repo, "CLAUDE.md")).toBe("base instructions\n");
    expect(at(repo, "docs/AGENTS.md")).toBe("base agents\n");
    for (const gone of [".claude/commands/evil.md", ".mcp.json", "pkg/deep/CLAUDE.md", "AGENTS.override.md"])
      expect(at(repo, gone), gone).toBeNull();
    // Kept, outside the working tree.
    expect(readFileSync(join(aside, "CLAUDE.md"), "utf8")).toBe("pr instructions\n");
    expect(readFileSync(join(aside, "pkg/deep/CLAUDE.md"), "utf8")).toBe("pr nested instructions\n");
    expect(swap.differing).toEqual([
      ".claude/commands/evil.md",
      ".claude/settings.json",
      ".mcp.json",
      "AGENTS.override.md",
      "CLAUDE.md",
      "docs/AGENTS.md",
      "pkg/deep/CLAUDE.md",
    ]);
    // Code files are untouched.
    expect(at(repo, "src/a.js")).toBe(BASE_FILES["src/a.js"]);

    const report = await swap.restore();
    expect(report.changedByRun).toEqual([]);
    expect(at(repo, "CLAUDE.md")).toBe("pr instructions\n");
    expect(at(repo, ".claude/settings.json")).toContain('"from":"pr"');
    expect(at(repo, ".claude/commands/evil.md")).toBe("pr command\n");
    expect(at(repo, "pkg/deep/CLAUDE.md")).toBe("pr nested instructions\n");
    expect(at(repo, "AGENTS.override.md")).toBe("pr untracked override\n");
    expect(at(repo, "docs/AGENTS.md")).toBeNull();
    expect(await repo.git(["status", "--porcelain"])).toBe("?? AGENTS.override.md");
  });

  it("sets git-ignored agent configuration aside too (a build step may write it): .claude/settings.local.json, CLAUDE.local.md, .codex/, a CLAUDE.md under node_modules", async () => {
    const { repo, baseSha, aside } = await prRepo();
    await repo.write(".gitignore", ".claude/settings.local.json\nCLAUDE.local.md\n.codex/\nnode_modules/\n");
    await commitAll(repo, "ignore local files");
    const ignored = {
      ".claude/settings.local.json": '{"hooks":{"SessionStart":[{"command":"curl evil"}]}}\n',
      "CLAUDE.local.md": "ignored instructions\n",
      ".codex/config.toml": 'model_provider = "evil"\n',
      "node_modules/dep/CLAUDE.md": "a dependency's instructions\n",
    };
    for (const [path, text] of Object.entries(ignored)) await repo.write(path, text);
    // git status does not show them: they are ignored.
    expect(await repo.git(["status", "--porcelain"])).toBe("");
    const statusBefore = await repo.git(["status", "--porcelain", "--ignored"]);
    const treeBefore = await evidenceTree(repo.dir, gitContext);
    const base = await baseByGit(repo, baseSha);

    const swap = await swapInBaseAgentConfig({ repoDir: repo.dir, asideDir: aside, base, gitContext });
    for (const [path, text] of Object.entries(ignored)) {
      expect(at(repo, path), path).toBeNull();
      expect(readFileSync(join(aside, path), "utf8"), path).toBe(text);
    }
    expect(swap.paths).toEqual(expect.arrayContaining(Object.keys(ignored)));
    // The base's tracked copy is in place beside the removed ignored one.
    expect(at(repo, ".claude/settings.json")).toBe(BASE_FILES[".claude/settings.json"]);
    // Ignored files are no part of the evidence: the tree is the pull request's as before.
    expect(await evidenceTree(repo.dir, { ...gitContext, indexOverlay: swap.overlay })).toBe(treeBefore);

    const report = await swap.restore();
    expect(report.changedByRun).toEqual([]);
    for (const [path, text] of Object.entries(ignored)) expect(at(repo, path), path).toBe(text);
    expect(await repo.git(["status", "--porcelain", "--ignored"])).toBe(statusBefore);
  });

  it("never follows a folder the run turned into a link: the pull request's copy stays aside and nothing is written outside the work tree", async () => {
    const { repo, baseSha, aside } = await prRepo();
    await repo.write("x/.claude/pwned", "the pull request's bytes\n");
    await commitAll(repo, "a nested agent folder");
    const base = await baseByGit(repo, baseSha);
    const swap = await swapInBaseAgentConfig({ repoDir: repo.dir, asideDir: aside, base, gitContext });
    expect(at(repo, "x/.claude/pwned")).toBeNull();
    // PR code (the verify command) runs: it makes the pruned folder a link to a folder outside the tree.
    const outside = mkdtempSync(join(tmpdir(), "eg-outside-"));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    mkdirSync(join(repo.dir, "x"), { recursive: true });
    symlinkSync(outside, join(repo.dir, "x/.claude"));

    const report = await swap.restore();
    expect(readdirSync(outside)).toEqual([]);
    expect(report.changedByRun).toContain("x/.claude/pwned");
    expect(report.restored).not.toContain("x/.claude/pwned");
    expect(readFileSync(join(aside, "x/.claude/pwned"), "utf8")).toBe("the pull request's bytes\n");
    // The other paths still come back.
    expect(at(repo, "CLAUDE.md")).toBe("pr instructions\n");
  });

  it("is invisible to the evidence: the evidence tree is the pull request's, and patch.diff holds only the nodes' changes", async () => {
    const { repo, baseSha, aside } = await prRepo();
    const before = await evidenceTree(repo.dir, gitContext);
    const base = await baseByGit(repo, baseSha);
    const swap = await swapInBaseAgentConfig({ repoDir: repo.dir, asideDir: aside, base, gitContext });
    const overlaid = { ...gitContext, indexOverlay: swap.overlay };
    // Without the overlay the swap would be "the nodes' change" and success impossible.
    expect(await evidenceTree(repo.dir, gitContext)).not.toBe(before);
    expect(await evidenceTree(repo.dir, overlaid)).toBe(before);

    // A node edits code: the patch holds that and nothing of the swap.
    await repo.write("src/a.js", "export const a = 2;\n");
    const head = await repo.git(["rev-parse", "HEAD"]);
    const codeOnly = await workingTreePatch(repo.dir, head, overlaid);
    expect(codeOnly.files).toEqual(["AGENTS.override.md", "src/a.js"]); // the untracked file was there at the start
    expect(codeOnly.diff).not.toContain("base instructions");

    // A node edits the base's CLAUDE.md: that edit is the node's, so it is in the patch (and stays after restore).
    await repo.write("CLAUDE.md", "base instructions\nnode's line\n");
    const withConfig = await workingTreePatch(repo.dir, head, overlaid);
    expect(withConfig.files).toEqual(["AGENTS.override.md", "CLAUDE.md", "src/a.js"]);
    expect(withConfig.diff).toContain("+node's line");
    const report = await swap.restore();
    expect(report.changedByRun).toEqual(["CLAUDE.md"]);
    expect(at(repo, "CLAUDE.md")).toBe("base instructions\nnode's line\n");
    expect(readFileSync(join(aside, "CLAUDE.md"), "utf8")).toBe("pr instructions\n");
  });

  it("fetches the base commit from origin when the checkout lacks it (shallow clone), without writing a credential", async () => {
    const { repo: upstream, baseSha } = await prRepo();
    const clone = await makeTempRepo();
    cleanups.push(() => clone.cleanup());
    await clone.git(["remote", "add", "origin", `file://${upstream.dir}`]);
    await clone.git(["fetch", "-q", "--depth=1", "origin", "feature"]);
    await clone.git(["checkout", "-q", "FETCH_HEAD"]);
    await expect(clone.git(["cat-file", "-e", `${baseSha}^{commit}`])).rejects.toThrow();
    const base = await readBaseAgentConfig({
      root: clone.dir,
      baseSha,
      gitContext,
      fetchToken: "ghs_notUsedForFileUrls0000000000000000",
      api: {
        octokit: createOctokit({ token: "unused", baseUrl: "http://127.0.0.1:9" }),
        owner: "o",
        repo: "r",
      },
    });
    expect(base.via).toBe("git-fetch");
    expect(base.entries.find((e) => e.path === "CLAUDE.md")?.bytes.toString()).toBe("base instructions\n");
    expect(await clone.git(["config", "--list", "--local"])).not.toMatch(/extraheader|ghs_/i);
  });

  it("reads the base through the API (git trees + blobs, validated against the OpenAPI description) when git cannot", async () => {
    const github = await startGitHubServer();
    cleanups.push(() => github.close());
    const baseSha = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
    github.state.addFile({ ref: baseSha, path: "CLAUDE.md", content: "api base instructions\n" });
    github.state.addFile({ ref: baseSha, path: "pkg/.claude/settings.json", content: "{}\n" });
    github.state.addFile({ ref: baseSha, path: "src/index.js", content: "code\n" });
    const repo = await makeTempRepo({ files: { "CLAUDE.md": "pr\n" }, commit: true });
    cleanups.push(() => repo.cleanup());
    const base = await readBaseAgentConfig({
      root: repo.dir,
      baseSha,
      gitContext,
      api: {
        octokit: createOctokit({ token: "t", baseUrl: github.url, timing: TEST_TIMING }),
        owner: "octo-org",
        repo: "widgets",
      },
    });
    expect(base.via).toBe("api");
    expect(base.gitNote).toContain("no origin remote");
    expect(base.entries.map((e) => [e.path, e.bytes.toString()])).toEqual([
      ["CLAUDE.md", "api base instructions\n"],
      ["pkg/.claude/settings.json", "{}\n"],
    ]);
    github.assertNoViolations();
  });
});
