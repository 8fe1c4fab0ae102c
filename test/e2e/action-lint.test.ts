/**
 * `mode: lint` end to end (SPEC §3, §10): the bundled action checks the graph **under review** in the
 * workspace, annotates the graph file with every error (failing the step) and every advisory (passing),
 * writes them to the job summary, and calls neither a model nor the GitHub API.
 */
import { readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ActionRun, actionTestResources } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import {
  ADVISORY_GRAPH,
  GATED_GRAPH,
  GRAPH_PATH,
  INVALID_GRAPH,
  REVIEW_GRAPH,
} from "../support/scenarios/hand-graphs.js";
import { commitAll, makeTempRepo } from "../support/temp-repo.js";

const open = actionTestResources();

const FRAGMENTS = fileURLToPath(new URL("../fixtures/fragment-graphs/fragments/", import.meta.url));

/** The fixture fragments, at `fragments/NAME.yaml` beside {@link GRAPH_PATH}, as files of the workspace. */
function fragmentFiles(): Record<string, string> {
  const folder = join(dirname(GRAPH_PATH), "fragments");
  return Object.fromEntries(
    readdirSync(FRAGMENTS).map((name) => [join(folder, name), readFileSync(join(FRAGMENTS, name), "utf8")]),
  );
}

async function lint(
  graph: string | null,
  inputs: Record<string, string> = {},
  files: Record<string, string> = {},
): Promise<ActionRun> {
  const repo = open.keep(await makeTempRepo({ commit: false, files: { "README.md": "notes\n" } }));
  if (graph !== null) await repo.write(GRAPH_PATH, graph);
  for (const [path, text] of Object.entries(files)) await repo.write(path, text);
  await commitAll(repo, "the graph under review");
  open.github = open.github ?? (await startGitHubServer());
  return open.run({
    workspace: repo.dir,
    inputs: { mode: "lint", graph: GRAPH_PATH, ...inputs },
    github: open.github,
  });
}

describe("action mode lint: the graph under review, checked without running (SPEC §10)", () => {
  it("errors fail the step: each is an ::error annotation on the graph file at its node's line, and the job summary lists them all; no API call, no model", async () => {
    const result = await lint(INVALID_GRAPH);

    expect(result.exitCode).toBe(1);
    expect(result.outputs.outcome).toBe("failed");
    expect(result.outputs.conclusion).toBeUndefined();
    expect(result.calls).toEqual([]);
    const errors = result.commands.filter((c) => c.startsWith("::error "));
    expect(errors).toHaveLength(2);
    // `review` is declared on line 3 of the file; both issues are about a node called review.
    expect(errors[0]).toMatch(
      new RegExp(
        `^::error title=evidence-gate lint,file=${GRAPH_PATH.replace(/\./g, "\\.")},line=3::invalid graph: node "review"`,
      ),
    );
    expect(result.summary).toContain("2 errors, 0 advisories");
    expect(result.summary).toContain("### Errors");
    expect(result.summary).toMatch(/tset/);
    expect(result.summary).toMatch(/nothing ran and no model was called/i);
    // The step's failure names the count.
    expect(result.commands.some((c) => c.startsWith("::error::") && c.includes("lint found 2 errors"))).toBe(
      true,
    );
  });

  it("advisories alone pass the step: each is a ::warning annotation, and the summary lists them", async () => {
    const result = await lint(ADVISORY_GRAPH);

    expect(result.exitCode).toBe(0);
    expect(result.outputs.outcome).toBe("passed");
    const warnings = result.commands.filter((c) => c.startsWith("::warning "));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.every((w) => w.includes(`file=${GRAPH_PATH},line=3::advisory: node "judge"`))).toBe(true);
    expect(result.commands.some((c) => c.startsWith("::error"))).toBe(false);
    expect(result.summary).toContain("### Advisories");
    expect(result.summary).toContain("0 errors");
    expect(result.calls).toEqual([]);
  });

  it("a clean graph passes with no annotation", async () => {
    const result = await lint(REVIEW_GRAPH);
    expect(result.exitCode).toBe(0);
    expect(result.commands.filter((c) => c.startsWith("::warning") || c.startsWith("::error"))).toEqual([]);
    expect(result.summary).toContain("0 errors, 0 advisories");
  });

  it("a graph citing fragments is linted spliced, with fragments/NAME.yaml read from the workspace beside it, as the CLI lints it", async () => {
    const graph = readFileSync(join(FRAGMENTS, "..", "sum-lane.yaml"), "utf8");
    const spliced = await lint(graph, {}, fragmentFiles());
    expect(
      spliced.commands.filter((c) => c.startsWith("::error")),
      spliced.stdout,
    ).toEqual([]);
    expect(spliced.exitCode).toBe(0);
    expect(spliced.outputs.outcome).toBe("passed");

    // An id with "/" is refused as the CLI refuses it (only splicing writes such ids).
    const slashed = await lint(
      ["nodes:", "  - id: ../x", "    use: read-report", "    with:", '      verdict: "ok"', ""].join("\n"),
      {},
      fragmentFiles(),
    );
    expect(slashed.exitCode).toBe(1);
    expect(slashed.outputs.outcome).toBe("failed");
    expect(slashed.summary).toContain("which only fragment splicing writes");
  });

  it("input `inputs` is what the run would be given: a {{ inputs.file }} without it is an advisory, with it none", async () => {
    const without = await lint(GATED_GRAPH);
    expect(without.exitCode).toBe(0);
    expect(without.commands.filter((c) => c.startsWith("::warning "))).toEqual([
      expect.stringMatching(/advisory: node "review": .*inputs\.file/),
    ]);
    // The advice names the action's input, not the CLI's flag.
    const advice = without.commands.find((c) => c.startsWith("::warning "))!;
    expect(advice).toContain("add the line `file=VALUE` to the input `inputs`");
    expect(`${advice}\n${without.summary}`).not.toContain("--input");
    const given = await lint(GATED_GRAPH, { inputs: "file=src/sum.js" });
    expect(given.commands.filter((c) => c.startsWith("::warning"))).toEqual([]);
  });

  it("a graph path that is missing, or a symlink out of the workspace, fails the step without reading anything outside", async () => {
    const missing = await lint(null);
    expect(missing.exitCode).toBe(1);
    // Lint sets `passed` or `failed` only (README "Outputs").
    expect(missing.outputs.outcome).toBe("failed");
    expect(missing.summary).toContain(`no graph file at ${GRAPH_PATH} in the workspace`);

    const repo = open.keep(await makeTempRepo({ commit: false, files: { "README.md": "notes\n" } }));
    await repo.write(".github/evidence-gate/.keep", "");
    symlinkSync("/etc/hostname", join(repo.dir, ...GRAPH_PATH.split("/")));
    await commitAll(repo, "a symlink");
    open.github = open.github ?? (await startGitHubServer());
    const linked = await open.run({
      workspace: repo.dir,
      inputs: { mode: "lint", graph: GRAPH_PATH },
      github: open.github,
    });
    expect(linked.exitCode).toBe(1);
    expect(linked.summary).toContain("outside the workspace");
  });

  describe("an input problem in mode lint: the step fails with every problem, and still no API call and no token needed", () => {
    const expectNoCheckRun = (result: ActionRun): void => {
      expect(result.exitCode).toBe(1);
      expect(result.calls).toEqual([]);
      expect(result.outputs).toEqual({ outcome: "failed" });
      expect(result.state).toEqual({});
      expect(`${result.stdout}\n${result.summary}`).not.toContain("github-token");
      expect(result.summary).toContain("evidence-gate lint: the inputs have problems");
    };

    it("a bad `inputs` line without a token: the line is named, no token is asked for", async () => {
      const result = await lint(REVIEW_GRAPH, { "github-token": "", inputs: "file=src/sum.js\noops" });
      expectNoCheckRun(result);
      expect(result.summary).toContain("line 2");
      expect(result.summary).toContain("give NAME=VALUE");
      expect(result.commands.filter((c) => c.startsWith("::error"))).toEqual([
        expect.stringMatching(/^::error::evidence-gate: lint: input `inputs` line 2/),
      ]);
    });

    it("`verify-cmd` with the default token: refused by name, and no check run is posted", async () => {
      const result = await lint(REVIEW_GRAPH, { "verify-cmd": "npm test" });
      expectNoCheckRun(result);
      expect(result.summary).toContain("does not apply to mode lint");
      expect(result.summary).toContain("verify-cmd");
    });

    it("`graph: ../../etc/passwd` and `concurrency: 0` without a token: both problems, nothing read, no call", async () => {
      const result = await lint(REVIEW_GRAPH, {
        "github-token": "",
        graph: "../../etc/passwd",
        concurrency: "0",
      });
      expectNoCheckRun(result);
      expect(result.summary).toContain("2 problems");
      expect(result.summary).toContain("etc/passwd");
      expect(result.summary).toContain("concurrency");
      expect(result.summary).not.toContain("root:");
    });

    it("a valid lint needs no token either", async () => {
      const result = await lint(REVIEW_GRAPH, { "github-token": "" });
      expect(result.exitCode).toBe(0);
      expect(result.outputs).toEqual({ outcome: "passed" });
      expect(result.calls).toEqual([]);
    });
  });
});
