// B7 (issue 16): the action's model-CLI install (src/run/install-cli.ts `ensureCli`, as the action calls it
// before its first model call), cold (an empty tool cache: npm install, then the copy into the cache) and
// warm (a second run on the same cache: found, resolved, hashed), against a plain `npm install` of the same
// pinned version into a temp folder, measured in the same run.
//
//   node bench/b7-cli-install.mjs      (needs the npm registry; downloads the pinned claude once)
//
// The cold install uses a fresh npm cache (`npm_config_cache`), so it downloads the package as a fresh
// runner does; the reference `npm install` runs after it on that same npm cache (no download: npm's own
// install work), so cold − reference ≈ the download plus the copy into the tool cache. The version is
// `claude-version`'s default in action.yml. When the registry cannot be reached the row says so. Prints
// numbers; asserts nothing.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { ROOT } from "./lib/cli.mjs";
import { emitRow, fixed, notMeasured, run } from "./lib/row.mjs";

const MEASURE = "model CLI install, warm vs cold";
const GOAL = "warm ≤ 2 s";
const version = /claude-version:[\s\S]*?default: "([^"]+)"/.exec(
  readFileSync(join(ROOT, "action.yml"), "utf8"),
)?.[1];
const spec = `@anthropic-ai/claude-code@${version}`;

const reachable = spawnSync("npm", ["view", spec, "version"], { encoding: "utf8", timeout: 60_000 });
if (reachable.status !== 0 || reachable.stdout.trim() !== version) {
  notMeasured("B7", MEASURE, GOAL, `npm view ${spec} failed: the registry is not reachable from here`);
  process.exit(0);
}

mkdirSync(join(ROOT, ".bench-cache"), { recursive: true });
const work = mkdtempSync(join(ROOT, ".bench-cache", "b7-"));
const scratch = mkdtempSync(join(tmpdir(), "eg-bench-b7-"));
try {
  await build({
    entryPoints: [join(ROOT, "bench", "b7-rig.ts")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile: join(work, "rig.mjs"),
    logLevel: "warning",
    banner: {
      js: "import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);",
    },
  });
  const rig = await import(pathToFileURL(join(work, "rig.mjs")).href);
  const dir = (name) => {
    const path = join(scratch, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const npmCache = dir("npm-cache");
  // @actions/tool-cache reads these from process.env on every call.
  process.env.RUNNER_TOOL_CACHE = dir("tool-cache");
  // The machine's environment (its proxy and CA settings), as the runner gives the action its own.
  const env = { ...process.env, HOME: dir("home"), npm_config_cache: npmCache };

  /** One `ensureCli` as the action makes it, with its own RUNNER_TEMP; resolves with ms and the lookup. */
  const install = async (name) => {
    process.env.RUNNER_TEMP = dir(name);
    const started = performance.now();
    const lookup = await rig.ensureCli(rig.CLAUDE_CLI, {
      version,
      env: { ...env, RUNNER_TEMP: process.env.RUNNER_TEMP },
      knownSecrets: [],
      log: (line) => console.log(`B7:   ${line}`),
    });
    const ms = performance.now() - started;
    if (lookup.kind !== "found") throw new Error(`ensureCli (${name}): ${lookup.message}`);
    return { ms, installed: lookup.installed };
  };

  const cold = await install("cold");
  const reference = await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-online", "--prefix", dir("plain"), spec],
    { env: { ...env }, cwd: scratch },
  );
  if (reference.code !== 0) throw new Error(`npm install ${spec}: ${reference.stderr.slice(-800)}`);
  const warm = await install("warm");
  console.log(
    `B7: ${spec}: cold ${fixed(cold.ms)} ms (installed: ${cold.installed}), warm ${fixed(warm.ms)} ms (installed: ${warm.installed}), plain npm install ${fixed(reference.ms)} ms (npm cache warm)`,
  );
  emitRow({
    id: "B7",
    measure: `claude ${version} install in the action: warm (tool cache hit); cold ${fixed(cold.ms / 1000, 1)} s`,
    figure: `${fixed(warm.ms)} ms`,
    reference: `npm install ${fixed(reference.ms)} ms`,
    goal: GOAL,
    ratio: warm.ms / reference.ms,
    atGoal: warm.ms <= 2000 && !warm.installed,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}
