/**
 * docs/graph-format.md is the reference for the graph file: every complete graph it shows (a YAML block
 * starting with `name:`) must load, and lint with no error and no advisory, as the page says.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { type AdvisoryKind, formatAdvisory, lintGraph } from "../../src/graph/lint.js";
import { formatIssue } from "../../src/graph/validate.js";

const DOC = readFileSync(fileURLToPath(new URL("../../docs/graph-format.md", import.meta.url)), "utf8");
const GRAPHS = [...DOC.matchAll(/```yaml\n(name:[\s\S]*?)```/g)].map((match) => match[1] ?? "");

test("the page shows at least one complete graph", () => {
  expect(GRAPHS.length).toBeGreaterThan(0);
});

test.each(GRAPHS.map((text, index) => [index, text] as const))(
  "complete graph #%i loads and lints clean",
  (_index, text) => {
    const inputs = [...text.matchAll(/\{\{ inputs\.([\w.-]+) \}\}/g)].map((match) => match[1] ?? "");
    const result = lintGraph(text, "graph-format.md", { inputs });
    expect(result.errors.map(formatIssue)).toEqual([]);
    expect(result.advisories.map(formatAdvisory)).toEqual([]);
  },
);

// How the page's lint list words each advisory kind. Typed by kind, so a new kind does not compile until
// the page (and this map) name it.
const KIND_ON_PAGE: Record<AdvisoryKind, string> = {
  "unresolved-input": "a used input with no `--input`",
  "unknown-placeholder": "a mistyped placeholder",
  "worktree-unverified": "a worktree node whose changes no verified sink in its worktree checks",
  "session-across-worktrees": "a `handoff: session` node\n    whose parent runs in another worktree",
  "description-not-shown": "a gate\n    `description`",
  "unchecked-verdict": "a prompt that demands a verdict token with no `result_matches`",
  "verify-splices-model-output": "model output spliced into a check",
  "feedback-not-quoted": "a feedback arc whose body never quotes `{{ feedback.DECLARER }}`",
  "feedback-reach": "a fan-in feedback declarer whose arc cannot re-run one of its producers",
  "session-across-cwd": "a `handoff: session` node in another `cwd` than its parent",
  "session-retry-cold": "and one with `retry` (a retry starts a fresh\n    session",
  "unreferenced-substitution": "a fragment's substitution point its body never references",
  "retry-never-fires": "`retry.max` > 0 with an empty `on`",
  "costly-retry": "`retry.max` or `feedback.max` above 10",
  "costly-feedback": "`retry.max` or `feedback.max` above 10",
  "no-tools-no-verify": "an agent node with neither `allowed_tools` nor `verify`",
  "unverified-sink": "a sink without `verify`",
  "only-gate-sinks": "a graph whose sinks are all gates",
  "exit-code-unchecked": "`result_matches` without `exit_zero: true`",
};

test.each(Object.entries(KIND_ON_PAGE))("advisory kind %s is on the page's lint list", (_kind, phrase) => {
  const list = DOC.slice(DOC.indexOf("## What lint adds"), DOC.indexOf("## Worked example"));
  expect(list).toContain(phrase);
});

// A new user's trial (issue 26): the worked example promised `success` from `run` and `resume --approve`
// without `--commit`, but uncommitted verified changes conclude `action_required` (exit 4; pinned by
// test/e2e/cli-fragments.test.ts without --commit, and test/e2e/cli-go-trial.test.ts's gated graph with it).
test("the worked example's run and resume commands commit the verified tree, as the success it promises needs", () => {
  const example = DOC.slice(DOC.indexOf("## Worked example"));
  const commands = [...example.matchAll(/`(evidence-gate (?:run|resume) [^`]*)`/g)].map((m) => m[1] ?? "");
  expect(commands.length).toBeGreaterThanOrEqual(2);
  for (const command of commands) expect(command).toContain("--commit");
  expect(example).toContain("concludes `action_required`");
});
