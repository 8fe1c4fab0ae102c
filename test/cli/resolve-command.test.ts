/**
 * `evidence-gate resolve GRAPH` (SPEC §11; docs/graph-format.md "Fragments"): the spliced graph as JSON on
 * stdout (exit 0), every problem on stderr when it does not load (exit 1), usage errors exit 64 — and
 * `lint GRAPH` judging the same spliced graph, with the fragments read from disk beside the file.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCliLint } from "../../src/cli/lint-command.js";
import { parseResolveFlags, RESOLVE_USAGE, runCliResolve } from "../../src/cli/resolve-command.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/fragment-graphs/", import.meta.url));
const GOLDEN = join(FIXTURE, "sum-lane.resolved.json");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eg-resolve-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  run: typeof runCliResolve,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    cwd: dir,
    out: { write: (text: string) => (stdout += text) },
    err: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** What `sum-lane.yaml` splices: a nodes: fragment (naming the ids it minted), its nested citation, a node: one. */
const SPLICE_LINES = [
  'fragment: node "lane" spliced from "fix-and-check" (graphs/fragments/fix-and-check.yaml) — fix one file, then review the change and verify it with npm test — nodes: lane/implement',
  'fragment: node "lane/check" spliced from "npm-check" (graphs/fragments/npm-check.yaml) — review a change and have the engine verify it with npm test',
  'fragment: node "report" spliced from "read-report" (graphs/fragments/read-report.yaml) — read the fixed file and report on it, verified again with npm test',
];

describe("resolve GRAPH", () => {
  test("prints the spliced graph: a multi-node fragment with exit, a two-hop nested one, a single-node one", async () => {
    cpSync(FIXTURE, join(dir, "graphs"), { recursive: true });
    const r = await call(runCliResolve, "graphs/sum-lane.yaml");
    // The splice disclosure (issue 26; Go printFragmentResolutions), on stderr so stdout stays JSON.
    expect(r.stderr.split("\n")).toEqual([...SPLICE_LINES, ""]);
    expect(r.code).toBe(0);
    if (UPDATE) writeFileSync(GOLDEN, r.stdout);
    const printed = JSON.parse(r.stdout);
    expect(printed).toEqual(JSON.parse(readFileSync(GOLDEN, "utf8")));
    expect(
      printed.nodes.map((node: { id: string; depends_on?: string[] }) => [node.id, node.depends_on ?? []]),
    ).toEqual([
      ["lane/implement", []],
      ["lane/check", ["lane/implement"]],
      ["report", ["lane/check"]],
    ]);
  });

  test("a graph that does not load: every problem on stderr, nothing on stdout, exit 1", async () => {
    mkdirSync(join(dir, "fragments"));
    writeFileSync(
      join(dir, "fragments", "f.yaml"),
      "fragment: f\ndescription: d\nsubstitutions: [x]\nnode: { prompt: p }\n",
    );
    writeFileSync(
      join(dir, "g.yaml"),
      "nodes:\n  - { id: a, use: f, with: { y: 1 } }\n  - { id: b, use: nope }\n",
    );
    const r = await call(runCliResolve, "g.yaml");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")).toEqual([
      'invalid graph: node "a": use "f": with: does not bind "x", which fragments/f.yaml declares — every substitution point needs a value (bind "" for none)',
      'invalid graph: node "a": use "f": with: binds "y", which fragments/f.yaml does not declare (it declares: x)',
      'invalid graph: node "b": use "nope" (fragments/nope.yaml): no fragment file fragments/nope.yaml: a fragment is looked up there, beside the graph file, and nowhere else',
      "3 errors: g.yaml does not load",
      "",
    ]);
  });

  test("a missing file, no graph, two graphs or an unknown flag: usage error, exit 64", async () => {
    const missing = await call(runCliResolve, "nope.yaml");
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('no graph file at "nope.yaml"');
    expect((await call(runCliResolve)).code).toBe(64);
    expect((await call(runCliResolve, "a.yaml", "b.yaml")).code).toBe(64);
    const flag = await call(runCliResolve, "a.yaml", "--bogus");
    expect(flag.code).toBe(64);
    // One line per problem and a pointer at --help, not the whole usage (issue 17 item 9).
    expect(flag.stderr).toContain("--bogus");
    expect(flag.stderr).toContain("run `evidence-gate resolve --help` for its flags");
    expect(flag.stderr).not.toContain(RESOLVE_USAGE);
    expect(parseResolveFlags(["g.yaml", "--verify-timeout", "5m"])).toEqual({
      ok: true,
      flags: { graph: "g.yaml", verifyTimeoutMs: 300_000 },
    });
  });

  test("--help prints the usage, exit 0", async () => {
    const r = await call(runCliResolve, "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(RESOLVE_USAGE);
  });
});

describe("lint GRAPH judges the spliced graph", () => {
  test("the fragment graph lints clean: no error, no advisory", async () => {
    cpSync(FIXTURE, join(dir, "graphs"), { recursive: true });
    const r = await call(runCliLint, "graphs/sum-lane.yaml");
    expect(r.stdout).toBe(`${SPLICE_LINES.join("\n")}\n0 errors, 0 advisories\n`);
    expect(r.code).toBe(0);
  });

  test("a fragment error is a lint error (exit 1), named on the citing node", async () => {
    writeFileSync(join(dir, "g.yaml"), "nodes:\n  - { id: a, use: ../etc }\n");
    const r = await call(runCliLint, "g.yaml");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('invalid graph: node "a": use "../etc": "../etc" is not a fragment name');
  });
});
