/**
 * A feedback arc spliced from a fragment (issue 15; docs/graph-format.md "Fragments"), in-process (issue 24:
 * the CLI's decisions in the fast tier; test/support/cli-in-process.ts, the model calls played by the
 * scripted stand-in): `evidence-gate run` reads `fragments/NAME.yaml` beside the graph file, and
 * lane/review's failure re-runs lane/implement with its evidence across the spliced ids. Moved from
 * test/e2e/cli-fragments.test.ts, which keeps one real run of a spliced graph and `dist/cli.js resolve`.
 */
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { replied } from "../engine/port-harness.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { rowWords } from "../support/cli-run-result.js";
import { BUGGY_SUM, FIXED_SUM } from "../support/temp-repo.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/fragment-graphs/", import.meta.url));

const LOOP_FRAGMENT = `fragment: fix-loop
description: fix one file, then review it; a failing review re-runs the fix once with its evidence
exit: review
nodes:
  - id: implement
    prompt: "Fix the bug in src/sum.js so that sum(a, b) returns a + b. Edit only that file. {{ feedback.review }}"
    allowed_tools: [Read, Edit]
  - id: review
    depends_on: [implement]
    prompt: "Review the change to src/sum.js and reply with exactly PASS if it looks right, else FAIL."
    allowed_tools: [Read]
    success_check:
      exit_zero: true
      result_matches: '^PASS$'
      verify: { command: npm test }
    feedback: { rerun: implement, max: 1 }
`;

test("a feedback arc spliced from a fragment fires across the spliced ids: lane/review's failure re-runs lane/implement with its evidence", async () => {
  // lane/implement first breaks sum() another way, then (given the review's evidence) fixes it.
  const h = await cliInProcess({
    plays: {
      "lane/implement": [
        replied("claude", "Fixed, I think.", {
          writes: { "src/sum.js": BUGGY_SUM.replace("return a - b;", "return a * b;") },
        }),
        replied("claude", "Now it adds.", { writes: { "src/sum.js": FIXED_SUM } }),
      ],
      "lane/review": [replied("claude", "PASS"), replied("claude", "PASS")],
    },
  });
  const graph = h.writeGraph("loop-lane.yaml", "name: loop-lane\nnodes:\n  - { id: lane, use: fix-loop }\n");
  cpSync(join(FIXTURE, "fragments"), join(h.scratch, "fragments"), { recursive: true });
  writeFileSync(join(h.scratch, "fragments", "fix-loop.yaml"), LOOP_FRAGMENT);

  const r = await h.runGraph(graph, []);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(4);
  expect(rowWords(r.ledger!).at(-1)).toBe("lane/review PASS (verified)");
  expect(rowWords(r.ledger!)).toContain("lane/review FAIL verify_failed superseded");
  expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
  // The re-run is the feedback round (its prompt says so: the model server chose its reply by this).
  const second = h.madeFor("lane/implement")[1];
  expect(second?.prompt).toContain("feedback round 1/1 from node lane/review");
  expect(second?.prompt).toContain("verification command: npm test");
  expect(existsSync(join(r.runDir!, "feedback-lane~review.out"))).toBe(true);
});
