/**
 * docs/architecture.md's "One `auto` run, top to bottom" (issue 24: the trace of one `auto` run from the
 * action's entry to the completed check run "visits each file once, top to bottom") names files and functions
 * of `src/`. This test keeps it true: each step's file exists and defines the functions the step names (a
 * `Class.member` is a member defined after `class Class`), every `src/...` path in the section exists, the
 * steps are numbered 1..N, and the closing count of steps and files is the list's.
 *
 * The rule of the list (stated in the section too): a file is listed ONCE, where the run first reaches it; a
 * later call down into it is told in the calling step's line. The only repeated listing allowed is a call
 * back up through a port handed down (the reporter, the workspace, the model-CLI setup, the hooks), and each
 * such repeat must be marked `*(port call: …)*`; a file's first listing must not carry that mark. A renamed or
 * moved function, or a file entered again without a port, fails here instead of leaving the trace wrong.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HEADING = "## One `auto` run, top to bottom";

/** One numbered step: its number, its file, the functions it names, and its whole line. */
interface Step {
  readonly number: number;
  readonly file: string;
  readonly names: readonly string[];
  readonly line: string;
}

/** The section's text, from its heading to the next `## ` heading or the end of the file. */
function section(): string {
  const doc = readFileSync(join(REPO, "docs", "architecture.md"), "utf8");
  const start = doc.indexOf(`\n${HEADING}\n`);
  expect(start, `docs/architecture.md has no "${HEADING}" section`).toBeGreaterThan(0);
  const end = doc.indexOf("\n## ", start + HEADING.length + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** The steps: `N. \`src/file.ts\` · \`name\`, \`name\` — what it decides`. */
function steps(text: string): Step[] {
  const found: Step[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+)\. `(src\/[^`]+)` · (.*?) — /.exec(line);
    if (m === null) continue;
    const names = [...m[3]!.matchAll(/`([^`]+)`/g)].map((n) => n[1]!);
    found.push({ number: Number(m[1]), file: m[2]!, names, line });
  }
  return found;
}

/** The mark a step carries when it is a call back up through a port handed down. */
const PORT_CALL = /\*\(port call: /;

/**
 * Where `list` breaks the rule "a file is listed once; a repeat only as a marked port call": a repeat without
 * the mark, or a first listing with it. `[]` when the list keeps the rule.
 */
function repeatProblems(list: readonly Step[]): string[] {
  const first = new Map<string, number>();
  const wrong: string[] = [];
  for (const step of list) {
    const earlier = first.get(step.file);
    const marked = PORT_CALL.test(step.line);
    if (earlier === undefined) {
      first.set(step.file, step.number);
      if (marked)
        wrong.push(`step ${step.number} (${step.file}): its first listing is marked as a port call`);
    } else if (!marked)
      wrong.push(
        `step ${step.number} (${step.file}): listed again (first at step ${earlier}) without a *(port call: …)* mark`,
      );
  }
  return wrong;
}

/** `s` as a literal inside a RegExp (names may hold `$`). */
const literal = (s: string): string => s.replace(/[$]/g, "\\$");

/** Where `name` is defined in `source` (a function, class, const, or a member), or -1. */
function definedAt(source: string, name: string, from = 0): number {
  const n = literal(name);
  const patterns = [
    new RegExp(`\\bfunction\\*?\\s+${n}\\b`),
    new RegExp(`\\bclass\\s+${n}\\b`),
    new RegExp(`\\b(?:const|let)\\s+${n}\\b`),
    new RegExp(
      `^[ \\t]+(?:(?:public|private|protected|static|readonly|async|get|set|override)\\s+)*#?${n}\\s*(?:<[^>\\n]*>)?\\s*[(=]`,
      "m",
    ),
  ];
  const rest = source.slice(from);
  const hits = patterns.map((p) => p.exec(rest)?.index ?? -1).filter((i) => i >= 0);
  return hits.length === 0 ? -1 : from + Math.min(...hits);
}

/** Whether `name` (`fn` or `Class.member`) is defined in `source`. */
function defines(source: string, name: string): boolean {
  const [owner, member] = name.split(".");
  if (member === undefined) return definedAt(source, owner!) >= 0;
  const cls = new RegExp(`\\bclass\\s+${literal(owner!)}\\b`).exec(source);
  return cls !== null && definedAt(source, member, cls.index) >= 0;
}

describe("docs/architecture.md: one auto run, top to bottom", () => {
  const text = section();
  const list = steps(text);

  it("numbers its steps 1..N, one file each", () => {
    expect(list.length).toBeGreaterThan(20);
    expect(list.map((s) => s.number)).toEqual(list.map((_, i) => i + 1));
  });

  it("names files that exist and functions each file defines", () => {
    const wrong: string[] = [];
    for (const step of list) {
      const path = join(REPO, step.file);
      if (!existsSync(path)) {
        wrong.push(`step ${step.number}: ${step.file} does not exist`);
        continue;
      }
      if (step.names.length === 0 && !step.line.includes("(module top level)"))
        wrong.push(`step ${step.number}: names no function`);
      const source = readFileSync(path, "utf8");
      for (const name of step.names)
        if (!defines(source, name)) wrong.push(`step ${step.number}: ${step.file} defines no ${name}`);
    }
    expect(wrong).toEqual([]);
  });

  it("mentions only src/ paths that exist", () => {
    const paths = new Set([...text.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]!));
    expect(paths.size).toBeGreaterThan(20);
    expect([...paths].filter((p) => !existsSync(join(REPO, p)))).toEqual([]);
  });

  it("lists each file once, a repeat only as a marked port call, and counts steps and files as listed", () => {
    expect(repeatProblems(list)).toEqual([]);
    const files = new Set(list.map((s) => s.file));
    const counted = /\*\*Counted\.\*\* (\d+) steps enter (\d+) files/.exec(text);
    expect(counted, "the closing **Counted.** paragraph").not.toBeNull();
    expect([Number(counted![1]), Number(counted![2])]).toEqual([list.length, files.size]);
  });

  it("the repeat rule fails on an unmarked repeat and on a marked first listing (probe)", () => {
    const step = (number: number, file: string, rest: string): Step => ({
      number,
      file,
      names: [],
      line: `${number}. \`${file}\` · \`f\` — ${rest}`,
    });
    expect(repeatProblems([step(1, "src/a.ts", "first"), step(2, "src/a.ts", "again")])).toEqual([
      "step 2 (src/a.ts): listed again (first at step 1) without a *(port call: …)* mark",
    ]);
    expect(repeatProblems([step(1, "src/a.ts", "*(port call: x)* first")])).toEqual([
      "step 1 (src/a.ts): its first listing is marked as a port call",
    ]);
    expect(
      repeatProblems([step(1, "src/a.ts", "first"), step(2, "src/a.ts", "*(port call: x)* back")]),
    ).toEqual([]);
  });

  it("tells a definition from a mere mention (a re-export defines nothing)", () => {
    const reexport = readFileSync(join(REPO, "src/run/engine-process.ts"), "utf8");
    expect(reexport).toContain("enterCleanProcess");
    expect(defines(reexport, "enterCleanProcess")).toBe(false);
    expect(defines(readFileSync(join(REPO, "src/proc/clean-process.ts"), "utf8"), "enterCleanProcess")).toBe(
      true,
    );
  });
});
