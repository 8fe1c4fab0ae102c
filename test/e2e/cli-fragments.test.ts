/**
 * A graph built from fragments, end to end (issue 15; docs/graph-format.md "Fragments"): `evidence-gate
 * run` reads `fragments/NAME.yaml` beside the graph file, runs the spliced graph — a multi-node fragment
 * whose exit is a node citing a fragment of its own (two hops), then a single-node fragment depending on
 * the citation — with the real `claude` CLI against the scripted model server (one real run), and records
 * the spliced graph in `graph.json`; spliced ids name their files with `~`. And `node dist/cli.js resolve`
 * prints the same spliced graph.
 *
 * A feedback arc spliced from a fragment (its rerun across the spliced ids) runs in-process through the
 * model port: test/cli/fragments.test.ts (issue 24).
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { cliHarness, DIST_CLI, rowWords } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM } from "../support/temp-repo.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/fragment-graphs/", import.meta.url));
const RESOLVED = JSON.parse(readFileSync(join(FIXTURE, "sum-lane.resolved.json"), "utf8"));

test("run GRAPH with fragments: the spliced nodes run in order, verified; graph.json holds the spliced graph", async () => {
  const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  cpSync(FIXTURE, join(h.scratch, "graphs"), { recursive: true });
  const graph = join(h.scratch, "graphs", "sum-lane.yaml");

  const r = await h.runGraph(graph, []);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(4);
  expect(rowWords(r.ledger!)).toEqual([
    "lane/implement PASS (exit-only)",
    "lane/check PASS (verified)",
    "report PASS (verified)",
  ]);
  expect(r.stdout).toContain(`graph ${graph}: 3 nodes`);
  expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
  // The spliced graph is what the run recorded, and the report read lane/check's reply through the
  // citation's id (`{{ artifacts.lane | inline }}` → lane/check).
  expect(JSON.parse(readFileSync(join(r.runDir!, "graph.json"), "utf8"))).toEqual(RESOLVED);
  expect(readFileSync(join(r.runDir!, "nodes", "lane~check.out"), "utf8")).toBe("PASS");
  expect(existsSync(join(r.runDir!, "nodes", "lane~implement.out"))).toBe(true);
  const report = h.server.requests.find((request) => request.conversation === "review");
  expect(report?.promptText).toContain("The check said: PASS");
});

test("dist/cli.js resolve prints the spliced graph (exit 0)", async () => {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const h = await cliHarness({ script: (repo) => fixSumScript({ repoDir: repo.dir }) });
  const dist = h.spawnDist(["resolve", join(FIXTURE, "sum-lane.yaml")]);
  const { code } = await dist.closed;
  expect(code, dist.output().stderr).toBe(0);
  expect(JSON.parse(dist.output().stdout)).toEqual(RESOLVED);
});
