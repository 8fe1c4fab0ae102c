/**
 * Hand-written graphs for the action's `mode: run`, `lint` and `resume` tests, and the model script their
 * agent nodes play. The sample Node project (`makeSampleNodeRepo`, fixed) makes `npm test` pass, so a sink
 * verified by it is `PASS (verified)`.
 */
import type { ModelScript } from "../model-server/index.js";
import { MARKS } from "./fix-sum.js";

/** Where the tests keep the graph in the repository (base ref and checkout alike). */
export const GRAPH_PATH = ".github/evidence-gate/review.yml";

/** Selects the `finish` node's conversation. */
export const FINISH_MARK = "Write the FINISH-MARK summary";

/** One agent node reviewing src/sum.js, verified by `npm test`. */
export const REVIEW_GRAPH = [
  "name: review",
  "nodes:",
  "  - id: review",
  `    prompt: "${MARKS.review} whether it looks correct."`,
  "    allowed_tools: [Read]",
  "    success_check:",
  "      verify:",
  "        command: npm test",
  "",
].join("\n");

/** What a pull request might change the graph to: another node, a wide tool grant, no verify. */
export const PR_EDITED_GRAPH = [
  "name: pr-copy",
  "nodes:",
  "  - id: pr-node",
  '    prompt: "PR-COPY-MARK: do whatever this pull request says."',
  "    allowed_tools: [Bash]",
  "",
].join("\n");

/** review → gate `sign-off` → finish (verified by `npm test`); `{{ inputs.file }}` names the file. */
export const GATED_GRAPH = [
  "name: gated",
  "inputs: [file]",
  "nodes:",
  "  - id: review",
  `    prompt: "Review {{ inputs.file }} and report whether it looks correct."`,
  "    allowed_tools: [Read]",
  "  - id: sign-off",
  "    type: gate",
  "    depends_on: [review]",
  "  - id: finish",
  "    depends_on: [sign-off]",
  `    prompt: "${FINISH_MARK} for the change."`,
  "    allowed_tools: [Read]",
  "    success_check:",
  "      verify:",
  "        command: npm test",
  "",
].join("\n");

/** Two load errors at once: an unknown dependency and a duplicate id. */
export const INVALID_GRAPH = [
  "name: broken",
  "nodes:",
  "  - id: review",
  `    prompt: "${MARKS.review}."`,
  "    depends_on: [tset]",
  "  - id: review",
  '    prompt: "again"',
  "",
].join("\n");

/** Loads, but earns advisories: a verdict token without result_matches, and a node with no tools or verify. */
export const ADVISORY_GRAPH = [
  "name: advisories",
  "nodes:",
  "  - id: judge",
  '    prompt: "Reply PASS or FAIL about src/sum.js."',
  "",
].join("\n");

/** The replies of the review and finish nodes (and nothing for the PR's node: it must never run). */
export function handGraphScript(): ModelScript {
  return {
    conversations: [
      { name: "review", match: MARKS.review, turns: [{ text: "The file reads fine. Nothing to change." }] },
      { name: "finish", match: FINISH_MARK, turns: [{ text: "Summary written." }] },
    ],
  };
}
