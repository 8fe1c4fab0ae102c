/** The job summary: the one report that works without a token, so it must never be silently lost. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JOB_SUMMARY_MAX_BYTES, writeJobSummary } from "../../src/github/job-summary.js";

const dir = mkdtempSync(join(tmpdir(), "job-summary-"));
let files = 0;
function summaryFile(initial = ""): string {
  files += 1;
  const path = join(dir, `step-summary-${files}.md`);
  writeFileSync(path, initial);
  return path;
}

describe("writeJobSummary", () => {
  it("appends the Markdown, newline-terminated, to the file GITHUB_STEP_SUMMARY names", async () => {
    const path = summaryFile("earlier step output\n");
    const result = await writeJobSummary("## Ledger\n| node | verdict |", {
      env: { GITHUB_STEP_SUMMARY: path },
    });
    expect(result).toEqual({ kind: "written", path, bytes: 29, cut: false });
    expect(readFileSync(path, "utf8")).toBe("earlier step output\n## Ledger\n| node | verdict |\n");
  });

  it("with GITHUB_STEP_SUMMARY unset nothing is written and a notice says so", async () => {
    const notices: string[] = [];
    const result = await writeJobSummary("## Ledger", { env: {}, notice: (m) => notices.push(m) });
    expect(result).toEqual({ kind: "skipped", reason: "GITHUB_STEP_SUMMARY unset" });
    expect(notices).toEqual([expect.stringContaining("GITHUB_STEP_SUMMARY is not set")]);
  });

  it("a summary over GitHub's 1 MiB per step is cut to what is left of the budget, with a notice", async () => {
    const earlier = "x".repeat(1000);
    const path = summaryFile(earlier);
    const result = await writeJobSummary("é".repeat(JOB_SUMMARY_MAX_BYTES), {
      env: { GITHUB_STEP_SUMMARY: path },
    });
    const written = readFileSync(path);
    expect(result).toMatchObject({ kind: "written", cut: true });
    expect(written.length).toBeLessThanOrEqual(JOB_SUMMARY_MAX_BYTES);
    expect(written.toString("utf8")).toContain("Cut by evidence-gate");
    expect(written.toString("utf8").startsWith(earlier)).toBe(true);
  });
});
