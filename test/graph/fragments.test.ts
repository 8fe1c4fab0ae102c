/**
 * Fragment splicing (docs/graph-format.md "Fragments"; Go ADR 0013, 0027, 0029): what a `use:` becomes in
 * the loaded graph — ids, edges, merged fields, bindings, nesting — judged on the spliced spec, which is
 * what `resolve` prints and `graph.json` records.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fragmentsBeside } from "../../src/graph/fragment-source.js";
import { formatIssue } from "../../src/graph/issue.js";
import { formatSplice, loadGraphFile, loadGraphText } from "../../src/graph/load.js";
import {
  issuesWith,
  lintWith,
  loadWith,
  memorySource,
  nodeFragment,
  splicedNodes,
} from "./fragment-harness.js";

const CHECK = nodeFragment(
  "check",
  ["cmd", "tools"],
  `  prompt: "check the work, then run {{ with.cmd }}"
  allowed_tools: "{{ with.tools }}"
  timeout: 5m
  success_check:
    verify: { command: "{{ with.cmd }}" }
`,
);

const LOOP = `fragment: loop
description: implement, check, review with one repair round
substitutions: [task]
exit: review
nodes:
  - id: impl
    prompt: "{{ with.task }} Findings: {{ feedback.review }}"
    allowed_tools: [Read, Edit]
  - id: verify
    use: check
    depends_on: [impl]
    with: { cmd: make, tools: [Read] }
  - id: review
    depends_on: [verify]
    prompt: "review {{ artifacts.impl | inline }}"
    allowed_tools: [Read]
    feedback: { rerun: impl, max: 1 }
`;

describe("a single-node fragment", () => {
  test("takes the citing node's id and wiring; bindings fill text and typed values", async () => {
    const nodes = await splicedNodes(
      `nodes:
  - { id: build, prompt: build it, allowed_tools: [Read] }
  - id: test
    use: check
    depends_on: [build]
    with: { cmd: npm test, tools: [Read, "Bash(npm test)"] }
`,
      { check: CHECK },
    );
    expect(nodes[1]).toEqual({
      id: "test",
      depends_on: ["build"],
      prompt: "check the work, then run npm test",
      allowed_tools: ["Read", "Bash(npm test)"],
      timeout: "5m",
      success_check: { verify: { command: "npm test" } },
    });
  });

  test("a field the citing node writes replaces the fragment's whole field, never merged into it", async () => {
    const nodes = await splicedNodes(
      `nodes:
  - id: test
    use: check
    with: { cmd: npm test, tools: [Read] }
    timeout: 1m
    success_check: { exit_zero: true }
`,
      { check: CHECK },
    );
    expect(nodes[0]?.timeout).toBe("1m");
    expect(nodes[0]?.success_check).toEqual({ exit_zero: true });
  });

  test('a field that is one substitution bound to "" is left out (its default), as in the Go CLI', async () => {
    const fragment = nodeFragment(
      "r",
      ["agent", "limit"],
      `  prompt: review\n  agent: "{{ with.agent }}"\n  timeout: "{{ with.limit }}"\n`,
    );
    const nodes = await splicedNodes(`nodes:\n  - { id: r, use: r, with: { agent: "", limit: "" } }\n`, {
      r: fragment,
    });
    expect(nodes[0]).toEqual({ id: "r", prompt: "review" });
  });

  test("a bound runtime placeholder survives splicing and is judged like a written one", async () => {
    const fragment = nodeFragment(
      "say",
      ["what"],
      `  prompt: "say {{ with.what }}"\n  allowed_tools: [Read]\n`,
    );
    const nodes = await splicedNodes(
      `inputs: [word]\nnodes:\n  - { id: a, prompt: "{{ inputs.word }}", allowed_tools: [Read] }\n  - { id: b, use: say, depends_on: [a], with: { what: "{{ artifacts.a | inline }}" } }\n`,
      { say: fragment },
    );
    expect(nodes[1]?.prompt).toBe("say {{ artifacts.a | inline }}");
  });
});

describe("a multi-node fragment", () => {
  const GRAPH = `nodes:
  - { id: plan, prompt: plan it, allowed_tools: [Read] }
  - id: qa
    use: loop
    depends_on: [plan]
    cwd: pkg
    with: { task: "build the thing" }
  - id: ship
    depends_on: [qa]
    prompt: "ship {{ artifacts.qa | inline }} from {{ artifacts.qa }}"
    allowed_tools: [Read]
    success_check: { verify: { command: npm test } }
`;

  test("splices USING/INNER ids, renames its own references, and the exit stands for the citation", async () => {
    const nodes = await splicedNodes(GRAPH, { loop: LOOP, check: CHECK });
    expect(nodes.map((node) => [node.id, node.depends_on ?? []])).toEqual([
      ["plan", []],
      ["qa/impl", ["plan"]],
      ["qa/verify", ["qa/impl"]],
      ["qa/review", ["qa/verify"]],
      ["ship", ["qa/review"]],
    ]);
    expect(nodes[1]?.prompt).toBe("build the thing Findings: {{ feedback.qa/review }}");
    expect(nodes[3]?.prompt).toBe("review {{ artifacts.qa/impl | inline }}");
    expect(nodes[3]?.feedback).toEqual({ rerun: "qa/impl", max: 1 });
    expect(nodes[4]?.prompt).toBe("ship {{ artifacts.qa/review | inline }} from {{ artifacts.qa/review }}");
  });

  test("the citing node's cwd (and worktree) reaches every spliced node, nested ones included", async () => {
    const nodes = await splicedNodes(GRAPH, { loop: LOOP, check: CHECK });
    expect(nodes.slice(1, 4).map((node) => node.cwd)).toEqual(["pkg", "pkg", "pkg"]);
    const worktree = await splicedNodes(GRAPH.replace("cwd: pkg", "worktree: lane"), {
      loop: LOOP,
      check: CHECK,
    });
    expect(worktree.slice(1, 4).map((node) => node.worktree)).toEqual(["lane", "lane", "lane"]);
  });

  test("the spliced graph is validated: its feedback body is the renamed nodes", async () => {
    const loaded = await loadWith(GRAPH, { loop: LOOP, check: CHECK });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.graph.nodes_by_id.get("qa/review")?.feedback?.body).toEqual([
      "qa/impl",
      "qa/verify",
      "qa/review",
    ]);
    expect(loaded.graph.sinks).toEqual(["ship"]);
    expect(JSON.stringify(loaded.graph.spec)).not.toMatch(/"use"|"with"/);
  });

  test("a bound value is inserted after the renaming, so it keeps naming the citing graph's node", async () => {
    // The fragment declares `impl`; the citing graph has its own `impl` and binds a reference to it.
    const fragment = `fragment: pair
description: a pair
substitutions: [context]
exit: b
nodes:
  - { id: impl, prompt: "first {{ with.context }}", allowed_tools: [Read] }
  - { id: b, depends_on: [impl], prompt: "second {{ artifacts.impl }}", allowed_tools: [Read] }
`;
    const nodes = await splicedNodes(
      `nodes:\n  - { id: impl, prompt: outer, allowed_tools: [Read] }\n  - { id: p, use: pair, depends_on: [impl], with: { context: "{{ artifacts.impl | inline }}" } }\n`,
      { pair: fragment },
    );
    expect(nodes[1]?.prompt).toBe("first {{ artifacts.impl | inline }}");
    expect(nodes[2]?.prompt).toBe("second {{ artifacts.p/impl }}");
  });
});

describe("nesting", () => {
  const chain = (names: readonly string[]): Record<string, string> =>
    Object.fromEntries(
      names.map((name, at) => {
        const next = names[at + 1];
        const body =
          next === undefined ? `  prompt: "leaf ${name}"\n  allowed_tools: [Read]\n` : `  use: ${next}\n`;
        return [name, nodeFragment(name, [], body)];
      }),
    );

  test("a fragment citing a fragment citing a fragment (three deep) splices to the leaf", async () => {
    const nodes = await splicedNodes("nodes:\n  - { id: top, use: a }\n", chain(["a", "b", "c"]));
    expect(nodes).toEqual([{ id: "top", prompt: "leaf c", allowed_tools: ["Read"] }]);
  });

  test("multi-node fragments nest: ids join with / again, and the outer exit follows the inner one", async () => {
    const inner = `fragment: inner\ndescription: two nodes\nexit: y\nnodes:\n  - { id: x, prompt: x, allowed_tools: [Read] }\n  - { id: y, depends_on: [x], prompt: y, allowed_tools: [Read] }\n`;
    const outer = `fragment: outer\ndescription: wraps inner\nexit: core\nnodes:\n  - { id: core, use: inner }\n`;
    const nodes = await splicedNodes(
      "nodes:\n  - { id: top, use: outer }\n  - { id: after, depends_on: [top], prompt: after, allowed_tools: [Read] }\n",
      { outer, inner },
    );
    expect(nodes.map((node) => [node.id, node.depends_on ?? []])).toEqual([
      ["top/core/x", []],
      ["top/core/y", ["top/core/x"]],
      ["after", ["top/core/y"]],
    ]);
  });

  test("a fragment cited twice (a diamond, not a cycle) is read once and splices twice", async () => {
    const source = memorySource({ check: CHECK });
    const graph = `nodes:
  - { id: a, use: check, with: { cmd: x, tools: [Read] } }
  - { id: b, use: check, with: { cmd: y, tools: [Read] } }
`;
    const loaded = await loadGraphFile(graph, "g.yaml", source);
    expect(loaded.ok).toBe(true);
    expect(source.reads).toEqual(["check"]);
  });

  test("a fourth fragment in the chain is never read", async () => {
    const source = memorySource(chain(["a", "b", "c", "d"]));
    await loadGraphFile("nodes:\n  - { id: top, use: a }\n", "g.yaml", source);
    expect(source.reads).toEqual(["a", "b", "c"]);
  });
});

describe("where fragments are spliced", () => {
  test("graph data loaded without its fragments (a planner reply, graph.json) refuses use:", () => {
    const loaded = loadGraphText("nodes:\n  - { id: a, use: check }\n", "graph.json");
    expect(loaded.ok ? [] : loaded.issues.map((issue) => issue.reason)).toContainEqual(
      expect.stringContaining('unknown field "use"; use:/with: cite a fragment file'),
    );
  });

  test("a spliced graph's graph.json loads again as data, / ids and all", async () => {
    const loaded = await loadWith("nodes:\n  - { id: top, use: loop, with: { task: t } }\n", {
      loop: LOOP,
      check: CHECK,
    });
    if (!loaded.ok) throw new Error("did not load");
    const again = loadGraphText(JSON.stringify(loaded.graph.spec), "graph.json");
    expect(again.ok && again.graph.nodes.map((node) => node.id)).toEqual([
      "top/impl",
      "top/verify",
      "top/review",
    ]);
  });

  test("lint judges the spliced graph: advisories name spliced ids, and a clean citation adds nothing", async () => {
    const { errors, advisories } = await lintWith(
      "nodes:\n  - { id: t, use: check, with: { cmd: npm test, tools: [Read] } }\n",
      { check: CHECK },
    );
    expect(errors).toEqual([]);
    expect(advisories).toEqual([]);
    const loop = await lintWith("nodes:\n  - { id: q, use: loop, with: { task: t } }\n", {
      loop: LOOP,
      check: CHECK,
    });
    expect(loop.errors).toEqual([]);
    expect(loop.advisories.join("\n")).toContain('advisory: node "q/review"');
  });

  test("a graph without use: loads through the file loader exactly as through the data loader", async () => {
    const text = "nodes:\n  - { id: a, prompt: hi, allowed_tools: [Read] }\n";
    expect(await issuesWith(text)).toEqual([]);
    const viaFile = await loadWith(text);
    const viaData = loadGraphText(text, "g.yaml");
    expect(viaFile.ok && viaFile.graph.spec).toEqual(viaData.ok && viaData.graph.spec);
  });
});

describe("fragment files on disk (fragmentsBeside)", () => {
  test("a fragment that is a symlink, or a fragments/ folder linking elsewhere, is refused, naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-frag-link-"));
    try {
      const body = "fragment: ext\ndescription: d\nnode:\n  prompt: outside text\n";
      writeFileSync(join(dir, "outside.yaml"), body);
      const graphText = "nodes:\n  - id: a\n    use: ext\n";
      const linked = join(dir, "linked");
      mkdirSync(join(linked, "fragments"), { recursive: true });
      symlinkSync(join(dir, "outside.yaml"), join(linked, "fragments", "ext.yaml"));
      const viaLink = await loadGraphFile(
        graphText,
        "g.yaml",
        fragmentsBeside(join(linked, "g.yaml"), "g.yaml"),
      );
      expect(viaLink.ok ? [] : viaLink.issues.map((i) => i.reason).join("\n")).toContain(
        "cannot read fragments/ext.yaml: it is a symlink, and a fragment is read only from a regular file in fragments/",
      );
      const folderLinked = join(dir, "folder");
      mkdirSync(join(dir, "elsewhere"));
      writeFileSync(join(dir, "elsewhere", "ext.yaml"), body);
      mkdirSync(folderLinked);
      symlinkSync(join(dir, "elsewhere"), join(folderLinked, "fragments"));
      const viaFolder = await loadGraphFile(
        graphText,
        "g.yaml",
        fragmentsBeside(join(folderLinked, "g.yaml"), "g.yaml"),
      );
      expect(viaFolder.ok ? [] : viaFolder.issues.map((i) => i.reason).join("\n")).toContain(
        "cannot read fragments/ext.yaml: it resolves outside the graph's fragments/ folder",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the splice disclosure and the fragment advisory (issue 26; Go FragmentResolution)", () => {
  const check = nodeFragment(
    "check",
    ["cmd", "extra"],
    '  prompt: "run {{ with.cmd }}"\n  allowed_tools: [Read, "{{ with.extra }}"]\n  timeout: 5m\n  retry: { max: 1, on: [nonzero_exit] }\n',
  );

  test("a node: citation names what the citing node overrode and the grant a binding assembled", async () => {
    const loaded = await loadWith(
      'nodes:\n  - id: t\n    use: check\n    with: { cmd: make, extra: "Bash(make *)" }\n    timeout: 9m\n    retry: { max: 0, on: [] }\n',
      { check },
    );
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join("\n"));
    expect(loaded.splices.map(formatSplice)).toEqual([
      'fragment: node "t" spliced from "check" (fragments/check.yaml) — the check fragment — node overrides: timeout, retry — grants: t [Read, Bash(make *)]',
    ]);
  });

  test("a nodes: citation names the ids it minted; a grant written out in the file is not repeated", async () => {
    const pair =
      "fragment: pair\ndescription: a pair\nexit: b\nnodes:\n  - { id: a, prompt: a, allowed_tools: [Read] }\n" +
      "  - { id: b, depends_on: [a], prompt: b, allowed_tools: [Read] }\n";
    const loaded = await loadWith("nodes:\n  - { id: p, use: pair }\n", { pair });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join("\n"));
    expect(loaded.splices).toEqual([
      {
        nodeId: "p",
        fragment: "pair",
        description: "a pair",
        location: "fragments/pair.yaml",
        depth: 1,
        overridden: [],
        spliced: ["p/a", "p/b"],
        grants: [],
      },
    ]);
  });

  test("a substitution point the body never references is an advisory, once per fragment", async () => {
    const unused = nodeFragment(
      "unused",
      ["cmd", "stale"],
      '  prompt: "run {{ with.cmd }}"\n  allowed_tools: [Read]\n',
    );
    const { errors, advisories } = await lintWith(
      "nodes:\n  - { id: t, use: unused, with: { cmd: a, stale: b } }\n  - { id: u, use: unused, with: { cmd: a, stale: b } }\n",
      { unused },
    );
    expect(errors).toEqual([]);
    expect(advisories.filter((a) => a.includes("never referenced"))).toEqual([
      'advisory: node "t": use "unused" (fragments/unused.yaml): substitution point "stale" is declared but never referenced in the fragment\'s body, so every citation must bind a value that goes nowhere (drift: the body moved, the declaration did not); remove it from substitutions, or put {{ with.stale }} where it was meant to go',
    ]);
  });
});
