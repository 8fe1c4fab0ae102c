/**
 * Questions about the `depends_on` relation (SPEC §1 "sink", §3 feedback rules): ancestors, dependents,
 * sinks, cycles and feedback-arc bodies. Pure functions over the minimal node shape below, so validation
 * can ask them of a graph that is still invalid (unknown ids contribute no edges; cycles terminate).
 */

/** The part of a node these functions read. */
export interface TopologyNode {
  readonly id: string;
  readonly depends_on?: readonly string[] | undefined;
  readonly feedback?: { readonly rerun?: string | undefined } | undefined;
}

/** The nodes by id; the first of a repeated id wins (validation reports the repeat). */
export function indexById<N extends TopologyNode>(nodes: readonly N[]): Map<string, N> {
  const byId = new Map<string, N>();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  return byId;
}

/**
 * The transitive `depends_on` parents of `id` (not `id` itself unless it lies on a cycle), each once, as the
 * walk up from `id` meets them: a caller that stops early walks only that far. Unknown ids are not parents.
 */
function* ancestorsFrom(byId: ReadonlyMap<string, TopologyNode>, id: string): Generator<string> {
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const current = byId.get(stack.pop() ?? "");
    for (const parent of current?.depends_on ?? []) {
      if (!seen.has(parent) && byId.has(parent)) {
        seen.add(parent);
        yield parent;
        stack.push(parent);
      }
    }
  }
}

/** Every transitive `depends_on` parent of `id` (not `id` itself unless it lies on a cycle). */
export function ancestorsOf(nodes: readonly TopologyNode[], id: string): Set<string> {
  return new Set(ancestorsFrom(indexById(nodes), id));
}

/**
 * Whether `candidate` is a transitive `depends_on` parent of `id` (as `ancestorsOf(…).has(candidate)`), walking
 * up from `id` only until it is found: a node naming its parent costs one step, not a walk of the graph.
 */
export function hasAncestor(byId: ReadonlyMap<string, TopologyNode>, id: string, candidate: string): boolean {
  for (const ancestor of ancestorsFrom(byId, id)) if (ancestor === candidate) return true;
  return false;
}

/** Ids of the nodes that list `id` in `depends_on`, in declaration order. */
export function dependentsOf(nodes: readonly TopologyNode[], id: string): string[] {
  return nodes.filter((node) => node.depends_on?.includes(id) === true).map((node) => node.id);
}

/** Sinks: ids no node depends on, in declaration order (SPEC §1). Every node is a sink or reaches one. */
export function sinksOf(nodes: readonly TopologyNode[]): string[] {
  const depended = new Set(nodes.flatMap((node) => node.depends_on ?? []));
  return nodes.filter((node) => !depended.has(node.id)).map((node) => node.id);
}

/**
 * Dependency cycles, each as the ids along it with the first repeated at the end, read "depends on":
 * `["a", "b", "a"]` means a depends on b and b on a. Each cycle starts at its earliest-declared node and
 * is reported once. Self-dependencies are left to the caller (they are reported as such).
 */
export function cyclesOf(nodes: readonly TopologyNode[]): string[][] {
  const byId = indexById(nodes);
  const order = new Map(nodes.map((node, index) => [node.id, index] as const));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const found = new Map<string, string[]>();

  // Depth first along depends_on, with an explicit stack (a chain of thousands of nodes would overflow
  // the call stack): each frame is a node on the current path and how many of its parents were visited.
  const stack: { readonly id: string; readonly parents: readonly string[]; next: number }[] = [];
  const enter = (id: string): void => {
    state.set(id, "open");
    path.push(id);
    stack.push({ id, parents: byId.get(id)?.depends_on ?? [], next: 0 });
  };
  for (const node of nodes) {
    if (state.has(node.id)) continue;
    enter(node.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next >= top.parents.length) {
        stack.pop();
        path.pop();
        state.set(top.id, "done");
        continue;
      }
      const parent = top.parents[top.next++]!;
      if (parent === top.id || !byId.has(parent)) continue;
      const seen = state.get(parent);
      if (seen === "open") {
        const loop = path.slice(path.indexOf(parent));
        const start = loop.reduce(
          (best, candidate, at) =>
            (order.get(candidate) ?? 0) < (order.get(loop[best] ?? "") ?? 0) ? at : best,
          0,
        );
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        const key = rotated.join("\u0000");
        if (!found.has(key)) found.set(key, [...rotated, rotated[0] ?? parent]);
      } else if (seen === undefined) {
        enter(parent);
      }
    }
  }
  return [...found.values()];
}

/**
 * The body of the feedback arc node `declarerId` declares: every node on a `depends_on` path from the
 * arc's `rerun` target up to and including the declarer, in declaration order (Go ADR 0010). Empty when
 * the node declares no arc or its target is not a proper ancestor (validation reports those).
 */
export function feedbackBodyOf(nodes: readonly TopologyNode[], declarerId: string): string[] {
  const declarer = indexById(nodes).get(declarerId);
  const target = declarer?.feedback?.rerun;
  if (declarer === undefined || target === undefined) return [];
  const upstream = ancestorsOf(nodes, declarerId);
  if (!upstream.has(target) || target === declarerId) return [];
  return nodes
    .filter(
      (node) =>
        node.id === declarerId ||
        node.id === target ||
        (upstream.has(node.id) && ancestorsOf(nodes, node.id).has(target)),
    )
    .map((node) => node.id);
}
