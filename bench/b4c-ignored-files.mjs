// Measures the git-ignored files fingerprint (src/evidence/ignored-files.ts) on a repository with many
// ignored files, and prints the numbers. Not a test: nothing is asserted.
//
//   node bench/b4c-ignored-files.mjs [FILES=50000] [ROUNDS=5]
//
// It bundles the module with esbuild into a temp file (as scripts/demo.mjs does), makes a git repository
// in a temp folder whose `node_modules/` holds FILES small ignored files (100 per package folder), then
// times: `git ls-files --others --ignored --exclude-standard -z` alone, the full fingerprint (cold, then
// ROUNDS warm runs), a comparison of two fingerprints after one edit, and the re-baseline merge. Its
// `npm run bench` row (B4c, context for B4: no goal in issue 16) is the warm fingerprint against
// `git ls-files` alone; without arguments FILES is 50000 × BENCH_SCALE.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleScript } from "../scripts/bundle.mjs";
import { benchScale, emitRow } from "./lib/row.mjs";

const files = Number(process.argv[2] ?? Math.round(50_000 * benchScale()));
const rounds = Number(process.argv[3] ?? 5);
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

const work = mkdtempSync(join(tmpdir(), "evidence-gate-bench-"));
try {
  const outfile = join(work, "ignored-files.mjs");
  await bundleScript("src/evidence/ignored-files.ts", outfile);
  const { ignoredFilesFingerprint, compareIgnoredFiles, acceptVerifyChanges } = await import(
    pathToFileURL(outfile).href
  );

  const repo = join(work, "repo");
  mkdirSync(repo);
  const git = (...args) => {
    const r = spawnSync("git", args, { cwd: repo, env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  git("init", "--quiet", "--initial-branch=main");
  writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
  writeFileSync(join(repo, "index.js"), "export {};\n");
  git("add", "-A");
  git("-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "--quiet", "-m", "init");

  let t = performance.now();
  for (let i = 0; i < files; i++) {
    const dir = join(repo, "node_modules", `pkg-${Math.floor(i / 100)}`, "lib");
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file-${i % 100}.js`), `module.exports = ${i};\n`);
  }
  const ms = (from) => (performance.now() - from).toFixed(0);
  console.log(`repository: ${files} ignored files written in ${ms(t)} ms (${repo})`);

  t = performance.now();
  const gitStarted = performance.now();
  const listed = spawnSync("git", ["ls-files", "--others", "--ignored", "--exclude-standard", "-z"], {
    cwd: repo,
    env,
    maxBuffer: 1 << 30,
  });
  const gitMs = performance.now() - gitStarted;
  console.log(`git ls-files alone: ${ms(t)} ms, ${listed.stdout.length} bytes of output`);

  const options = { baseEnv: env };
  t = performance.now();
  const first = await ignoredFilesFingerprint(repo, options);
  console.log(`fingerprint (first): ${ms(t)} ms, ${first.kind}, ${first.files ?? first.reason} files`);

  const times = [];
  let last = first;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    last = await ignoredFilesFingerprint(repo, options);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `fingerprint (warm, ${rounds} rounds): median ${median.toFixed(0)} ms, min ${times[0].toFixed(0)} ms, max ${times.at(-1).toFixed(0)} ms; same hash as the first: ${last.hash === first.hash}`,
  );
  emitRow({
    id: "B4c",
    measure: `ignored-files fingerprint, ${files} ignored files (warm, median of ${rounds})`,
    figure: `${median.toFixed(0)} ms`,
    reference: `git ls-files --ignored alone ${gitMs.toFixed(0)} ms`,
    goal: "— (context for B4)",
    ratio: median / gitMs,
    atGoal: null,
  });

  writeFileSync(join(repo, "node_modules", "pkg-0", "lib", "file-0.js"), "module.exports = -1;\n");
  const edited = await ignoredFilesFingerprint(repo, options);
  t = performance.now();
  const comparison = compareIgnoredFiles(first, edited);
  console.log(
    `compare after one edit: ${ms(t)} ms, ${comparison.kind} (${comparison.total ?? "?"} path: ${comparison.examples?.[0]?.path})`,
  );
  t = performance.now();
  acceptVerifyChanges(first, first, edited);
  console.log(`re-baseline merge: ${ms(t)} ms`);

  t = performance.now();
  const bounded = await ignoredFilesFingerprint(repo, { ...options, maxEntries: Math.floor(files / 2) });
  console.log(`over the bound (${Math.floor(files / 2)}): ${ms(t)} ms, ${bounded.kind}: ${bounded.reason}`);
  const heap = process.memoryUsage();
  console.log(
    `memory now: rss ${(heap.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(heap.heapUsed / 2 ** 20).toFixed(0)} MiB`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
