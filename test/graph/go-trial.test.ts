/**
 * A new user's trial of Go-CLI graphs (issue 26) at the level of the graph file: the five graphs in
 * test/fixtures/go-trial/ (README.md there: three shipped by the Go CLI byte for byte, two written the way a
 * Go-CLI user writes one) load with the fragments beside them, lint with only the advisories their shape
 * earns, and splice, interpolate and judge the way a run of them needs: the edges, the spliced ids, the
 * handoffs, the verify commands, the feedback arc, and each node's `result_matches` against the replies the
 * end-to-end run scripts (and against the reply that must send the work back).
 *
 * What running them shows is held elsewhere (issue 24 item 2): one of the five runs end to end through
 * `node dist/cli.js run` and `resume --approve` with the real `claude` (test/e2e/cli-go-trial.test.ts,
 * release-gate: a verify_failed retry, a feedback round, a gate, `--commit`); `node dist/cli.js lint` itself
 * in test/e2e/cli-lint.test.ts; a spliced graph's run in test/e2e/cli-fragments.test.ts; feedback rounds,
 * `{{ artifacts.ID | inline }}` and `handoff: session` in the engine's tests (test/engine/graph-feedback,
 * test/engine/graph-run).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { fragmentsBeside } from "../../src/graph/fragment-source.js";
import type { Graph, GraphNode } from "../../src/graph/graph.js";
import { formatIssue } from "../../src/graph/issue.js";
import { lintGraphFile } from "../../src/graph/lint.js";
import { formatSplice, loadGraphFile } from "../../src/graph/load.js";
import { searchPattern } from "../../src/graph/pattern.js";
import { interpolate } from "../../src/graph/placeholders.js";

const DIR = fileURLToPath(new URL("../fixtures/go-trial/", import.meta.url));
const REPO = "/work/repo";

function path(name: string): string {
  return join(DIR, `${name}.yaml`);
}

/** The graph `name` as `run` loads it (fragments from `fragments/` beside it); throws with the issues. */
async function loaded(name: string): Promise<Graph> {
  const result = await loadGraphFile(
    readFileSync(path(name), "utf8"),
    `${name}.yaml`,
    fragmentsBeside(path(name), `${name}.yaml`),
  );
  if (!result.ok) throw new Error(result.issues.map(formatIssue).join("\n"));
  return result.graph;
}

function node(graph: Graph, id: string): GraphNode {
  const found = graph.nodes_by_id.get(id);
  if (found === undefined)
    throw new Error(`${graph.name}: no node ${id} (has ${[...graph.nodes_by_id.keys()]})`);
  return found;
}

/** `node`'s prompt as a run with `inputs` and the given passed nodes' replies would send it. */
function prompt(
  graph: Graph,
  id: string,
  inputs: Record<string, string>,
  artifacts: Record<string, string> = {},
  feedback: Record<string, string> = {},
): string {
  const result = interpolate(node(graph, id).prompt, {
    inputs,
    artifactPath: (ref) => (ref in artifacts ? `/runs/r/${ref}.out` : undefined),
    readArtifact: (ref) => artifacts[ref],
    feedback: (ref) => feedback[ref] ?? (graph.nodes_by_id.get(ref)?.feedback ? "" : undefined),
  });
  if (!result.ok) throw new Error(result.message);
  return result.text;
}

/** Whether `reply` passes `id`'s `result_matches` (true when it has none). */
function accepts(graph: Graph, id: string, reply: string): boolean {
  const pattern = node(graph, id).success_check.result_matches;
  return pattern === null || searchPattern(pattern, reply);
}

test("lint: each of the five loads with no error, and only the advisories its shape earns", async () => {
  const cases: [string, string[], string[]][] = [
    ["haiku-smoke", ["dir"], ["critique is a sink (no node depends on it) without success_check.verify"]],
    [
      "review-loop",
      ["repo", "task"],
      ["review is a sink (no node depends on it) without success_check.verify"],
    ],
    [
      "dev-review-pr",
      ["repo"],
      [
        "e2e has handoff: session and retry",
        "pr is a sink (no node depends on it) without success_check.verify",
      ],
    ],
    ["two-lanes", ["repo"], []],
    ["release-gate", ["version"], []],
  ];
  const splices = new Map<string, string[]>();
  for (const [name, inputs, advisories] of cases) {
    const report = await lintGraphFile(
      readFileSync(path(name), "utf8"),
      `${name}.yaml`,
      fragmentsBeside(path(name), `${name}.yaml`),
      { inputs },
    );
    expect(report.errors.map(formatIssue), name).toEqual([]);
    const lines = report.advisories.map((a) => `${a.nodeId} ${a.reason}`);
    expect(
      lines.map((line, at) => line.slice(0, advisories[at]?.length ?? 0)),
      name,
    ).toEqual(advisories);
    splices.set(name, report.splices.map(formatSplice));
  }
  // The disclosure `run` prints for each `use:`: dev-review-pr's four fragments; two-lanes' fragment cited
  // twice, each citing another (two hops deep).
  expect(splices.get("dev-review-pr")?.map((line) => line.split(" (")[0])).toEqual([
    'fragment: node "e2e" spliced from "e2e-verify"',
    'fragment: node "review-security" spliced from "review-security"',
    'fragment: node "review-style" spliced from "review-style"',
    'fragment: node "pr" spliced from "pr-publish"',
  ]);
  expect(splices.get("two-lanes")?.map((line) => line.split(" (")[0])).toEqual([
    'fragment: node "lane-a" spliced from "write-and-check"',
    'fragment: node "lane-a/check" spliced from "file-check"',
    'fragment: node "lane-b" spliced from "write-and-check"',
    'fragment: node "lane-b/check" spliced from "file-check"',
  ]);
});

describe("the graphs a run of them needs", () => {
  test("haiku-smoke (Go, as shipped): write is verified by test -f in the given dir; critique, read-only, gets write's reply inline", async () => {
    const graph = await loaded("haiku-smoke");
    expect(graph.nodes.map((n) => [n.id, n.depends_on])).toEqual([
      ["write", []],
      ["critique", ["write"]],
    ]);
    const write = node(graph, "write");
    expect(write.cwd).toBe("{{ inputs.dir }}");
    expect(write.success_check.verify?.command).toBe("test -f haiku.txt");
    expect(prompt(graph, "write", { dir: "smoke" })).toContain("Write a 3-line haiku about directed graphs");
    expect(accepts(graph, "write", "DONE")).toBe(true);
    expect(node(graph, "critique").permission_mode).toBe("plan");
    expect(prompt(graph, "critique", { dir: "smoke" }, { write: "DONE" })).toContain(
      "the writer reported: DONE",
    );
    expect(graph.sinks).toEqual(["critique"]);
  });

  test("review-loop (Go, as shipped): a review that does not ship sends impl back with its findings, at most twice", async () => {
    const graph = await loaded("review-loop");
    const inputs = { repo: REPO, task: "add feature.txt" };
    expect(node(graph, "review").depends_on).toEqual(["impl"]);
    expect(node(graph, "review").feedback).toMatchObject({ rerun: "impl", max: 2 });
    expect(prompt(graph, "impl", inputs)).toContain("Implement this task: add feature.txt");
    // The findings reach the re-run's prompt through {{ feedback.review }}.
    expect(prompt(graph, "impl", inputs, {}, { review: "1. feature.txt must say v2" })).toContain(
      "1. feature.txt must say v2",
    );
    expect(accepts(graph, "impl", "DONE first pass")).toBe(true);
    expect(prompt(graph, "review", inputs, { impl: "DONE second pass" })).toContain(
      "Review the working tree",
    );
    // The first review's findings fail its check (that fires the arc); the second's "ship it" passes.
    expect(accepts(graph, "review", "1. feature.txt must say v2")).toBe(false);
    expect(accepts(graph, "review", "ship it — v2.")).toBe(true);
  });

  test("dev-review-pr (Go, as shipped, four fragments): e2e continues dev's session and is verified by make local; the reviews fan in to pr", async () => {
    const graph = await loaded("dev-review-pr");
    const inputs = { repo: REPO };
    expect(graph.nodes.map((n) => [n.id, n.depends_on])).toEqual([
      ["dev", []],
      ["e2e", ["dev"]],
      ["review-security", ["e2e"]],
      ["review-style", ["e2e"]],
      ["pr", ["review-security", "review-style"]],
    ]);
    const e2e = node(graph, "e2e");
    expect(e2e.handoff).toBe("session");
    expect(e2e.success_check.verify?.command).toBe("make local");
    expect(graph.nodes.every((n) => n.cwd === "{{ inputs.repo }}")).toBe(true);
    expect(prompt(graph, "dev", inputs)).toContain(
      "Implement the change described in the current issue/branch",
    );
    expect(prompt(graph, "e2e", inputs, { dev: "DONE wrote feature.txt" })).toContain(
      "run the end-to-end checks (make local)",
    );
    expect(prompt(graph, "review-security", inputs, { e2e: "PASS" })).toContain("The e2e verdict was: PASS");
    expect(prompt(graph, "review-style", inputs, { e2e: "PASS" })).toContain(
      "for style, naming, and simplicity",
    );
    const pr = prompt(graph, "pr", inputs, {
      "review-security": "CLEAN",
      "review-style": "FINDINGS: - no trailing context",
    });
    expect(pr).toContain("Security review: CLEAN");
    expect(pr).toContain("Style review:    FINDINGS: - no trailing context");
    for (const [id, reply] of [
      ["dev", "DONE wrote feature.txt"],
      ["e2e", "PASS"],
      ["review-security", "CLEAN"],
      ["review-style", "FINDINGS: - no trailing context"],
      ["pr", "PR https://github.com/example/repo/pull/7"],
    ] as const) {
      expect(accepts(graph, id, reply), `${id}: ${reply}`).toBe(true);
    }
  });

  test("two-lanes (new, a fragment cited twice, two hops deep): each lane writes then checks its file, verified; summary reads both checks and verifies both files", async () => {
    const graph = await loaded("two-lanes");
    const inputs = { repo: REPO };
    expect(graph.nodes.map((n) => [n.id, n.depends_on])).toEqual([
      ["lane-a/write", []],
      ["lane-a/check", ["lane-a/write"]],
      ["lane-b/write", []],
      ["lane-b/check", ["lane-b/write"]],
      ["summary", ["lane-a/check", "lane-b/check"]],
    ]);
    for (const [lane, file, text] of [
      ["lane-a", "alpha.txt", "alpha"],
      ["lane-b", "beta.txt", "beta"],
    ] as const) {
      expect(prompt(graph, `${lane}/write`, inputs)).toContain(`Write the single line "${text}" to ${file}`);
      expect(prompt(graph, `${lane}/check`, inputs, { [`${lane}/write`]: "DONE" })).toContain(
        `Read ${file} and confirm`,
      );
      expect(node(graph, `${lane}/check`).success_check.verify?.command).toContain(file);
      expect(accepts(graph, `${lane}/write`, "DONE")).toBe(true);
      expect(accepts(graph, `${lane}/check`, `OK ${file} says ${text}`)).toBe(true);
    }
    const summary = prompt(graph, "summary", inputs, {
      "lane-a/check": "OK alpha.txt says alpha",
      "lane-b/check": "OK beta.txt says beta",
    });
    expect(summary).toContain("Two lanes finished");
    expect(summary).toContain("OK alpha.txt says alpha");
    expect(summary).toContain("OK beta.txt says beta");
    expect(node(graph, "summary").success_check.verify?.command).toBe(
      "test -f alpha.txt && test -f beta.txt",
    );
    expect(accepts(graph, "summary", "SUMMARY both lanes wrote and checked their file")).toBe(true);
  });
});
