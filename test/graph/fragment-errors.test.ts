/**
 * What cannot be spliced, each with the message a graph author gets (docs/graph-format.md "Fragments").
 * Every refusal is a load error on the citing node (its spliced id when nested), and the rest of the graph
 * is still judged.
 */
import { describe, expect, test } from "vitest";
import { issuesWith, nodeFragment, splicedNodes } from "./fragment-harness.js";

const CHECK = nodeFragment("check", ["cmd"], `  prompt: "run {{ with.cmd }}"\n  allowed_tools: [Read]\n`);
const cite = (extra: string): string => `nodes:\n  - id: t\n    use: check\n${extra}`;

describe("naming the fragment", () => {
  test("an unknown fragment: the file it was looked for, and that it is looked for there only", async () => {
    expect(await issuesWith("nodes:\n  - { id: t, use: chek }\n", { check: CHECK })).toEqual([
      'invalid graph: node "t": use "chek" (fragments/chek.yaml): no fragment file fragments/chek.yaml: a fragment is looked up there, beside the graph file, and nowhere else',
    ]);
  });

  test.each(["../secrets", "a/b", ".hidden", "a..b", "/etc/passwd"])(
    "%j is refused before any file is read",
    async (name) => {
      const issues = await issuesWith(`nodes:\n  - { id: t, use: ${JSON.stringify(name)} }\n`, {
        check: CHECK,
      });
      expect(issues).toEqual([
        `invalid graph: node "t": use ${JSON.stringify(name)}: ${JSON.stringify(name)} is not a fragment name: write a bare file name (letters, digits, ".", "_" or "-", starting with a letter or digit, no ".." and no "/"), which is looked up as fragments/NAME.yaml beside the graph file and nowhere else`,
      ]);
    },
  );

  test("use: that is not a name, and a citation with no id", async () => {
    expect(await issuesWith("nodes:\n  - { id: t, use: [check] }\n")).toContain(
      'invalid graph: node "t": use: must be a fragment name (got a list)',
    );
    expect(await issuesWith("nodes:\n  - { use: check }\n", { check: CHECK })).toContain(
      "invalid graph: a node with use: needs an id — the spliced node(s) are named after it",
    );
  });
});

describe("bindings", () => {
  test("a declared substitution left unbound", async () => {
    expect(await issuesWith(cite("    with: {}\n"), { check: CHECK })).toEqual([
      'invalid graph: node "t": use "check": with: does not bind "cmd", which fragments/check.yaml declares — every substitution point needs a value (bind "" for none)',
    ]);
  });

  test("a binding the fragment does not declare", async () => {
    expect(await issuesWith(cite("    with: { cmd: make, cmdd: make }\n"), { check: CHECK })).toEqual([
      'invalid graph: node "t": use "check": with: binds "cmdd", which fragments/check.yaml does not declare (it declares: cmd)',
    ]);
  });

  test("with: without use:, and with: that is not a mapping", async () => {
    expect(await issuesWith("nodes:\n  - { id: t, prompt: p, with: { a: 1 } }\n")).toEqual([
      'invalid graph: node "t": with: binds a fragment\'s substitution points, but this node has no use: — add use: NAME or remove with:',
    ]);
    expect(await issuesWith(cite("    with: [make]\n"), { check: CHECK })).toContain(
      'invalid graph: node "t": use "check": with: must be a mapping of substitution point → value',
    );
  });

  test("a list bound into longer text cannot be spliced", async () => {
    expect(await issuesWith(cite("    with: { cmd: [make, test] }\n"), { check: CHECK })).toContain(
      'invalid graph: node "t": use "check": with: cmd is bound to a list, which cannot be spliced into text ("{{ with.cmd }}" sits inside a longer string); bind text, or make the token the whole value',
    );
  });
});

describe("what the citing node may write", () => {
  test("prompt beside use: on a single-node fragment", async () => {
    expect(await issuesWith(cite("    prompt: mine\n    with: { cmd: make }\n"), { check: CHECK })).toEqual([
      'invalid graph: node "t": use "check": prompt may not be set beside use: — the fragment\'s prompt is its shape; change it through a substitution point, or write the node out',
    ]);
  });

  test("a behaviour field on a node citing a nodes: fragment", async () => {
    const pair = `fragment: pair\ndescription: d\nexit: b\nnodes:\n  - { id: a, prompt: a, allowed_tools: [Read] }\n  - { id: b, depends_on: [a], prompt: b, allowed_tools: [Read] }\n`;
    expect(await issuesWith("nodes:\n  - { id: p, use: pair, timeout: 5m }\n", { pair })).toEqual([
      'invalid graph: node "p": use "pair": timeout cannot be set on a node citing a nodes: fragment — it may set only id, use, with, depends_on, cwd, worktree; give the fragment a substitution point, or use another fragment',
    ]);
  });

  test("a depends_on that is not a list on a node citing a nodes: fragment is refused, not dropped", async () => {
    const pair = `fragment: pair\ndescription: d\nexit: a\nnodes:\n  - { id: a, prompt: a, allowed_tools: [Read] }\n`;
    expect(
      await issuesWith(
        "nodes:\n  - { id: x, prompt: x, allowed_tools: [Read] }\n  - { id: p, use: pair, depends_on: x }\n",
        { pair },
      ),
    ).toEqual(['invalid graph: node "p": use "pair": depends_on must be a list of node ids']);
  });

  test('an id, depends_on entry or feedback.rerun written with a "/" in the graph file', async () => {
    const issues = await issuesWith(
      "nodes:\n  - { id: a/b, prompt: p, allowed_tools: [Read] }\n  - { id: c, depends_on: [a/b], prompt: p, allowed_tools: [Read] }\n",
    );
    expect(issues).toEqual([
      'invalid graph: node "a/b": id "a/b" contains "/", which only fragment splicing writes (USING/INNER); choose an id without it',
      'invalid graph: node "c": names "a/b", a node inside a fragment citation: name the citing node "a" instead (it stands for the fragment\'s exit)',
    ]);
  });
});

describe("chains", () => {
  const linked = (pairs: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(pairs).map(([name, next]) => [
        name,
        nodeFragment(
          name,
          [],
          next === "" ? "  prompt: leaf\n  allowed_tools: [Read]\n" : `  use: ${next}\n`,
        ),
      ]),
    );

  test("a four-fragment chain: the error names the whole chain and the bound", async () => {
    expect(
      await issuesWith("nodes:\n  - { id: top, use: a }\n", linked({ a: "b", b: "c", c: "d", d: "" })),
    ).toEqual([
      'invalid graph: node "top": use "d": the citation chain "a" → "b" → "c" → "d" is 4 fragments deep; a fragment may cite fragments at most 3 deep — write one level out in full',
    ]);
  });

  test("a cycle names the fragments on it, in citation order", async () => {
    expect(await issuesWith("nodes:\n  - { id: top, use: a }\n", linked({ a: "b", b: "a" }))).toEqual([
      'invalid graph: node "top": use "a": fragment "a" cites "b" cites "a" — a citation cycle could never finish splicing; remove one of those use: lines',
    ]);
    expect(await issuesWith("nodes:\n  - { id: top, use: a }\n", linked({ a: "a" }))).toEqual([
      'invalid graph: node "top": use "a": fragment "a" cites "a" — a citation cycle could never finish splicing; remove one of those use: lines',
    ]);
  });

  test("an error inside a nested citation is charged to the spliced id that cites it", async () => {
    const outer = `fragment: outer\ndescription: d\nexit: x\nnodes:\n  - { id: x, use: missing }\n`;
    expect(await issuesWith("nodes:\n  - { id: top, use: outer }\n", { outer })).toEqual([
      'invalid graph: node "top/x": use "missing" (fragments/missing.yaml): no fragment file fragments/missing.yaml: a fragment is looked up there, beside the graph file, and nowhere else',
    ]);
  });
});

describe("the fragment file itself", () => {
  const judge = (text: string): Promise<string[]> =>
    issuesWith("nodes:\n  - { id: t, use: f }\n", { f: text });
  const at = (reason: string): string => `invalid graph: node "t": use "f" (fragments/f.yaml): ${reason}`;

  test("fragment: must equal the file name, and description: is required", async () => {
    expect(await judge("fragment: g\nnode: { prompt: p }\n")).toEqual([
      at('fragment: says "g", but the file is f.yaml — they must agree'),
      at("description: is missing or empty — say what the spliced node does"),
    ]);
  });

  test("node: and nodes: together, neither, and an unknown key", async () => {
    expect(await judge("fragment: f\ndescription: d\nnode: { prompt: p }\nnodes: []\n")).toEqual([
      at("declares both node: and nodes: — a fragment is one node (node:) or several (nodes: with exit:)"),
    ]);
    expect(await judge("fragment: f\ndescription: d\nextra: 1\n")).toEqual([
      at(
        'unknown field "extra" (a fragment file has only fragment, description, substitutions, node, nodes, exit)',
      ),
      at("declares neither node: nor nodes: — there is nothing to splice"),
    ]);
  });

  test("a node: fragment may not wire itself or say where it runs", async () => {
    expect(
      await judge("fragment: f\ndescription: d\nnode: { prompt: p, depends_on: [x], cwd: sub }\n"),
    ).toEqual([
      at(
        "node: may not set depends_on — a node: fragment declares no ids, so it cannot name one; the citing node sets it",
      ),
      at(
        "node: may not set cwd — where a node runs is the citing node's choice, which it passes to every spliced node",
      ),
    ]);
  });

  test("a nodes: fragment needs exit:, and it must be one of its nodes", async () => {
    const two = "nodes:\n  - { id: a, prompt: a }\n  - { id: b, depends_on: [a], prompt: b }\n";
    expect(await judge(`fragment: f\ndescription: d\n${two}`)).toEqual([
      at(
        "exit: is missing — a nodes: fragment must name the node its citation stands for (it is never guessed)",
      ),
    ]);
    expect(await judge(`fragment: f\ndescription: d\nexit: c\n${two}`)).toEqual([
      at('exit: "c" is not one of its nodes (a, b)'),
    ]);
  });

  test("a nodes: fragment names only its own nodes, in edges and in tokens", async () => {
    const text = `fragment: f\ndescription: d\nexit: b\nnodes:\n  - { id: a, prompt: "{{ artifacts.outside }}" }\n  - { id: b, depends_on: [a, elsewhere], prompt: b }\n`;
    expect(await judge(text)).toEqual([
      at(
        'node "a": {{ artifacts.outside }} names "outside", which this fragment does not declare; bind it through a substitution',
      ),
      at(
        'node "b": names "elsewhere", which this fragment does not declare — a fragment wires only its own nodes',
      ),
    ]);
  });

  test("exit: inside one of the fragment's feedback arcs (other than its declarer)", async () => {
    const text = `fragment: f\ndescription: d\nexit: b\nnodes:\n  - { id: a, prompt: a }\n  - { id: b, depends_on: [a], prompt: b }\n  - { id: c, depends_on: [b], prompt: c, feedback: { rerun: a, max: 1 } }\n`;
    expect(await judge(text)).toEqual([
      at(
        'exit: "b" lies inside the feedback arc of "c": a node downstream of the citation would depend on the middle of a loop; exit at the arc\'s declarer or after it',
      ),
    ]);
  });

  test("substitution tokens: undeclared, and ones that claim the namespace without its grammar", async () => {
    const text = nodeFragment("f", ["x"], '  prompt: "{{ with.y }} {{ with.x | inline }} {{ With.x }}"\n');
    expect(await judge(text)).toEqual([
      at(
        '"{{ with.x | inline }}" claims the with namespace but is not {{ with.NAME }}, so it could never be substituted and would reach the model as written',
      ),
      at(
        '"{{ With.x }}" claims the with namespace but is not {{ with.NAME }}, so it could never be substituted and would reach the model as written',
      ),
      at("{{ with.y }} is used but not declared in substitutions"),
    ]);
  });

  test("a file that is not YAML: its syntax error, located in the fragment file", async () => {
    const issues = await judge("fragment: f\ndescription: [unclosed\n");
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^invalid graph: node "t": use "f" \(fragments\/f\.yaml\): cannot parse fragments\/f\.yaml as YAML: /,
    );
  });

  test("a broken fragment cited twice is explained once; the second citation points at the first", async () => {
    const issues = await issuesWith("nodes:\n  - { id: t, use: f }\n  - { id: u, use: f }\n", {
      f: "fragment: f\nnode: { prompt: p }\n",
    });
    expect(issues).toEqual([
      at("description: is missing or empty — say what the spliced node does"),
      'invalid graph: node "u": use "f": fragments/f.yaml cannot be spliced (its problems are listed at node "t")',
    ]);
  });
});

describe("the rest of the graph is still judged", () => {
  test("a failed citation stays as a stand-in: its dependents raise no extra errors, other errors still show", async () => {
    const issues = await issuesWith(
      'nodes:\n  - { id: t, use: nope }\n  - { id: u, depends_on: [t], prompt: "{{ artifacts.t }}", timeout: soon }\n',
    );
    expect(issues).toEqual([
      'invalid graph: node "t": use "nope" (fragments/nope.yaml): no fragment file fragments/nope.yaml: a fragment is looked up there, beside the graph file, and nowhere else',
      expect.stringContaining('invalid graph: node "u": timeout: invalid duration "soon"'),
    ]);
  });

  test("a spliced node's own problems are reported on its spliced id", async () => {
    const bad = nodeFragment("bad", [], "  prompt: p\n  timeout: 5x\n");
    expect(await issuesWith("nodes:\n  - { id: t, use: bad }\n", { bad })).toEqual([
      expect.stringContaining('invalid graph: node "t": timeout: invalid duration "5x"'),
    ]);
  });
});

describe("the Go CLI's fragment refusals (issue 26)", () => {
  const pair = `fragment: pair\ndescription: d\nexit: review\nnodes:\n  - { id: impl, prompt: a, allowed_tools: [Read] }\n  - { id: review, depends_on: [impl], prompt: b, allowed_tools: [Read] }\n`;
  const withTask = `fragment: pair\ndescription: d\nsubstitutions: [task]\nexit: review\nnodes:\n  - { id: impl, prompt: "{{ with.task }}", allowed_tools: [Read] }\n  - { id: review, depends_on: [impl], prompt: b, allowed_tools: [Read] }\n`;

  test("a hand-written node sharing its id with a multi-node citation is refused, not bypassed", async () => {
    const issues = await issuesWith(
      "nodes:\n  - { id: qa, prompt: the hand-written one, allowed_tools: [Read] }\n  - { id: qa, use: pair }\n" +
        '  - { id: pr, depends_on: [qa], prompt: "{{ artifacts.qa }}", allowed_tools: [Read] }\n',
      { pair },
    );
    expect(issues).toEqual([
      'invalid graph: node "qa": a node citing a multi-node fragment shares its id "qa" with this node — depends_on: [qa] and {{ artifacts.qa }} name that fragment\'s exit, so this node would be bypassed: give one of the two another id',
    ]);
  });

  test("the collision is refused whichever of the two comes first", async () => {
    const issues = await issuesWith(
      "nodes:\n  - { id: qa, use: pair }\n  - { id: qa, prompt: the hand-written one, allowed_tools: [Read] }\n",
      { pair },
    );
    expect(issues).toEqual([expect.stringContaining('shares its id "qa" with this node')]);
  });

  test("a prompt token reaching into a citation's internal node is refused", async () => {
    const issues = await issuesWith(
      "nodes:\n  - { id: qa, use: pair }\n" +
        '  - { id: pr, depends_on: [qa], prompt: "fix {{ artifacts.qa/impl | inline }}", allowed_tools: [Read] }\n',
      { pair },
    );
    expect(issues).toEqual([
      'invalid graph: node "pr": {{ artifacts.qa/impl | inline }} names "qa/impl", a node inside a fragment citation, whose internals a graph file may not read: name the citing node "qa" instead (it stands for the fragment\'s exit)',
    ]);
  });

  test("a with: binding reaching into another citation's internal node is refused", async () => {
    const issues = await issuesWith(
      "nodes:\n  - { id: qa, use: pair }\n  - id: qb\n    use: pair2\n    depends_on: [qa]\n" +
        '    with: { task: "redo {{ artifacts.qa/impl }}" }\n',
      { pair, pair2: withTask.replace("fragment: pair", "fragment: pair2") },
    );
    expect(issues).toEqual([
      expect.stringContaining(
        'node "qb": {{ artifacts.qa/impl }} names "qa/impl", a node inside a fragment citation',
      ),
    ]);
  });

  test("a feedback arc or feedback token naming a nodes: citation is refused, saying why", async () => {
    const rerun = await issuesWith(
      "nodes:\n  - { id: qa, use: pair }\n" +
        '  - { id: pr, depends_on: [qa], prompt: "p", allowed_tools: [Read], feedback: { rerun: qa, max: 1 } }\n',
      { pair },
    );
    expect(rerun[0]).toBe(
      'invalid graph: node "pr": feedback.rerun names "qa", a node citing a nodes: fragment, which is not a rerun target (its id stands for the fragment\'s exit, and re-running that alone would not re-run the fragment); name a node of this graph, or declare the arc inside the fragment',
    );
    const token = await issuesWith(
      'nodes:\n  - { id: qa, use: pair }\n  - { id: pr, depends_on: [qa], prompt: "p {{ feedback.qa }}", allowed_tools: [Read] }\n',
      { pair },
    );
    expect(token[0]).toBe(
      'invalid graph: node "pr": {{ feedback.qa }} names "qa", a node citing a nodes: fragment: its feedback arcs are declared, and quoted, inside the fragment; quote the feedback of a node of this graph',
    );
  });
});

describe("the size of the spliced graph", () => {
  /**
   * A graph citing fragment `a` k times; `a` holds k nodes each citing `b`, `b` k nodes each citing `c`, and
   * `c` k plain nodes: a few kilobytes that splice into k⁴ nodes (three citation levels, as allowed).
   */
  function nested(k: number): { graph: string; files: Record<string, string> } {
    const citing = (name: string, next: string) =>
      `fragment: ${name}\ndescription: ${name}\nexit: n0\nnodes:\n${Array.from({ length: k }, (_, i) => `  - { id: n${i}, use: ${next} }\n`).join("")}`;
    const plain = `fragment: c\ndescription: c\nexit: n0\nnodes:\n${Array.from({ length: k }, (_, i) => `  - { id: n${i}, prompt: p${i}, allowed_tools: [Read] }\n`).join("")}`;
    return {
      graph: `nodes:\n${Array.from({ length: k }, (_, i) => `  - { id: t${i}, use: a }\n`).join("")}`,
      files: { a: citing("a", "b"), b: citing("b", "c"), c: plain },
    };
  }

  test("fragments that would splice into more than 10,000 nodes are refused once, on the citation that passes the bound, before the graph is built", async () => {
    const { graph, files } = nested(40); // 2.56 million nodes if spliced
    const issues = await issuesWith(graph, files);
    expect(issues.filter((i) => i.includes("more than 10,000 nodes"))).toEqual([
      expect.stringMatching(
        /^invalid graph: node "t\d+\/n\d+\/n\d+": use "c": splicing the graph's fragments makes more than 10,000 nodes — a graph may have at most 10,000 once its fragments are spliced in; cite fewer fragments/,
      ),
    ]);
  });

  test("exactly 10,000 spliced nodes load", async () => {
    const { graph, files } = nested(10);
    expect(await splicedNodes(graph, files)).toHaveLength(10_000);
  });
});
