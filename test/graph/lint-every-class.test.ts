/**
 * `lint` reports every class of problem in one pass (SPEC §3: "`lint` prints all of them, not just the
 * first"; issue 17, item 3). Before the fix, a graph with an unknown field and two bad `cwd`s reported one
 * error, and an unknown `{{ artifacts.x }}` hid the `cwd` errors the same way: the `cwd` rule ran only on a
 * graph that loaded. `run`, which loads the graph first, still refuses any graph with a load error and
 * lists every one of them.
 */
import { describe, expect, test } from "vitest";
import { lintGraph } from "../../src/graph/lint.js";
import { loadGraphText } from "../../src/graph/load.js";
import { formatIssue } from "../../src/graph/validate.js";

const REFUSED = 'the run fails the node with "… is outside the repository"';
const absolute = (node: string, path: string): string =>
  `invalid graph: ${node}: cwd ${JSON.stringify(path)} is an absolute path; write it relative to the run's ` +
  `working directory — a node works inside the repository (${REFUSED} otherwise), and an absolute path ` +
  "ties the graph to one machine's folders";
const climbs = (node: string, path: string, field = "cwd"): string =>
  `invalid graph: ${node}: ${field} ${JSON.stringify(path)} climbs out of the run's working directory (it ` +
  `resolves to ${JSON.stringify(path)}) — a node works inside the repository, and ${REFUSED}; name a ` +
  "folder inside the working directory";
const UNKNOWN_TOP_FIELD =
  'invalid graph: unknown field "bogus" (known fields: name, version, inputs, concurrency, on_fail, nodes)';

/** The formatted errors `lint` reports for graph file text. */
function lintErrors(text: string): string[] {
  return lintGraph(text, "g.yaml").errors.map(formatIssue);
}

describe("lint reports every class of problem at once", () => {
  /** Node a (cwd /abs, the prompt given) and node b (cwd ../out), after the top-level lines `top`. */
  const twoBadCwds = (top: readonly string[], promptA: string): string =>
    [
      ...top,
      "nodes:",
      "  - id: a",
      `    prompt: ${promptA}`,
      "    cwd: /abs",
      "  - id: b",
      "    prompt: hi",
      "    cwd: ../out",
      "",
    ].join("\n");
  const BAD_CWDS = [absolute('node "a"', "/abs"), climbs('node "b"', "../out")];

  test("an unknown field and two bad cwds: 3 errors, the cwds no longer hidden by the field", () => {
    expect(lintErrors(twoBadCwds(["name: g", "bogus: 1"], "hi"))).toEqual([UNKNOWN_TOP_FIELD, ...BAD_CWDS]);
  });

  test("an unknown {{ artifacts.x }} and two bad cwds: 3 errors", () => {
    expect(lintErrors(twoBadCwds(["name: g"], '"summarise {{ artifacts.x }}"'))).toEqual([
      'invalid graph: node "a": prompt: {{ artifacts.x }} names unknown node "x"',
      ...BAD_CWDS,
    ]);
  });

  test("a graph with an unknown field still has its cycle named, and its cwd judged", () => {
    const text = [
      "bogus: 1",
      "nodes:",
      "  - {id: a, prompt: hi, depends_on: [b]}",
      "  - {id: b, prompt: hi, depends_on: [a], cwd: /abs}",
      "",
    ].join("\n");
    expect(lintErrors(text)).toEqual([
      UNKNOWN_TOP_FIELD,
      'invalid graph: node "a": dependency cycle: a -> b -> a',
      absolute('node "b"', "/abs"),
    ]);
  });

  test("a node whose own fields are broken still has its cwd judged, even with no id", () => {
    const text = [
      "nodes:",
      "  - {id: a, prompt: hi, frob: 1, timeout: 5x, cwd: /abs}",
      "  - {id: b, prompt: hi, permission_mode: nope, success_check: {verify: {command: make, cwd: ..}}}",
      "  - {prompt: no id, cwd: ../up}",
      "",
    ].join("\n");
    const errors = lintErrors(text);
    expect(errors).toHaveLength(7);
    expect(errors.slice(0, 4)).toEqual([
      'invalid graph: node "a": unknown field "frob" (known fields: id, type, depends_on, prompt, cwd, ' +
        "allowed_tools, permission_mode, timeout, budget_usd, handoff, success_check, retry, feedback, completion, agent, worktree, description)",
      'invalid graph: node "b": field "permission_mode" must be one of: acceptEdits, auto, bypassPermissions, ' +
        'dontAsk, manual, plan (got "nope")',
      'invalid graph: missing required field "nodes[2].id"',
      'invalid graph: node "a": timeout: invalid duration "5x": unknown unit "x" (want a Go duration like 90s, ' +
        "45m, 1h30m, 1.5h, 500ms)",
    ]);
    expect(errors.slice(4)).toEqual([
      absolute('node "a"', "/abs"),
      climbs('node "b"', "..", "success_check.verify.cwd"),
      // No id to name it by: the node is located by its index in the file.
      climbs("nodes[2]", "../up"),
    ]);
  });

  test("a YAML syntax error stops everything else: nothing can be judged", () => {
    const text = ["nodes:", "  - id: a", "    cwd: /abs", "    cwd: /again", ""].join("\n");
    const errors = lintErrors(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^invalid graph: cannot parse g\.yaml as YAML: Map keys must be unique/);
  });

  test("a gate's cwd is the gate rule's error, not a cwd error", () => {
    const text = [
      "nodes:",
      "  - {id: a, prompt: hi}",
      "  - {id: ok, type: gate, depends_on: [a], cwd: /abs}",
      "",
    ].join("\n");
    expect(lintErrors(text)).toEqual([
      'invalid graph: node "ok": a gate spawns no process, so it may not set cwd; remove it or make this an agent node',
    ]);
  });
});

describe("run still refuses a graph with any load error, listing all of them", () => {
  test("the unknown field, the cycle, the placeholder and the duration are each named by the loader", () => {
    const text = [
      "bogus: 1",
      "nodes:",
      "  - {id: a, prompt: hi, depends_on: [b], timeout: soon}",
      '  - {id: b, prompt: "{{ artifacts.x }}", depends_on: [a], cwd: /abs}',
      "",
    ].join("\n");
    const loaded = loadGraphText(text, "g.yaml");
    expect(loaded.ok).toBe(false);
    const issues = loaded.ok ? [] : loaded.issues.map(formatIssue);
    const loadErrors = [
      UNKNOWN_TOP_FIELD,
      'invalid graph: node "a": dependency cycle: a -> b -> a',
      'invalid graph: node "a": timeout: invalid duration "soon": "soon" has no number (want a Go duration ' +
        "like 90s, 45m, 1h30m, 1.5h, 500ms)",
      'invalid graph: node "b": prompt: {{ artifacts.x }} names unknown node "x"',
    ];
    expect(issues).toEqual(loadErrors);
    // lint prints the same errors, then the cwd error the run would meet only at node "b".
    expect(lintErrors(text)).toEqual([...loadErrors, absolute('node "b"', "/abs")]);
  });
});
