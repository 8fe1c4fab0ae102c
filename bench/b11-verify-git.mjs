// B11 (issue 24): the git processes and the CPU one CLI `evidence-gate verify --verify-cmd "node a.js"` costs
// in a small repository (one commit, three files, a clean working tree).
//
//   node bench/b11-verify-git.mjs
//
// Git processes: the CLI runs once with a `git` first on its PATH that appends a line to a counter file and
// then execs the real git (found on PATH when the bench starts), so every git the run starts — the
// engine's and any the verify command would start — is counted. CPU: the CLI runs 5 more times without
// the wrapper under /usr/bin/time (`%U %S`: the CLI's and its children's user + system CPU seconds, from
// the kernel's rusage); the figure is the median. The reference is the same measure of
// `evidence-gate --version` (the CLI's start alone) in the same run. The count was 25 on main 7f09701 (this
// script, and strace -f -e trace=execve), 28 on 0ea2499, 21 since the evidence tree reads no index of the
// repository's. (Asking the top directory and the index path in one call from the verify's folder was
// withdrawn: README "Performance", B11.)
// Prints numbers; asserts nothing.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { DIST_CLI } from "./lib/cli.mjs";
import { emitRow, fixed, makeRepo, median, notMeasured, run } from "./lib/row.mjs";

const ROUNDS = 5;
const TIME = "/usr/bin/time";
const BEFORE = 28;
/**
 * The count this session leaves, each git named (README "Performance", B11): 28 before. The evidence tree
 * no longer reads the repository's index (SECURITY.md "What verified means"): no `rev-parse --git-path
 * index` and no `ls-files -v` per tree; the first tree of the work tree runs `read-tree HEAD`, later ones
 * start from the engine's own index of the last tree.
 */
const BOUND = 21;
const measure = "git processes and CPU of one CLI `verify` (3-file repository, clean tree)";
const goal = `at most ${BOUND} gits, each named (${BEFORE} before this session)`;

/** The real git on PATH (the wrapper must not find itself). */
function realGit() {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, "git"))) return join(dir, "git");
  }
  return null;
}

const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b11-"));
try {
  const git = realGit();
  if (git === null) {
    notMeasured("B11", measure, goal, "no git on PATH");
  } else {
    const repo = join(scratch, "repo");
    const home = join(scratch, "home");
    const wrapDir = join(scratch, "wrap");
    const counter = join(scratch, "gits.txt");
    for (const dir of [repo, home, wrapDir]) mkdirSync(dir);
    makeRepo(repo, { "README.md": "bench\n", "a.js": 'console.log("ok");\n', ".gitignore": "*.log\n" });
    writeFileSync(join(wrapDir, "git"), `#!/bin/sh\necho "$*" >> '${counter}'\nexec '${git}' "$@"\n`);
    chmodSync(join(wrapDir, "git"), 0o755);
    const path = process.env.PATH ?? "/usr/bin:/bin";
    const env = (pathValue) => ({ PATH: pathValue, HOME: home, LANG: "C.UTF-8" });
    const verifyArgs = [DIST_CLI, "verify", "--verify-cmd", "node a.js", "--repo", repo];

    const counted = await run(process.execPath, verifyArgs, {
      cwd: repo,
      env: env(`${wrapDir}${delimiter}${path}`),
    });
    if (counted.code !== 0)
      throw new Error(`evidence-gate verify exited ${counted.code}:\n${counted.stderr}`);
    const calls = readFileSync(counter, "utf8").split("\n").filter(Boolean);

    if (!existsSync(TIME)) {
      console.log(`B11: ${calls.length} git processes; CPU not measured (${TIME} missing)`);
      notMeasured(
        "B11",
        measure,
        goal,
        `${TIME} is not installed (Debian package time); ${calls.length} gits`,
      );
    } else {
      /** CPU milliseconds (user + system, children included) of `node ARGS`, from /usr/bin/time. */
      const cpuMs = async (args) => {
        const r = await run(TIME, ["-f", "EG-CPU %U %S", process.execPath, ...args], {
          cwd: repo,
          env: env(path),
        });
        if (r.code !== 0) throw new Error(`node ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
        const m = /EG-CPU ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
        if (m === null) throw new Error(`no CPU line from ${TIME}: ${r.stderr}`);
        return (Number(m[1]) + Number(m[2])) * 1000;
      };
      const verify = [];
      const start = [];
      for (let i = 0; i < ROUNDS; i++) {
        start.push(await cpuMs([DIST_CLI, "--version"]));
        verify.push(await cpuMs(verifyArgs));
      }
      const byCommand = new Map();
      for (const call of calls) {
        const name = call
          .replace(/^(-c \S+ )*/, "")
          .split(" ")
          .slice(0, 2)
          .join(" ");
        byCommand.set(name, (byCommand.get(name) ?? 0) + 1);
      }
      console.log(
        `B11: ${calls.length} git processes (${[...byCommand].map(([k, v]) => `${v}× ${k}`).join(", ")}); verify ${verify.map((m) => fixed(m)).join(", ")} ms CPU; --version ${start.map((m) => fixed(m)).join(", ")} ms CPU`,
      );
      emitRow({
        id: "B11",
        measure,
        figure: `${calls.length} gits, ${fixed(median(verify))} ms CPU`,
        reference: `--version ${fixed(median(start))} ms CPU; ${BEFORE} gits before this session`,
        goal,
        ratio: calls.length / BOUND,
        atGoal: calls.length <= BOUND,
      });
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
