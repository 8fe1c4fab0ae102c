/**
 * Keeps the test tiers honest (test/tiers.ts; CONVENTIONS "Testing doctrine"; issue 24 item 2): `npm test`
 * must need no real model CLI, no `dist/` and no host change. It can fail:
 *
 * - every module under `test/` is read (no include-list); one whose code names a real CLI binary
 *   (`node_modules/.bin/claude`, `…/codex`) or a `dist/` entry (`dist/index.js`, `dist/cli.js`,
 *   `dist/post.js`) must be a listed harness (REAL_PROCESS_HARNESSES) or a test file outside the fast
 *   tier, so a fast-tier file that starts one directly, or a new helper that does, goes red by name;
 * - a module that changes the host (`useradd`, `apt-get`, `/etc/sudoers`) may be reached only from host-tier
 *   files;
 * - every listed harness must still name a real CLI or `dist/` (no stale entries);
 * - the tiers' regular-expression import reader must find what TypeScript's own reader finds, file by file;
 * - vitest's projects must be exactly these tiers.
 *
 * Code is read from the TypeScript syntax tree (string and template literals; comments do not count).
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.js";
import { REPO_ROOT } from "../support/repo-root.js";
import {
  moduleFiles,
  REAL_PROCESS_HARNESSES,
  relativeImports,
  resolveSpecifier,
  type Tier,
  testTiers,
} from "../tiers.js";

const tiers = testTiers(REPO_ROOT);
const tierOfFile = new Map<string, Tier>(
  (Object.entries(tiers) as [Tier, readonly string[]][]).flatMap(([tier, files]) =>
    files.map((f) => [f, tier]),
  ),
);
const modules = moduleFiles(join(REPO_ROOT, "test"))
  .filter((f) => !f.includes(`${sep}fixtures${sep}`))
  .map((f) => relative(REPO_ROOT, f).split(sep).join("/"));

/** The text of every string and template literal in `source` (a `${…}` splits a template into pieces). */
function literals(source: string, fileName = "probe.ts"): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const DIST_ENTRY = /^(?:cli|index|post)\.js$/;

/**
 * What `source` starts that the fast tier must not: `real CLI` when a literal names the pinned binaries,
 * `dist/` when one names a bundle entry — as one path (`"dist/cli.js"`, `` `${root}/dist/index.js` ``) or
 * as path pieces (`join(root, "dist", "cli.js")`). Empty when it names neither.
 */
function realProcessesNamed(source: string, fileName?: string): string[] {
  const found = new Set<string>();
  const texts = literals(source, fileName);
  texts.forEach((text, i) => {
    if (/node_modules\/\.bin\/(?:claude|codex)\b/.test(text)) found.add("real CLI");
    if (/(?:^|\/)dist\/(?:cli|index|post)\.js\b/.test(text)) found.add("dist/");
    if (/(?:^|\/)dist\/?$/.test(text) && DIST_ENTRY.test(texts[i + 1] ?? "")) found.add("dist/");
  });
  return [...found];
}

/** What `source` does to the host, by the commands it names (`useradd`, `apt-get`, `/etc/sudoers`). */
function hostChangesNamed(source: string, fileName?: string): string[] {
  return literals(source, fileName).filter((t) => /^(?:useradd|apt-get|groupadd)$|\/etc\/sudoers/.test(t));
}

const texts = new Map<string, string>();
const textOf = (path: string): string => {
  const known = texts.get(path);
  if (known !== undefined) return known;
  const text = readFileSync(join(REPO_ROOT, path), "utf8");
  texts.set(path, text);
  return text;
};
/** This file: its probes name what they probe for, on purpose. */
const SELF = "test/architecture/test-tiers.test.ts";
/** Only modules whose raw text could hold a signature are parsed (a parse of every module costs seconds). */
const mayName = (path: string, words: RegExp) => path !== SELF && words.test(textOf(path));
const REAL_WORDS = /\.bin\/|dist/;
const HOST_WORDS = /useradd|apt-get|groupadd|sudoers/;

describe("the detectors see what they must (probes)", () => {
  it.each([
    ['const BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));', ["real CLI"]],
    ['spawn(BIN_DIR + "/node_modules/.bin/codex", [])', ["real CLI"]],
    ['const ENTRY = join(ROOT, "dist", "index.js");', ["dist/"]],
    [`spawn(process.execPath, [\`\${ROOT}/dist/cli.js\`, 'bot'])`, ["dist/"]],
    ['run("node", ["dist/post.js"])', ["dist/"]],
    ['const ignore = "node_modules/\\ndist/\\n"; await repo.write("dist/bundle.js", "x");', []],
    ['expect(dirs).toContain("dist");', []],
    ["/** runs `node dist/index.js` (a comment) */\nexport const x = 1;", []],
  ])("%s → %j", (source, expected) => {
    expect(realProcessesNamed(source)).toEqual(expected);
  });
});

describe("test tiers", () => {
  it("every module that names a real CLI or dist/ is a listed harness or a test file outside the fast tier", () => {
    const offenders = modules.flatMap((path) => {
      const named = mayName(path, REAL_WORDS) ? realProcessesNamed(textOf(path), path) : [];
      if (named.length === 0 || REAL_PROCESS_HARNESSES.includes(path)) return [];
      const tier = tierOfFile.get(path);
      if (tier !== undefined && tier !== "fast") return [];
      return [
        `${path} starts ${named.join(" and ")} but is ${tier === undefined ? "not a listed harness" : "in the fast tier"}: ` +
          (tier === undefined
            ? "add it to REAL_PROCESS_HARNESSES in test/tiers.ts"
            : "move that test to test/e2e/ (or a *.real-cli.test.ts file), or start it through a listed harness"),
      ];
    });
    expect(offenders).toEqual([]);
    // The scan itself sees something: the listed harnesses are real-process modules.
    expect(
      modules.filter((p) => mayName(p, REAL_WORDS) && realProcessesNamed(textOf(p), p).length > 0).length,
    ).toBeGreaterThan(REAL_PROCESS_HARNESSES.length);
  });

  it("every listed harness exists and still names a real CLI or dist/", () => {
    for (const harness of REAL_PROCESS_HARNESSES) {
      expect(modules, `${harness}: not a module under test/`).toContain(harness);
      expect(
        realProcessesNamed(textOf(harness), harness),
        `${harness}: names no real CLI or dist/`,
      ).not.toEqual([]);
    }
  });

  it("a module that changes the host is reached only from host-tier test files", () => {
    const hostModules = new Set(
      modules.filter((p) => mayName(p, HOST_WORDS) && hostChangesNamed(textOf(p), p).length > 0),
    );
    expect(hostModules.size).toBeGreaterThan(0);
    const reached = (file: string): string[] => {
      const seen = new Set<string>();
      const stack = [file];
      for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
        if (seen.has(f)) continue;
        seen.add(f);
        let text = "";
        try {
          text = textOf(f);
        } catch {
          continue;
        }
        for (const s of relativeImports(text)) {
          const next = relative(REPO_ROOT, resolveSpecifier(join(REPO_ROOT, f), s))
            .split(sep)
            .join("/");
          if (next.startsWith("test/")) stack.push(next);
        }
      }
      return [...seen].filter((f) => hostModules.has(f));
    };
    const offenders = [...tiers.fast, ...tiers.e2e].flatMap((file) =>
      reached(file).map(
        (m) =>
          `${file} (${tierOfFile.get(file)}) reaches ${m}, which changes the host: name it *.root.test.ts`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("the tiers' import reader finds what TypeScript's reader finds, in every module under test/", () => {
    for (const path of modules) {
      const text = textOf(path);
      const byTypeScript = ts
        .preProcessFile(text, true, true)
        .importedFiles.map((f) => f.fileName)
        .filter((s) => s.startsWith("."));
      expect(new Set(relativeImports(text)), path).toEqual(new Set(byTypeScript));
    }
  });

  it("partitions the test files, each tier non-empty, and vitest's projects are exactly the tiers", () => {
    const all = modules.filter((p) => p.endsWith(".test.ts"));
    expect([...tierOfFile.keys()].sort()).toEqual([...all].sort());
    for (const tier of ["fast", "e2e", "host"] as const) expect(tiers[tier].length, tier).toBeGreaterThan(0);
    expect(tiers.host.every((f) => f.endsWith(".root.test.ts"))).toBe(true);
    expect(tierOfFile.get("test/architecture/test-tiers.test.ts")).toBe("fast");
    const projects = (config.test?.projects ?? []) as { test: { name: Tier; include: string[] } }[];
    expect(Object.fromEntries(projects.map((p) => [p.test.name, p.test.include]))).toEqual(tiers);
  });
});
