import { describe, expect, test } from "vitest";
import {
  ancestorsOf,
  cyclesOf,
  dependentsOf,
  feedbackBodyOf,
  hasAncestor,
  indexById,
  sinksOf,
} from "../../src/graph/topology.js";

const diamond = [
  { id: "plan" },
  { id: "left", depends_on: ["plan"] },
  { id: "right", depends_on: ["plan"] },
  { id: "join", depends_on: ["left", "right"] },
];

describe("depends_on questions", () => {
  test("a sink is a node no other node depends on, in declaration order", () => {
    expect(sinksOf(diamond)).toEqual(["join"]);
    expect(sinksOf([{ id: "a" }, { id: "b" }, { id: "c", depends_on: ["a"] }])).toEqual(["b", "c"]);
  });

  test("ancestors are every transitive parent, not the node itself", () => {
    expect([...ancestorsOf(diamond, "join")].sort()).toEqual(["left", "plan", "right"]);
    expect(ancestorsOf(diamond, "plan").size).toBe(0);
  });

  test("ancestors terminate on a cyclic graph and ignore unknown parents", () => {
    const cyclic = [
      { id: "a", depends_on: ["b", "ghost"] },
      { id: "b", depends_on: ["a"] },
    ];
    expect([...ancestorsOf(cyclic, "a")].sort()).toEqual(["a", "b"]);
  });

  test("hasAncestor answers as ancestorsOf does, for every pair, on a diamond and on a cycle with an unknown parent", () => {
    const cyclic = [
      { id: "a", depends_on: ["b", "ghost"] },
      { id: "b", depends_on: ["a"] },
      { id: "c", depends_on: ["b"] },
    ];
    for (const nodes of [diamond, cyclic]) {
      const byId = indexById(nodes);
      for (const { id } of nodes)
        for (const candidate of [...nodes.map((n) => n.id), "ghost"])
          expect(hasAncestor(byId, id, candidate), `${id} ← ${candidate}`).toBe(
            ancestorsOf(nodes, id).has(candidate),
          );
    }
    // Spot checks of what the loop compares: a grandparent yes, a sibling no, itself only on a cycle.
    expect(hasAncestor(indexById(diamond), "join", "plan")).toBe(true);
    expect(hasAncestor(indexById(diamond), "left", "right")).toBe(false);
    expect(hasAncestor(indexById(cyclic), "a", "a")).toBe(true);
    expect(hasAncestor(indexById(cyclic), "c", "c")).toBe(false);
  });

  test("dependents are the nodes listing the id in depends_on", () => {
    expect(dependentsOf(diamond, "plan")).toEqual(["left", "right"]);
  });
});

describe("cycles are named along depends_on, starting at the earliest-declared node", () => {
  test("a chain or a cycle of 20,000 nodes is walked without exhausting the call stack (a graph's length is the pull request's to choose)", () => {
    const n = 20_000;
    // Declared child first, so the walk goes 20,000 deep from the first node.
    const chain = Array.from({ length: n }, (_, i) => ({
      id: `a${i}`,
      ...(i < n - 1 ? { depends_on: [`a${i + 1}`] } : {}),
    }));
    expect(cyclesOf(chain)).toEqual([]);
    const ring = Array.from({ length: n }, (_, i) => ({ id: `a${i}`, depends_on: [`a${(i + 1) % n}`] }));
    const cycles = cyclesOf(ring);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.length).toBe(n + 1);
    expect(cycles[0]!.slice(0, 3)).toEqual(["a0", "a1", "a2"]);
    expect(cycles[0]!.at(-1)).toBe("a0");
  });

  test("a two-node cycle reads a -> b -> a", () => {
    expect(
      cyclesOf([
        { id: "a", depends_on: ["b"] },
        { id: "b", depends_on: ["a"] },
      ]),
    ).toEqual([["a", "b", "a"]]);
  });

  test("a three-node cycle found from its last node still starts at the first declared", () => {
    expect(
      cyclesOf([
        { id: "x", depends_on: ["z"] },
        { id: "y", depends_on: ["x"] },
        { id: "z", depends_on: ["y"] },
      ]),
    ).toEqual([["x", "z", "y", "x"]]);
  });

  test("two separate cycles are both reported; self-dependencies and acyclic graphs give none", () => {
    expect(
      cyclesOf([
        { id: "a", depends_on: ["b"] },
        { id: "b", depends_on: ["a"] },
        { id: "c", depends_on: ["d"] },
        { id: "d", depends_on: ["c"] },
        { id: "e", depends_on: ["e"] },
      ]),
    ).toEqual([
      ["a", "b", "a"],
      ["c", "d", "c"],
    ]);
    expect(cyclesOf(diamond)).toEqual([]);
  });
});

test("a feedback body is every node on a path from rerun to the declarer, declarer included", () => {
  const nodes = [
    { id: "plan" },
    { id: "code", depends_on: ["plan"] },
    { id: "docs", depends_on: ["plan"] },
    { id: "test", depends_on: ["code"] },
    { id: "review", depends_on: ["test", "docs"], feedback: { rerun: "code" } },
  ];
  expect(feedbackBodyOf(nodes, "review")).toEqual(["code", "test", "review"]);
  expect(feedbackBodyOf(nodes, "plan")).toEqual([]);
});
