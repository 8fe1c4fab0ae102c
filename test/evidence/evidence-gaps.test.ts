/**
 * Bytes the verify ran on that the evidence tree does not hold (ADR 0003, amendment 2026-11-29, 2): dirty
 * submodules and .gitattributes conversions, on real git repositories; and the conclusion rule.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceGaps } from "../../src/evidence/evidence-gaps.js";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { runVerify } from "../../src/evidence/verify.js";
import { evidenceGapWords, rowDetail } from "../../src/ledger/cells.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import {
  ATTACHED,
  fixtureLedger,
  OTHER_TREE,
  pass,
  STARTING_TREE,
  verifiedRunInput,
  verifiedSink,
} from "../ledger/fixtures.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

const context = { baseEnv: hermeticGitEnv };
const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

async function repoWith(files: Record<string, string>): Promise<TempRepo> {
  const repo = await makeTempRepo({ commit: true, files });
  repos.push(repo);
  return repo;
}

async function gapsOf(repo: TempRepo) {
  const tree = await evidenceTree(repo.dir, context);
  return { tree, gaps: await evidenceGaps(repo.dir, tree, context) };
}

/** A superproject with `lib/` a submodule holding `sum.js`, both committed. */
async function superWithSubmodule(): Promise<TempRepo> {
  const sub = await repoWith({ "sum.js": "export const sum = (a, b) => a - b;\n" });
  const top = await repoWith({ "README.md": "top\n" });
  await top.git(["-c", "protocol.file.allow=always", "submodule", "add", "--quiet", sub.dir, "lib"]);
  await commitAll(top, "add lib");
  return top;
}

describe("dirty submodules", () => {
  it("an edited file inside a submodule is reported, though the evidence tree equals HEAD's", async () => {
    const top = await superWithSubmodule();
    await top.write("lib/sum.js", "export const sum = (a, b) => a + b;\n");
    const { tree, gaps } = await gapsOf(top);
    expect(tree).toBe(await top.git(["rev-parse", "HEAD^{tree}"]));
    expect(gaps.dirtySubmodules).toEqual(["lib"]);
    expect(gaps.unrepresentedFiles).toBeNull();
  });

  it("untracked content in a submodule is reported too", async () => {
    const top = await superWithSubmodule();
    await top.write("lib/extra.js", "export {};\n");
    expect((await gapsOf(top)).gaps.dirtySubmodules).toEqual(["lib"]);
  });

  it("a clean submodule is not reported", async () => {
    const top = await superWithSubmodule();
    expect((await gapsOf(top)).gaps).toEqual({ dirtySubmodules: [], unrepresentedFiles: null });
  });

  it("runVerify records it on the evidence, and the row detail says so", async () => {
    const top = await superWithSubmodule();
    await top.write("lib/sum.js", "export const sum = (a, b) => a + b;\n");
    const evidence = await runVerify(verifyOptions(top.dir));
    expect(evidence.outcome).toBe("passed");
    expect(evidence.dirtySubmodules).toEqual(["lib"]);
    expect(evidenceGapWords(evidence)).toContain("submodule content on no commit in lib");
  });

  it("files written into a submodule folder that was never checked out (no .git there) are reported", async () => {
    // What actions/checkout leaves by default: the gitlink in the tree, its folder empty. Git records the
    // gitlink and never looks inside; the verify ran what was written there.
    const top = await superWithSubmodule();
    await rm(join(top.dir, "lib"), { recursive: true, force: true });
    await mkdir(join(top.dir, "lib"));
    const clean = await runVerify(verifyOptions(top.dir));
    expect(clean.dirtySubmodules ?? []).toEqual([]);
    await top.write("lib/sum.js", "export const sum = (a, b) => a + b;\n");
    const evidence = await runVerify(verifyOptions(top.dir));
    expect(evidence.evidenceTree).toBe(await top.git(["rev-parse", "HEAD^{tree}"]));
    expect(evidence.dirtySubmodules).toEqual(["lib"]);
  });

  it("runVerify still finds it when the repository's index no longer lists the submodule (`git rm --cached`)", async () => {
    // The check reads the evidence tree's own index: the repository's index is the pull request's to write.
    const top = await superWithSubmodule();
    await top.write("lib/sum.js", "export const sum = (a, b) => a + b;\n");
    await top.git(["rm", "--cached", "--quiet", "lib"]);
    const evidence = await runVerify(verifyOptions(top.dir));
    expect(evidence.outcome).toBe("passed");
    expect(evidence.evidenceTree).toBe(await top.git(["rev-parse", "HEAD^{tree}"]));
    expect(evidence.dirtySubmodules).toEqual(["lib"]);
  });
});

describe(".gitattributes conversions", () => {
  it("an `ident` file edited inside its $Id$ is reported: the tree holds the old text", async () => {
    const repo = await repoWith({
      ".gitattributes": "*.js ident\n",
      "sum.js": "export function sum(a, b) { /*$Id$*/ return a - b; }\n",
    });
    // Fresh checkout: the file on disk carries the expanded $Id: <blob> $.
    await repo.git(["rm", "--quiet", "--cached", "sum.js"]);
    await repo.git(["checkout", "--quiet", "HEAD", "--", "sum.js"]);
    expect((await gapsOf(repo)).gaps.unrepresentedFiles).toBeNull();

    // The clean conversion folds `$Id: … $` back to `$Id$`: the index sees the committed text again.
    await repo.write(
      "sum.js",
      "export function sum(a, b) { /*$Id: */ return a + b; /* $*/ return a - b; }\n",
    );
    const { tree, gaps } = await gapsOf(repo);
    expect(tree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(gaps.unrepresentedFiles).toEqual({ total: 1, examples: ["sum.js"] });
  });

  it("an `eol=crlf` file rewritten with LF line ends is reported", async () => {
    const repo = await repoWith({ ".gitattributes": "*.txt eol=crlf\n", "a.txt": "one\ntwo\n" });
    await repo.git(["rm", "--quiet", "--cached", "a.txt"]);
    await repo.git(["checkout", "--quiet", "HEAD", "--", "a.txt"]);
    expect(await repo.read("a.txt")).toBe("one\r\ntwo\r\n");
    expect((await gapsOf(repo)).gaps.unrepresentedFiles).toBeNull();

    await repo.write("a.txt", "one\ntwo\n");
    const { tree, gaps } = await gapsOf(repo);
    expect(tree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(gaps.unrepresentedFiles).toEqual({ total: 1, examples: ["a.txt"] });
  });

  it("a normal checkout with `* text=auto` and no edits is not reported (no false alarm)", async () => {
    const repo = await repoWith({
      ".gitattributes": "* text=auto\n*.png binary\n",
      "src/a.js": "export const a = 1;\n",
      "src/b.js": "export const b = 2;\n",
      "README.md": "# readme\n",
      "logo.png": "\u0089PNG\r\n\u001a\n",
    });
    expect((await gapsOf(repo)).gaps).toEqual({ dirtySubmodules: [], unrepresentedFiles: null });
    // An ordinary edit is in the tree itself, so it is not a gap either.
    await repo.write("src/a.js", "export const a = 2;\n");
    expect((await gapsOf(repo)).gaps.unrepresentedFiles).toBeNull();
  });

  it("over the bound of compared files it is unknown (total null), never clean", async () => {
    const repo = await repoWith({
      ".gitattributes": "*.txt eol=crlf\n",
      "a.txt": "a\n",
      "b.txt": "b\n",
    });
    const tree = await evidenceTree(repo.dir, context);
    const gaps = await evidenceGaps(repo.dir, tree, { ...context, maxFilteredFiles: 1 });
    expect(gaps.unrepresentedFiles?.total).toBeNull();
    expect(gaps.unrepresentedFiles?.note).toContain("more than 1 files");
  });
});

const run = verifiedRunInput;

describe("decideConclusion — bytes the evidence tree does not hold", () => {
  it("dirty submodules turn success into action_required (outcome passed), naming the paths", () => {
    const decided = decideConclusion(
      run({ rows: [pass("write"), verifiedSink("check", { dirtySubmodules: ["lib"] })] }),
    );
    expect(decided).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-bytes-not-in-tree",
    });
    expect(decided.reason).toContain("the verify ran on bytes the evidence tree does not hold");
    expect(decided.reason).toContain('sink "check"');
    expect(decided.reason).toContain("lib");
  });

  it("unrepresented files, known or not, turn success into action_required", () => {
    const known = decideConclusion(
      run({
        rows: [
          pass("write"),
          verifiedSink("check", { unrepresentedFiles: { total: 1, examples: ["src/sum.js"] } }),
        ],
      }),
    );
    expect(known.rule).toBe("verified-bytes-not-in-tree");
    expect(known.reason).toContain("src/sum.js");
    const unknown = decideConclusion(
      run({
        rows: [
          pass("write"),
          verifiedSink("check", {
            unrepresentedFiles: { total: null, examples: [], note: "more than 2000 files" },
          }),
        ],
      }),
    );
    expect(unknown).toMatchObject({ conclusion: "action_required", rule: "verified-bytes-not-in-tree" });
    expect(unknown.reason).toContain("more than 2000 files");
  });

  it("is never softened to neutral by an unknown tree, and says when the tree is off the commit too", () => {
    const gap = { dirtySubmodules: ["lib"] };
    expect(
      decideConclusion(run({ rows: [pass("write"), verifiedSink("check", { ...gap, evidenceTree: null })] }))
        .conclusion,
    ).toBe("action_required");
    const off = decideConclusion(
      run({ rows: [pass("write"), verifiedSink("check", { ...gap, evidenceTree: OTHER_TREE })] }),
    );
    expect(off.rule).toBe("verified-bytes-not-in-tree");
    expect(off.reason).toContain("the evidence is for a patch that is not on this commit");
  });

  it("no gap keeps success; a failed verify with a gap stays failure", () => {
    expect(decideConclusion(run()).conclusion).toBe("success");
    const failed = decideConclusion(
      run({
        rows: [
          pass("write"),
          verifiedSink("check", { dirtySubmodules: ["lib"], outcome: "failed", exitCode: 1 }),
        ],
      }),
    );
    expect(failed.conclusion).toBe("failure");
  });

  it("the row detail names it and the ledger JSON reads it back", () => {
    const row = verifiedSink("check", {
      dirtySubmodules: ["lib"],
      unrepresentedFiles: { total: 1, examples: ["a.txt"] },
    });
    expect(rowDetail(row)).toContain("submodule content on no commit in lib");
    expect(rowDetail(row)).toContain("a.txt");
    const ledger = fixtureLedger({
      runId: "20261129-130000-cd34ef",
      runtime: "claude",
      goal: "Fix sum",
      buildEvidence: ATTACHED,
      nodes: [{ id: "check", dependsOn: [], allowedTools: ["Read", "Edit"], sink: true }],
      rows: [row],
      planningCalls: [{ costUsd: 0.001, usage: { inputTokens: 10, outputTokens: 5 } }],
      evidenceTree: STARTING_TREE,
    });
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.ledger.conclusion?.rule).toBe("verified-bytes-not-in-tree");
  });
});
