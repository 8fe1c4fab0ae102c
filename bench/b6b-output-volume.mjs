// Measures the engine's verify (src/evidence/verify.ts) on commands that print a lot and exit 0, against
// the bare command in the same run, and prints a table. Not a test: nothing is asserted, nothing fails on
// timing (CONVENTIONS "Testing doctrine").
//
//   node bench/b6b-output-volume.mjs [MB...] [ROUNDS]      e.g. node bench/b6b-output-volume.mjs 20 200 3
//   (no arguments: 200 MB × BENCH_SCALE, one round, and the B6b row for `npm run bench`)
//
// Each measurement runs in its own Node child (the same script, bundled once with esbuild as the other
// benches are), which times the run itself and reports its own peak RSS (`process.resourceUsage().maxRSS`),
// so every row carries the same Node baseline. Rows, per size and output shape:
// - `bare > /dev/null`: the command alone, its output thrown away by the kernel (the floor);
// - `bare | node reader`: the command alone, its output drained through a pipe by a Node reader that only
//   counts bytes (the least any reader of the output pays, and what a CI runner's own log pipe costs);
// - `verify`: `runVerify` — the evidence tree of a small git repository, the verify child environment, the
//   command through the exec seam, the 4 KiB tail;
// - `verify + output_matches`: the same with a pattern, so the bounded 16 MiB head-and-tail buffer is
//   filled and searched once (pattern `END\n?$`: anchored, so the whole kept text is scanned).
// A verify also has a fixed cost whatever the output (git for the evidence tree and its gaps, the child
// environment, the spawn): it is measured on a command printing 4 bytes and printed above the table.
// Shapes: `one line` (N bytes of NUL with no newline, then `END`: the case that was quadratic) and
// `lines` (65-byte lines from `yes`). Times are the median of ROUNDS, RSS the largest.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundleScript } from "../scripts/bundle.mjs";
import { benchScale, emitRow } from "./lib/row.mjs";

const CHILD = process.argv[2] === "--child";

if (CHILD) {
  await child(process.argv.slice(3));
} else {
  await main();
}

/** One measurement: `MODE COMMAND [VERIFY_BUNDLE REPO]`; prints `{ms, maxRssMiB, outcome}` as JSON. */
async function child([mode, command, bundle, repo]) {
  const { spawn } = await import("node:child_process");
  // Loaded before the clock starts: the rows compare running the command, not loading the module.
  const { runVerify, compilePattern } = await import(pathToFileURL(bundle).href);
  const pattern = compilePattern("END\\n?$");
  if (!pattern.ok) throw new Error(pattern.message);
  const started = performance.now();
  let outcome;
  if (mode === "devnull" || mode === "pipe") {
    outcome = await new Promise((resolve) => {
      const stdio = mode === "devnull" ? ["ignore", "ignore", "ignore"] : ["ignore", "pipe", "pipe"];
      const proc = spawn("/bin/sh", ["-c", command], { stdio });
      let bytes = 0;
      proc.stdout?.on("data", (chunk) => {
        bytes += chunk.length;
      });
      proc.stderr?.on("data", (chunk) => {
        bytes += chunk.length;
      });
      proc.on("close", (code) => resolve(`exit ${code}${mode === "pipe" ? `, ${bytes} bytes read` : ""}`));
    });
  } else {
    const evidence = await runVerify({
      command,
      cwd: repo,
      timeoutMs: 600_000,
      expectExit: 0,
      env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      passThrough: [],
      knownSecrets: [],
      ...(mode === "verify-match" ? { outputMatches: pattern.pattern } : {}),
    });
    outcome = `${evidence.outcome}${evidence.outputMatches ? `, matched ${evidence.outputMatches.matched}` : ""}`;
  }
  const ms = performance.now() - started;
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMiB, outcome })}\n`);
}

async function main() {
  const args = process.argv.slice(2).map(Number);
  // Without arguments (`npm run bench`): one size, 200 MB × BENCH_SCALE, one round.
  const sizes =
    args.length > 1
      ? args.slice(0, -1)
      : args.length === 1
        ? args
        : [Math.max(1, Math.round(200 * benchScale()))];
  const rounds = args.length > 1 ? args.at(-1) : 1;
  const work = mkdtempSync(join(tmpdir(), "evidence-gate-bench-output-"));
  try {
    const entry = join(work, "entry.ts");
    const root = fileURLToPath(new URL("..", import.meta.url));
    writeFileSync(
      entry,
      `export { runVerify } from ${JSON.stringify(join(root, "src/evidence/verify.ts"))};\nexport { compilePattern } from ${JSON.stringify(join(root, "src/graph/pattern.ts"))};\n`,
    );
    const bundle = join(work, "verify.mjs");
    await bundleScript(entry, bundle);
    const repo = join(work, "repo");
    mkdirSync(repo);
    const git = (...a) =>
      spawnSync("git", a, { cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
    git("init", "--quiet");
    writeFileSync(join(repo, "README.md"), "bench\n");
    git("add", "-A");
    git("-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "--quiet", "-m", "init");

    const median = (mode, command) => {
      const runs = [];
      for (let r = 0; r < rounds; r++) runs.push(measure(mode, command, bundle, repo));
      runs.sort((a, b) => a.ms - b.ms);
      return {
        ms: runs[Math.floor(runs.length / 2)].ms,
        maxRssMiB: Math.max(...runs.map((run) => run.maxRssMiB)),
        outcome: runs[0].outcome,
      };
    };
    // What a verify costs whatever the output: the evidence tree and gap checks (git), the child
    // environment, the spawn.
    const fixed = { pipe: median("pipe", "echo END"), verify: median("verify", "echo END") };
    const rows = [];
    for (const mb of sizes) {
      const bytes = mb * 1_000_000;
      const shapes = [
        ["one line", `head -c ${bytes} /dev/zero; echo END`],
        [
          "lines",
          `yes 'a line of build output, sixty-four characters long, give or take' | head -c ${bytes}; echo END`,
        ],
      ];
      for (const [shape, command] of shapes) {
        const measured = {};
        for (const mode of ["devnull", "pipe", "verify", "verify-match"])
          measured[mode] = median(mode, command);
        rows.push({ mb, shape, measured });
      }
    }
    print(rows, rounds, fixed);
    // The `npm run bench` row (B6b, context for B6's memory: the time side), the largest size, short lines.
    const last = rows.filter((r) => r.shape === "lines").at(-1);
    emitRow({
      id: "B6b",
      measure: `verify of a command printing ${last.mb} MB of lines (wall)`,
      figure: `${last.measured.verify.ms.toFixed(0)} ms`,
      reference: `bare, piped to a node reader ${last.measured.pipe.ms.toFixed(0)} ms`,
      goal: "— (context for B6)",
      ratio: last.measured.verify.ms / last.measured.pipe.ms,
      atGoal: null,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function measure(mode, command, bundle, repo) {
  const script = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, [script, "--child", mode, command, bundle, repo], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`${mode} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
}

function print(rows, rounds, fixed) {
  const label = {
    devnull: "bare > /dev/null",
    pipe: "bare | node reader",
    verify: "verify",
    "verify-match": "verify + output_matches",
  };
  const header = [
    "size",
    "shape",
    "run",
    "wall ms",
    "× /dev/null",
    "× pipe",
    "peak RSS MiB",
    "+RSS vs pipe",
    "outcome",
  ];
  const lines = [header];
  for (const { mb, shape, measured } of rows) {
    for (const [mode, m] of Object.entries(measured)) {
      lines.push([
        `${mb} MB`,
        shape,
        label[mode],
        m.ms.toFixed(0),
        (m.ms / measured.devnull.ms).toFixed(2),
        (m.ms / measured.pipe.ms).toFixed(2),
        m.maxRssMiB.toFixed(0),
        mode === "devnull" || mode === "pipe" ? "" : signed(m.maxRssMiB - measured.pipe.maxRssMiB),
        m.outcome,
      ]);
    }
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
  const render = (l) => `| ${l.map((cell, i) => String(cell).padEnd(widths[i])).join(" | ")} |`;
  console.log(
    `output volume: median wall time of ${rounds} round(s), largest peak RSS (each run in its own Node child)`,
  );
  console.log(
    `fixed cost (a command printing 4 bytes): verify ${fixed.verify.ms.toFixed(0)} ms, bare | node reader ${fixed.pipe.ms.toFixed(0)} ms`,
  );
  console.log(render(header));
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const l of lines.slice(1)) console.log(render(l));
}

/** A difference in MiB with its sign (`+5`, `-9`). */
function signed(mib) {
  return `${mib >= 0 ? "+" : ""}${mib.toFixed(0)}`;
}
