/**
 * Users do not have the project's SPEC (issue 26): no string literal in `src/` — every message, title,
 * summary line and log line is built from them — may cite it ("SPEC §9"). Code comments may; they are for
 * maintainers. A message points at what a user has: the README, SECURITY.md, docs/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(REPO, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.[cm]?ts$/.test(entry.name) ? [full] : [];
  });
}

/** Every string literal and template-literal piece in `path`, with its line (1-based). */
function stringsOf(path: string): { readonly line: number; readonly text: string }[] {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("user-facing strings", () => {
  it("no string in src/ cites the SPEC (users read the README, SECURITY.md and docs/, not the SPEC)", () => {
    const citing = sourceFiles(SRC).flatMap((file) =>
      stringsOf(file)
        .filter(({ text }) => /\bSPEC\b|§\s*\d/.test(text))
        .map(({ line, text }) => `${relative(REPO, file)}:${line}: ${text.slice(0, 160)}`),
    );
    expect(citing).toEqual([]);
  });

  it("the scan sees template pieces too (a check that could not fail would prove nothing)", () => {
    const strings = stringsOf(join(SRC, "pull-request", "pull-request-run.ts")).map((s) => s.text);
    expect(strings.some((text) => text.includes("/evidence-gate run comment"))).toBe(true);
  });
});
