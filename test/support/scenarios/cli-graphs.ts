/**
 * Hand-written graphs for the CLI's `run` / `resume` end-to-end tests, built on the "fix sum" scenario's
 * conversations (scenarios/fix-sum.ts): `implement` really edits `src/sum.js` through the real CLI's Read
 * and Edit tools, `check` replies PASS (or what the test says) and verifies with the real `npm test`.
 */
import { MARKS, PASS_PATTERN } from "./fix-sum.js";

/** The implement node, as YAML lines (two-space indented list item). */
const IMPLEMENT = `  - id: implement
    prompt: "${MARKS.implement} so that sum(a, b) returns a + b. Edit only that file."
    allowed_tools: [Read, Edit]`;

/** The check node depending on `dependsOn`, verified by the engine with `npm test`. */
function check(dependsOn: string, extra = ""): string {
  return `  - id: check
    depends_on: [${dependsOn}]
    prompt: "${MARKS.check} and reply with exactly PASS if it looks right, else FAIL."
    allowed_tools: [Read]
    success_check:
      result_matches: '${PASS_PATTERN}'
      verify: { command: npm test }${extra}`;
}

/** implement → check (verify `npm test`). */
export const FIX_GRAPH = `name: fix-sum
nodes:
${IMPLEMENT}
${check("implement")}
`;

/** FIX_GRAPH whose check retries once after a reply that does not match (its reply is quoted). */
export const FIX_GRAPH_WITH_RETRY = `name: fix-sum-retry
nodes:
${IMPLEMENT}
${check("implement", "\n    retry: { max: 1, on: [result_mismatch] }")}
`;

/** implement → approve (a gate) → check. */
export const GATED_FIX_GRAPH = `name: gated-fix
nodes:
${IMPLEMENT}
  - id: approve
    type: gate
    depends_on: [implement]
${check("approve")}
`;

/** What the retried check's prompt holds (src/engine/retry-prompt.ts), selecting its own conversation. */
export const RETRY_MARK = "RETRY: attempt 2 of 2";
