/**
 * The subject of a hand-written graph's `--commit` commit: the graph's name, else the graph file as the
 * repository knows it — never the machine's absolute path, which would be published with the commit.
 */
import { describe, expect, it } from "vitest";
import { graphCommitSubject } from "../../src/engine/fresh-run.js";

describe("graphCommitSubject", () => {
  it("the graph's name wins; a relative path is kept as given", () => {
    expect(graphCommitSubject("fix the sum", "/home/me/repo/graphs/fix.yaml", "/home/me/repo")).toBe(
      "fix the sum",
    );
    expect(graphCommitSubject(null, "graphs/fix.yaml", "/home/me/repo")).toBe("run graphs/fix.yaml");
  });

  it("an absolute path inside the repository becomes relative to it; one outside becomes its base name", () => {
    expect(graphCommitSubject(null, "/home/me/repo/graphs/fix.yaml", "/home/me/repo")).toBe(
      "run graphs/fix.yaml",
    );
    expect(graphCommitSubject(null, "/tmp/scratch/fix.yaml", "/home/me/repo")).toBe("run fix.yaml");
    expect(graphCommitSubject(null, "/home/me/repo-other/fix.yaml", "/home/me/repo")).toBe("run fix.yaml");
  });
});
