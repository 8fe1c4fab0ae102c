/**
 * `--retry-failed` on a run that committed its own result (`--commit`): the run's commit moved HEAD past the
 * starting commit, and a resumed leg is bound to that commit — but when nothing is left to retry, that is
 * what the user is told, not that the repository moved (the new user's trial read "repository is at X, but
 * run started at Y" as blaming their own checkout). Through the model port (./port-harness.ts), in a real
 * repository.
 */
import { describe, expect, it } from "vitest";
import { portHarnessPerTest, replied } from "./port-harness.js";

const harness = portHarnessPerTest();

const GRAPH = `
nodes:
  - id: write
    prompt: "WRITE-MARK: write the notes."
    allowed_tools: [Write]
    permission_mode: acceptEdits
    success_check: { verify: { command: "grep -q 'written' notes.txt" } }
`;

describe("--retry-failed after a run that committed", () => {
  it("every node passed and the run's commit moved HEAD: nothing to retry, said as such", async () => {
    const h = await harness({
      plays: { write: [replied("claude", "done", { writes: { "notes.txt": "written\n" } })] },
    });
    const before = await h.repo.git(["rev-parse", "HEAD"]);
    const { ledger, runId } = await h.run(GRAPH, { commit: true });
    expect(ledger.conclusion?.outcome).toBe("passed");
    expect(await h.repo.git(["rev-parse", "HEAD"])).not.toBe(before);

    const result = await h.resumeRaw(runId, { kind: "retry-failed" });
    expect(result).toMatchObject({ kind: "nothing_to_retry", failed: false });
    expect(result.kind === "nothing_to_retry" ? result.message : "").not.toMatch(/is at [0-9a-f]{12}/);
    expect(h.spawnsOf("write")).toBe(1);
  });

  it("a node left to retry on a moved HEAD is still refused for the move: the leg is bound to its commit", async () => {
    const h = await harness({
      plays: { write: [replied("claude", "done", { writes: { "notes.txt": "not it\n" } })] },
    });
    const { ledger, runId } = await h.run(GRAPH);
    expect(ledger.conclusion?.outcome).toBe("failed");
    await h.repo.write("other.txt", "moved on\n");
    await h.repo.git(["add", "-A"]);
    await h.repo.git(["commit", "--quiet", "-m", "moved on"]);

    const result = await h.resumeRaw(runId, { kind: "retry-failed" });
    expect(result.kind).toBe("usage_error");
    expect(result.kind === "usage_error" ? result.message : "").toMatch(
      /is at [0-9a-f]{12}, but run .* started at [0-9a-f]{12}/,
    );
    expect(h.spawnsOf("write")).toBe(1);
  });
});
