/**
 * End-to-end, `verify-base` on a real library (issue 25 item 3, acceptance; ADR 0017): dot-prop 5.1.0 as
 * npm published it — the parent of its prototype-pollution fix — with the fix's regression test
 * (test/fixtures/dot-prop/README.md). `evidence-gate run GRAPH --verify-base --base main` runs in-process
 * with the real pinned `claude` CLI, which the scripted model server drives to write 5.1.1's `index.js`
 * (the real fix) through its Write tool. The engine runs `node --test test/` on the head and, in a worktree
 * of its own, on main: the check names the regression test as failing on the base and passing on the head,
 * and the row shows node:test's counts on both.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { runCliLedger } from "../../src/cli/ledger-command.js";
import { checkRunsOf, cliHarness } from "../support/cli-harness.js";
import type { ModelScript } from "../support/model-server/index.js";
import { commitAll, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/dot-prop/", import.meta.url));
const REGRESSION = "prevent setting/getting `__proto__`";
const MARK = "Fix the prototype pollution in dot-prop's index.js";

/** The files of an npm tarball (`package/…`), read without touching the repository. */
function unpack(tarball: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "eg-tgz-"));
  try {
    const done = spawnSync("tar", ["-xzf", join(FIXTURE, tarball), "-C", dir], { encoding: "utf8" });
    if (done.status !== 0) throw new Error(`tar -xzf ${tarball}: ${done.stderr}`);
    const listed = spawnSync("find", ["package", "-type", "f"], { cwd: dir, encoding: "utf8" });
    const files: Record<string, string> = {};
    for (const path of listed.stdout.trim().split("\n")) {
      files[path.slice("package/".length)] = readFileSync(join(dir, path), "utf8");
    }
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** dot-prop 5.1.0 with its dependency in node_modules and the regression test, committed on main; branch `fix`. */
async function makeDotPropRepo(): Promise<TempRepo> {
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(unpack("dot-prop-5.1.0.tgz"))) files[path] = text;
  for (const [path, text] of Object.entries(unpack("is-obj-2.0.0.tgz")))
    files[`node_modules/is-obj/${path}`] = text;
  files["test/regression.test.js"] = readFileSync(join(FIXTURE, "regression.test.js"), "utf8");
  const repo = await makeTempRepo({ files });
  await commitAll(repo, "dot-prop 5.1.0 (npm) with the fix's regression test");
  await repo.git(["checkout", "--quiet", "-b", "fix"]);
  return repo;
}

function fixScript(repoDir: string): ModelScript {
  const file = join(repoDir, "index.js");
  return {
    conversations: [
      {
        name: "fix",
        match: MARK,
        turns: [
          { tool_calls: [{ name: "Read", input: { file_path: file } }] },
          {
            tool_calls: [
              {
                name: "Write",
                input: { file_path: file, content: unpack("dot-prop-5.1.1.tgz")["index.js"] },
              },
            ],
          },
          {
            text: "Applied the upstream fix: __proto__, prototype and constructor are refused path segments.",
          },
        ],
      },
    ],
  };
}

const GRAPH = `name: dot-prop-fix
nodes:
  - id: fix
    prompt: "${MARK}: get, set, has and delete must refuse the path segments __proto__, prototype and constructor. Edit only index.js."
    allowed_tools: [Read, Write]
    success_check:
      verify:
        command: node --test test/
        timeout: 2m
`;

test("verify-base on dot-prop 5.1.0 → the real fix: the regression test fails on main and passes on the head, with node:test's counts", async () => {
  const h = await cliHarness({ makeRepo: makeDotPropRepo, script: (repo) => fixScript(repo.dir) });
  const main = await h.repo.git(["rev-parse", "main"]);
  const mainTree = await h.repo.git(["rev-parse", "main^{tree}"]);
  const graph = h.writeGraph("dot-prop-fix.yaml", GRAPH);

  const r = await h.runGraph(graph, ["--verify-base", "--base", "main", "--commit"]);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(await h.repo.read("index.js")).toBe(unpack("dot-prop-5.1.1.tgz")["index.js"]);
  const row = r.ledger!.rows.find((one) => one.nodeId === "fix")!;
  expect(row.verdict === "PASS" && row.qualifier).toBe("verified");
  // The head: node:test's own counts.
  expect(row.verify?.receipt).toMatchObject({
    kind: "counts",
    runners: ["node:test"],
    ran: 3,
    passed: 3,
    failed: 0,
  });
  // The base: main as committed, in its own worktree, with its own evidence tree and receipt.
  expect(row.verify?.base).toMatchObject({
    commit: main,
    chosenAs: "the merge-base with main",
    verdict: "fixed",
    fixedTests: [REGRESSION],
    verify: {
      outcome: "failed",
      exitCode: 1,
      evidenceTree: mainTree,
      receipt: { kind: "counts", ran: 3, passed: 2, failed: 1, failedNames: [REGRESSION] },
    },
  });
  expect(row.verify?.evidenceTree).not.toBe(mainTree);
  expect(row.verify?.base?.fewerTests).toBeUndefined();
  // The base's worktree is gone with the run; main is untouched.
  expect(await h.repo.git(["worktree", "list", "--porcelain"])).not.toContain("evidence-gate-base-");

  const fixedWords = `fails on base ${main.slice(0, 7)} (the merge-base with main), passes on head: fixed (now passing: ${REGRESSION})`;
  // The row (text ledger), the check run and the summary name the regression test and both counts.
  expect(r.stdout).toContain(fixedWords);
  expect(r.stdout).toContain("ran 3 tests: 3 passed, per node:test");
  expect(r.stdout).toContain(`base run: ran 3 tests: 2 passed, 1 failed (${REGRESSION}), per node:test`);
  const completed = checkRunsOf(r.checkRunRequests!).at(-1)!.completions.at(-1)!;
  expect(completed.conclusion).toBe("success");
  expect(completed.summary).toContain("### The base beside the head");
  expect(completed.summary).toContain("passes on head: fixed (now passing: prevent setting/getting");
  expect(r.summary).toContain("### The base beside the head");
  expect(r.summary).toContain(mainTree);

  // `evidence-gate ledger RUN_ID` reads the same from ledger.json.
  let saved = "";
  const code = await runCliLedger([r.ledger!.runId, "--repo", h.repo.dir], {
    cwd: h.scratch,
    env: h.baseEnv(),
    out: { write: (t: string) => (saved += t) },
    err: { write: () => true },
  });
  expect(code).toBe(0);
  expect(saved).toContain(fixedWords);
});
