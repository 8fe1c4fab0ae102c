/**
 * The example graphs shipped in the Go CLI's repository (`graphs/` of jitokim/oh-my-graph, copied with their
 * fragments into test/fixtures/go-graphs/; README.md there gives the commits) load and lint with no error
 * here, and each splices to the graph committed beside it in `resolved/NAME.json` — the JSON `evidence-gate
 * resolve` prints. A change to splicing shows up as a plain diff of those files. Regenerate them with
 * `UPDATE_GOLDEN=1 npx vitest run test/graph/go-graphs.test.ts`, then read the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { fragmentsBeside } from "../../src/graph/fragment-source.js";
import { formatIssue } from "../../src/graph/issue.js";
import { lintGraphFile } from "../../src/graph/lint.js";
import { type LoadResult, loadGraphFile } from "../../src/graph/load.js";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const DIR = fileURLToPath(new URL("../fixtures/go-graphs/", import.meta.url));
const GRAPHS = readdirSync(DIR)
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => name.slice(0, -".yaml".length));

function load(name: string): Promise<LoadResult> {
  const path = join(DIR, `${name}.yaml`);
  return loadGraphFile(readFileSync(path, "utf8"), `${name}.yaml`, fragmentsBeside(path, `${name}.yaml`));
}

async function loadedGraph(name: string) {
  const result = await load(name);
  if (!result.ok) throw new Error(result.issues.map(formatIssue).join("\n"));
  return result.graph;
}

test("every shipped graph of the Go CLI is here (nine graphs, seven fragments)", () => {
  expect(GRAPHS).toEqual([
    "adr-driven-dev",
    "apply-flags",
    "backlog-batch",
    "dev-review-pr",
    "gated-dev",
    "haiku-smoke",
    "merge-shepherd",
    "review-loop",
    "self-dev",
  ]);
  expect(readdirSync(join(DIR, "fragments")).sort()).toHaveLength(7);
});

describe.each(GRAPHS)("%s", (name) => {
  test("loads and lints with no error", async () => {
    const path = join(DIR, `${name}.yaml`);
    const linted = await lintGraphFile(readFileSync(path, "utf8"), `${name}.yaml`, fragmentsBeside(path));
    expect(linted.errors.map(formatIssue)).toEqual([]);
  });

  test("splices to its committed resolved graph", async () => {
    const spec = (await loadedGraph(name)).spec;
    const golden = join(DIR, "resolved", `${name}.json`);
    if (UPDATE) writeFileSync(golden, `${JSON.stringify(spec, null, 2)}\n`);
    expect(existsSync(golden), `missing ${golden}; run with UPDATE_GOLDEN=1`).toBe(true);
    expect(JSON.parse(JSON.stringify(spec))).toEqual(JSON.parse(readFileSync(golden, "utf8")));
  });
});

describe("the spliced shapes the Go CLI documents", () => {
  const edges = async (name: string) =>
    (await loadedGraph(name)).nodes.map((node) => `${node.id} ← ${node.depends_on.join(", ")}`);

  test("backlog-batch: lane A is one citation of gated-lane (which cites three fragments), four spliced nodes", async () => {
    expect(await edges("backlog-batch")).toEqual([
      "lane-a/dev ← ",
      "lane-a/e2e ← lane-a/dev",
      "lane-a/review ← lane-a/e2e",
      "lane-a/pr ← lane-a/review",
      "dev-b ← ",
      "e2e-b ← dev-b",
      "review-b ← e2e-b",
      "pr-b ← review-b",
    ]);
    const graph = await loadedGraph("backlog-batch");
    expect(graph.nodes.map((node) => node.worktree)).toEqual([
      ...Array(4).fill("lane-a"),
      ...Array(4).fill("lane-b"),
    ]);
    expect(graph.nodes_by_id.get("lane-a/review")?.feedback?.body).toEqual([
      "lane-a/dev",
      "lane-a/e2e",
      "lane-a/review",
    ]);
    // The bound tool list replaces the whole `allowed_tools: "{{ with.tools }}"` scalar.
    expect(graph.nodes_by_id.get("lane-a/dev")?.allowed_tools).toContain("Bash(go *)");
  });

  test("adr-driven-dev: repair-round cited twice; round2 depends on round1's exit; an empty agent binding is none", async () => {
    expect((await edges("adr-driven-dev")).slice(5, 10)).toEqual([
      "round1/review ← localrun",
      "round1/apply ← round1/review",
      "round2/review ← round1/apply",
      "round2/apply ← round2/review",
      "round3 ← round2/apply",
    ]);
    const graph = await loadedGraph("adr-driven-dev");
    expect(graph.nodes_by_id.get("round1/review")?.agent).toBe("code-reviewer-deep");
    expect(graph.nodes_by_id.get("round2/review")?.agent).toBeNull();
    expect(graph.nodes_by_id.get("round2/review")?.timeout_ms).toBe(20 * 60_000);
  });

  test("gated-dev: the gate keeps its worktree and description", async () => {
    const gate = (await loadedGraph("gated-dev")).nodes_by_id.get("approve-publish");
    expect(gate?.type).toBe("gate");
    expect(gate?.worktree).toBe("lane");
    expect(gate?.description).toContain("Approve publishing this lane's reviewed HEAD");
  });

  test("read-and-report, the one fragment no shipped graph cites, splices clean too", async () => {
    const text =
      'nodes:\n  - id: read\n    use: read-and-report\n    with: { target: README.md, question: "what is it?" }\n';
    const linted = await lintGraphFile(text, "probe.yaml", fragmentsBeside(join(DIR, "probe.yaml")));
    expect(linted.errors.map(formatIssue)).toEqual([]);
  });
});
