/**
 * The shipped CLI keeps the per-command split (issue 24 item 5; scripts/build.mjs, src/cli/dispatch.ts):
 * `dist/cli.js` statically loads only its own small start-up code, and reaches each command's chunk through a
 * dynamic `import()`; no command's chunk statically loads another command's. Read from the bundle
 * (`npm run test:e2e` rebuilds it), and `--version` / `--help` run through it as a user runs them. The CPU
 * cost against `node -e 0` is measured by `npm run bench` (B9), never asserted.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { USAGE } from "../../src/cli/dispatch.js";
import { VERSION } from "../../src/cli/version.js";
import { DIST_CLI } from "../support/cli-harness.js";

const DIST = join(DIST_CLI, "..");
const STATIC = /(?:^|[;\n])\s*import\s*(?:[^;"']*?\sfrom\s*)?["'](\.\/[^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["'](\.\/[^"']+)["']\s*\)/g;

const textOf = (name: string) => readFileSync(join(DIST, name), "utf8");
/** The bundle files `name` loads before running (its static imports, transitively), itself included. */
function staticClosure(name: string): string[] {
  const seen = new Set<string>();
  const stack = [name];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    for (const m of textOf(f).matchAll(STATIC)) stack.push(m[1]!.slice(2));
  }
  return [...seen];
}
const bytes = (names: readonly string[]) => names.reduce((n, f) => n + statSync(join(DIST, f)).size, 0);

it("dist/cli.js loads under 64 KiB before a command is chosen; each command is a dynamic import of its own chunk", () => {
  const atStart = staticClosure("cli.js");
  const all = readdirSync(DIST).filter((f) => f === "cli.js" || /^cli-.*\.js$/.test(f));
  expect(bytes(atStart)).toBeLessThan(64 * 1024);
  expect(bytes(all)).toBeGreaterThan(1024 * 1024); // the split is real: the rest is megabytes
  const commandChunks = [...textOf("cli.js").matchAll(DYNAMIC)]
    .map((m) => m[1]!.slice(2))
    .filter((f) => /-command-/.test(f));
  // one per command of the dispatcher (the usage's list): auto, plan, run, verify, resume, lint, ledger, …
  expect(commandChunks.length).toBe([...USAGE.matchAll(/^ {2}[a-z]+ {2,}/gm)].length);
  for (const chunk of commandChunks) {
    const others = staticClosure(chunk).filter((f) => f !== chunk && commandChunks.includes(f));
    expect(others, `${chunk} statically loads another command`).toEqual([]);
  }
});

it("`node dist/cli.js --version` and `--help` answer as the in-process CLI does", () => {
  const version = spawnSync(process.execPath, [DIST_CLI, "--version"], { encoding: "utf8" });
  expect(version.status).toBe(0);
  expect(version.stdout).toBe(`evidence-gate ${VERSION}\n`);
  const help = spawnSync(process.execPath, [DIST_CLI, "--help"], { encoding: "utf8" });
  expect(help.status).toBe(0);
  expect(help.stdout).toBe(USAGE);
  const lint = spawnSync(process.execPath, [DIST_CLI, "lint", "--help"], { encoding: "utf8" });
  expect(lint.status).toBe(0);
  expect(lint.stdout).toMatch(/^usage: evidence-gate lint GRAPH/);
});
