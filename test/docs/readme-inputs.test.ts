/**
 * The README's inputs table names every input `action.yml` declares (issue 26: `max-cycles`,
 * `max-cost-usd` and `repair-attempts` were missing, so a new user reading the README never learnt of them).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Input names in the first cell of each row of the README's `## Inputs` table (`a` / `b` rows give both). */
function readmeInputs(): Set<string> {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const start = readme.indexOf("\n## Inputs\n");
  const end = readme.indexOf("\n### ", start);
  expect(start).toBeGreaterThan(0);
  const table = readme.slice(start, end);
  const names = new Set<string>();
  for (const line of table.split("\n")) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (first === undefined) continue;
    for (const m of first.matchAll(/`([a-z][a-z-]*)`/g)) names.add(m[1]!);
  }
  return names;
}

describe("README inputs table", () => {
  it("has a row for every input action.yml declares", () => {
    const action = parse(readFileSync(join(REPO, "action.yml"), "utf8")) as {
      inputs: Record<string, unknown>;
    };
    const documented = readmeInputs();
    expect(documented.size).toBeGreaterThan(10);
    expect(Object.keys(action.inputs).filter((name) => !documented.has(name))).toEqual([]);
  });
});
