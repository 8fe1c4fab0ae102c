// B4 (issue 16): the build-signal scan and the evidence tree on a 100k-file repository, against the same
// on an empty repository and against git doing the tree's work alone, measured in the same run.
//
//   node bench/b4-large-repo.mjs          (BENCH_SCALE scales the 100 000 files)
//
// The modules are the engine's own (src/evidence/build-signals.ts `scanBuildSignals`, evidence-tree.ts
// `evidenceTree`), bundled with esbuild as the other benches do. The large repository holds the files
// committed, 100 per folder, with a package.json at the root (one signal). References: the scan of a
// repository holding only that package.json; for the tree, git alone: a temp index copied from the
// repository's, `git add -A`, `git write-tree` (what the tree must cost at least). Times are the median of
// 3 warm runs. B4d: the first evidence tree of the work tree in the process (one run, every file read),
// against `git read-tree HEAD`, `add -A`, `write-tree` alone. Prints numbers; asserts nothing.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleScript } from "../scripts/bundle.mjs";
import { benchScale, emitRow, fixed, GIT_ENV, git, makeRepo, median } from "./lib/row.mjs";

const files = Math.round(100_000 * benchScale());
const ROUNDS = 3;
const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b4-"));
try {
  await bundleScript("src/evidence/build-signals.ts", join(scratch, "signals.mjs"));
  await bundleScript("src/evidence/evidence-tree.ts", join(scratch, "tree.mjs"));
  const { scanBuildSignals } = await import(pathToFileURL(join(scratch, "signals.mjs")).href);
  const { evidenceTree } = await import(pathToFileURL(join(scratch, "tree.mjs")).href);

  const small = join(scratch, "small");
  const large = join(scratch, "large");
  for (const dir of [small, large]) {
    mkdirSync(dir);
    makeRepo(dir, { "package.json": '{"scripts":{"test":"true"}}\n' });
  }
  for (let i = 0; i < files; i++) {
    const dir = join(large, "src", `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i % 100}.ts`), `export const v${i} = ${i};\n`);
  }
  git(large, "add", "-A");
  git(large, "commit", "--quiet", "-m", "files");

  const timed = async (task) => {
    const ms = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      await task();
      ms.push(performance.now() - t);
    }
    return median(ms);
  };
  // The first evidence tree of a work tree in a process reads every file (it starts from HEAD's entries,
  // never from the repository's index: SECURITY.md "What verified means"); later ones start from the
  // engine's own index of the last tree. Its reference is git doing the same alone.
  const firstStart = performance.now();
  await evidenceTree(large, { baseEnv: GIT_ENV });
  const treeFirst = performance.now() - firstStart;
  const firstAlone = (() => {
    const index = join(scratch, "first.tmp");
    rmSync(index, { force: true });
    const env = { ...GIT_ENV, GIT_INDEX_FILE: index };
    const t = performance.now();
    for (const args of [["read-tree", "HEAD"], ["add", "-A"], ["write-tree"]]) {
      const r = spawnSync("git", args, { cwd: large, env, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    }
    return performance.now() - t;
  })();
  const scanLarge = await timed(() => scanBuildSignals([large]));
  const scanSmall = await timed(() => scanBuildSignals([small]));
  const treeLarge = await timed(() => evidenceTree(large, { baseEnv: GIT_ENV }));
  const gitAlone = await timed(async () => {
    const index = join(scratch, "index.tmp");
    copyFileSync(join(large, ".git", "index"), index);
    const env = { ...GIT_ENV, GIT_INDEX_FILE: index };
    for (const args of [["add", "-A"], ["write-tree"]]) {
      const r = spawnSync("git", args, { cwd: large, env, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    }
  });
  console.log(
    `B4: ${files} files: scan ${fixed(scanLarge, 1)} ms (empty repo ${fixed(scanSmall, 1)} ms); evidence tree ${fixed(treeLarge)} ms (git add -A + write-tree alone ${fixed(gitAlone)} ms); first evidence tree of the work tree ${fixed(treeFirst)} ms (git read-tree HEAD + add -A + write-tree alone ${fixed(firstAlone)} ms)`,
  );
  const scanRatio = scanLarge / scanSmall;
  const treeRatio = treeLarge / gitAlone;
  emitRow({
    id: "B4a",
    measure: `build-signal scan, ${files} files`,
    figure: `${fixed(scanLarge, 1)} ms`,
    reference: `empty repository ${fixed(scanSmall, 1)} ms`,
    goal: "≤ 1.5×",
    ratio: scanRatio,
    atGoal: scanRatio <= 1.5,
  });
  emitRow({
    id: "B4b",
    measure: `evidence tree, ${files} files`,
    figure: `${fixed(treeLarge)} ms`,
    reference: `git add -A + write-tree ${fixed(gitAlone)} ms`,
    goal: "≤ 1.2×",
    ratio: treeRatio,
    atGoal: treeRatio <= 1.2,
  });
  emitRow({
    id: "B4d",
    measure: `first evidence tree of a work tree, ${files} files (every file read)`,
    figure: `${fixed(treeFirst)} ms`,
    reference: `git read-tree HEAD + add -A + write-tree ${fixed(firstAlone)} ms`,
    goal: "≤ 1.2×",
    ratio: treeFirst / firstAlone,
    atGoal: treeFirst / firstAlone <= 1.2,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
}
