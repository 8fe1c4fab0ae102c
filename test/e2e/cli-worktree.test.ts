/**
 * `worktree:` end to end (issue 15 item 2; docs/graph-format.md "agent and worktree"): `evidence-gate run`
 * gives two lanes their own managed git worktree, and both edit the same file at once against the real
 * `claude` CLI and the scripted model server, without conflict — each lane's edit ends on its own branch,
 * the main working tree untouched, no checkout left in the run directory. The run pauses at a gate;
 * `resume --approve` runs a node of lane A, in the worktree added back from its branch, where its verify sees
 * lane A's edit — and the conclusion says the evidence is that branch's, not the main working tree's.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { cliHarness, rowWords } from "../support/cli-harness.js";
import { BUGGY_SUM } from "../support/temp-repo.js";

const GRAPH = `name: two-lanes
nodes:
  - id: lane-a
    worktree: lane-a
    prompt: "Lane A: write lane A's version of src/sum.js."
    allowed_tools: [Bash]
  - id: lane-b
    worktree: lane-b
    prompt: "Lane B: write lane B's version of src/sum.js."
    allowed_tools: [Bash]
  - id: approve
    type: gate
    depends_on: [lane-a, lane-b]
  - id: check-a
    depends_on: [approve]
    worktree: lane-a
    prompt: "Check lane A: confirm src/sum.js holds lane A's version."
    allowed_tools: [Bash]
    success_check:
      verify: { command: "grep -q 'lane a' src/sum.js" }
`;

/** A lane's conversation: one Bash call with a path relative to where claude runs, then a reply. */
const lane = (name: string, match: string, command: string) => ({
  name,
  match,
  turns: [{ tool_calls: [{ name: "Bash", input: { command } }] }, { text: `${name} done` }],
});

test("two worktree lanes edit the same file in parallel: each edit on its own branch, the main tree untouched, no checkout left; resume re-adds lane A's worktree from its branch", async () => {
  const h = await cliHarness({
    script: () => ({
      conversations: [
        lane("lane-a", "Lane A: write", "echo '// lane a' > src/sum.js"),
        lane("lane-b", "Lane B: write", "echo '// lane b' > src/sum.js"),
        lane("check-a", "Check lane A", "cat src/sum.js"),
      ],
    }),
  });
  const graph = h.writeGraph("two-lanes.yml", GRAPH);

  const paused = await h.runGraph(graph, []);

  expect(paused.exitCode, `${paused.stderr}\n${paused.stdout}`).toBe(2);
  expect(rowWords(paused.ledger!)).toEqual([
    "lane-a PASS (exit-only)",
    "lane-b PASS (exit-only)",
    "approve SKIPPED",
    "check-a SKIPPED",
  ]);
  // In parallel: both lanes started before either passed.
  const all = readFileSync(join(paused.runDir!, "events.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { type: string; node?: string; name?: string; removed?: boolean });
  expect(all.filter((e) => e.type === "worktree_closed").map((e) => [e.name, e.removed])).toEqual([
    ["lane-a", true],
    ["lane-b", true],
  ]);
  const events = all
    .filter((event) => event.type === "node_started" || event.type === "node_passed")
    .map((event) => `${event.type} ${event.node}`);
  expect(events.slice(0, 2).sort()).toEqual(["node_started lane-a", "node_started lane-b"]);
  const runId = paused.ledger!.runId;
  const branch = (name: string) => `evidence-gate/${runId}/${name}`;
  expect(paused.ledger!.rows.slice(0, 2).map((row) => row.worktree)).toEqual([
    { name: "lane-a", branch: branch("lane-a") },
    { name: "lane-b", branch: branch("lane-b") },
  ]);
  expect(paused.stdout).toContain(
    `ran in worktree lane-a: its changes are on branch ${branch("lane-a")}, not in the main working tree`,
  );
  // Each lane's edit is on its branch, committed on the starting commit; the main working tree has neither.
  const start = await h.repo.git(["rev-parse", "HEAD"]);
  expect(await h.repo.git(["show", `${branch("lane-a")}:src/sum.js`])).toBe("// lane a");
  expect(await h.repo.git(["show", `${branch("lane-b")}:src/sum.js`])).toBe("// lane b");
  expect(await h.repo.git(["rev-parse", `${branch("lane-a")}~1`, `${branch("lane-b")}~1`])).toBe(
    `${start}\n${start}`,
  );
  // claude ran in each lane's checkout (its system prompt names the working directory).
  for (const name of ["lane-a", "lane-b"]) {
    const first = h.server.requests.find((request) => request.conversation === name);
    expect(JSON.stringify(first?.body)).toContain(join(paused.runDir!, "worktrees", name));
  }
  expect(await h.repo.read("src/sum.js")).toBe(BUGGY_SUM);
  expect(await h.repo.git(["status", "--porcelain"])).toBe("");
  // No checkout left: git knows the main working tree only, and the run directory holds no worktrees/.
  expect(await h.repo.git(["worktree", "list", "--porcelain"])).not.toContain(paused.runDir!);
  expect(existsSync(join(paused.runDir!, "worktrees"))).toBe(false);

  const resumed = await h.resume(runId, ["--approve", "approve", "--by", "alice"]);

  expect(rowWords(resumed.ledger!)).toEqual([
    "lane-a PASS (exit-only)",
    "lane-b PASS (exit-only)",
    "approve PASS (approved)",
    "check-a PASS (verified)",
  ]);
  const check = resumed.ledger!.rows[3]!;
  expect(check.worktree).toEqual({ name: "lane-a", branch: branch("lane-a") });
  expect(check.verify?.cwd).toBe(join(paused.runDir!, "worktrees", "lane-a"));
  const reply = h.server.requests.filter((request) => request.conversation === "check-a");
  expect(JSON.stringify(reply.at(-1)?.body)).toContain("// lane a");
  expect(existsSync(join(resumed.runDir!, "worktrees"))).toBe(false);
  expect(await h.repo.git(["branch", "--list", `evidence-gate/${runId}/*`])).toBe(
    `  ${branch("lane-a")}\n  ${branch("lane-b")}`,
  );
  expect(await h.repo.read("src/sum.js")).toBe(BUGGY_SUM);
  // The sink verified lane A's branch, not the main working tree: the conclusion says so, and the verify's
  // git-ignored files are unknown (the run's baseline is the main working tree's), not "changed".
  expect(check.verify?.ignoredFiles).toBe("unknown");
  expect(resumed.ledger!.conclusion).toMatchObject({
    conclusion: "action_required",
    outcome: "passed",
    rule: "verified-in-worktree",
  });
  expect(resumed.ledger!.conclusion!.reason).toContain(
    `sink "check-a": worktree lane-a, branch ${branch("lane-a")}`,
  );
});
