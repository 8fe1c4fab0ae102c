/**
 * The three test tiers (CONVENTIONS "Testing doctrine"; issue 24 item 2), decided by one rule that needs no
 * hand list of test files, so a test file added tomorrow lands in the right tier the day it appears:
 *
 * - **host** (`npm run test:host`, as root in CI): a file named `*.root.test.ts` — it creates users, installs
 *   packages or writes `/etc` (the separate user for PR code, sudo, the runner's service user).
 * - **e2e** (`npm run test:e2e`, which rebuilds `dist/` first): a file under `test/e2e/`, a file named
 *   `*.real-cli.test.ts`, or a file that imports — directly or through other modules under `test/` — one of
 *   the {@link REAL_PROCESS_HARNESSES}, the helpers that start a real model CLI (`claude`, `codex`) or the
 *   bundle in `dist/`.
 * - **fast** (`npm test`): every other `*.test.ts` under `test/` — no real model CLI, no `dist/`, no host
 *   change; the engine through the scripted stand-ins, the action's decisions in-process against the
 *   GitHub API double.
 *
 * test/architecture/test-tiers.test.ts keeps the rule honest: every module under `test/` whose code names
 * a real CLI binary or a `dist/` entry must be a listed harness or a test file outside the fast tier, every
 * listed harness must still name one, and the import reader here must agree with TypeScript's.
 *
 * Read by vitest.config.ts when vitest starts, so it is plain Node (no TypeScript compiler: a regular
 * expression reads the imports; the guard test checks it against the compiler's reading).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** A test tier: the npm script that runs it is `test` (fast), `test:e2e` or `test:host`. */
export type Tier = "fast" | "e2e" | "host";

/**
 * The helper modules (paths relative to the repository, `/`-separated) that start a real model CLI or
 * `dist/`; any test file importing one, directly or not, is e2e. The guard test fails when a module under
 * `test/` starts one without being listed here (or being an e2e/host test file), and when a listed module
 * no longer does.
 */
export const REAL_PROCESS_HARNESSES: readonly string[] = [
  // The pinned `claude` / `codex` from node_modules/.bin, against the scripted model server.
  "test/runtime/real-claude.ts",
  "test/runtime/real-codex.ts",
  "test/support/scenarios/codex.ts",
  // `node dist/index.js` / `dist/post.js` as the runner starts the action.
  "test/support/action-harness.ts",
  // `node dist/cli.js` as an async child (and the real claude through real-claude.ts).
  "test/support/cli-harness.ts",
];

/** The test files of `root` (the repository), relative and `/`-separated, by tier; each list sorted. */
export function testTiers(root: string): Readonly<Record<Tier, readonly string[]>> {
  const tiers: Record<Tier, string[]> = { fast: [], e2e: [], host: [] };
  const reaches = reachesHarness(root);
  for (const file of moduleFiles(join(root, "test"))) {
    if (!file.endsWith(".test.ts")) continue;
    const path = relative(root, file).split(sep).join("/");
    tiers[tierOf(path, reaches)].push(path);
  }
  for (const list of Object.values(tiers)) list.sort();
  return tiers;
}

/**
 * The tier of one test file by the rule above; `importsHarness(path)` says whether the file reaches a
 * real-process harness through its imports (relative path in, boolean out).
 */
export function tierOf(path: string, importsHarness: (path: string) => boolean): Tier {
  if (path.endsWith(".root.test.ts")) return "host";
  if (path.startsWith("test/e2e/") || path.endsWith(".real-cli.test.ts")) return "e2e";
  return importsHarness(path) ? "e2e" : "fast";
}

/** Every `.ts` file under `dir`, absolute (fixtures included: they are data, and never import a harness). */
export function moduleFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...moduleFiles(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(full);
  }
  return found;
}

const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s[^;"'`]*?from\s*["']([^"']+)["']|(?:^|[\s;}])import\s*["']([^"']+)["']|\bimport\s*\(\s*["'`]([^"'`$]+)["'`]\s*\)/gm;

/**
 * The relative module specifiers (`./x.js`, `../y/index.js`) a module's text imports, re-exports or
 * `import()`s with a literal; package and `node:` specifiers are left out. Comments are not removed: a
 * commented-out import counts, which can only move a file to a slower tier, never hide a harness.
 */
export function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[1] ?? m[2] ?? m[3];
    if (specifier?.startsWith(".")) out.push(specifier);
  }
  return out;
}

/**
 * The `.ts` file a relative specifier names from `from` (absolute), or undefined when it is outside
 * `test/`-side TypeScript (a `.json`, a `.mjs` script): `./x.js` → `./x.ts`, `./dir/index.js` likewise.
 */
export function resolveSpecifier(from: string, specifier: string): string {
  return resolve(dirname(from), specifier).replace(/\.js$/, ".ts");
}

/** `path (relative to root) → does it reach a harness` over the import graph of `test/` (files read once). */
function reachesHarness(root: string): (path: string) => boolean {
  const harnesses = new Set(REAL_PROCESS_HARNESSES.map((h) => resolve(root, h)));
  const testDir = join(root, "test") + sep;
  const imports = new Map<string, readonly string[]>();
  const importsOf = (file: string): readonly string[] => {
    let found = imports.get(file);
    if (found === undefined) {
      let text = "";
      try {
        text = readFileSync(file, "utf8");
      } catch {
        // not a test-side .ts file (a .json, a .mjs script): it imports nothing we follow
      }
      found = relativeImports(text)
        .map((s) => resolveSpecifier(file, s))
        .filter((next) => next.startsWith(testDir));
      imports.set(file, found);
    }
    return found;
  };
  return (path) => {
    const seen = new Set<string>();
    const stack = [resolve(root, path)];
    for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
      if (harnesses.has(file)) return true;
      if (seen.has(file)) continue;
      seen.add(file);
      stack.push(...importsOf(file));
    }
    return false;
  };
}
