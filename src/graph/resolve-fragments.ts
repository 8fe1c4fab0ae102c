/**
 * Fragment splicing (research/oh-my-graph.md §2.9; Go ADR 0013, 0027, 0029): every node of a graph file
 * that says `use: NAME` is replaced, at load, by the node(s) of `fragments/NAME.yaml`; what is validated,
 * run and snapshotted is the spliced graph, in which no fragment concept remains.
 *
 * - **Single-node fragment** (`node:`): the body, with `with:` bound into its substitution points, under
 *   the citing node's own fields — each field the citing node writes replaces the body's whole field (no
 *   deep merge). The id is the citing node's. `prompt:` beside `use:` is refused: customise through a
 *   substitution point, or write a different node.
 * - **Multi-node fragment** (`nodes:` + `exit:`): each node becomes `USING/INNER`, the fragment's own
 *   references (`depends_on`, `feedback.rerun`, `{{ artifacts.INNER }}`, `{{ feedback.INNER }}`) renamed
 *   with it BEFORE `with:` is bound, so a bound value always means what it means in the citing graph. Its
 *   entry nodes (no parent inside the fragment) inherit the citing node's `depends_on`; every spliced node
 *   gets the citing node's `cwd` and `worktree`. The citing node may set only that wiring (`id`, `use`,
 *   `with`, `depends_on`, `cwd`, `worktree`).
 * - **Outside a multi-node citation**, its id stands for its exit: `depends_on: [USING]` and
 *   `{{ artifacts.USING }}` are rewritten to `USING/EXIT` once everything is spliced.
 * - **Nesting**: a fragment's node may itself `use:` a fragment, resolved the same way at the splice, at
 *   most {@link MAX_FRAGMENT_DEPTH} fragments deep; a name repeated on the chain is a cycle. Both are
 *   errors naming the chain.
 *
 * `with:` must bind exactly the fragment's declared `substitutions`: a missing or an extra binding is an
 * error. A graph file's own ids, `depends_on` entries, `feedback.rerun` and placeholder tokens (in any
 * field, `with:` bindings included) may not contain `/` — only the splicer writes one. No node may share its
 * id with a multi-node citation (the id stands for the fragment's exit). Every problem is an issue on the citing node (its spliced id when nested); a node
 * whose citation fails stays in the graph as a stand-in, so the rest of the graph is still judged.
 */
import { type Fragment, type FragmentJudgement, judgeFragment } from "./fragment-file.js";
import { type FragmentLibrary, fragmentNameProblem, MAX_FRAGMENT_DEPTH } from "./fragment-source.js";
import { refsIn, renameRefsIn, stringsIn, substituteWith } from "./fragment-text.js";
import type { GraphIssue } from "./issue.js";
import { placeholdersIn } from "./placeholders.js";
import { isRecord } from "./plain-data.js";

/**
 * One resolved `use:`, for the splice disclosure `lint`, `resolve` and a run's plan print (Go
 * `FragmentResolution`): what a citation pulled in is announced at every run, not only visible to whoever
 * opens the fragment file.
 */
export interface FragmentSplice {
  /** The citing node's id (its spliced id when the citation sits inside a fragment). */
  readonly nodeId: string;
  readonly fragment: string;
  /** The fragment file's `description:`. */
  readonly description: string;
  /** Where the fragment file was read, e.g. `fragments/check.yaml`. */
  readonly location: string;
  /** Citation hops: 1 for a `use:` in the graph file, 2 for one inside a fragment it cites, … */
  readonly depth: number;
  /** Single-node: the body's fields the citing node replaced, in the fragment file's order. */
  readonly overridden: readonly string[];
  /** Multi-node: the spliced ids this citation minted that stand in the graph (a nested `use:` is not one). */
  readonly spliced: readonly string[];
  /** Spliced nodes whose `allowed_tools` a `with:` binding changed, with the tools as bound. */
  readonly grants: readonly { readonly nodeId: string; readonly tools: unknown }[];
}

/** A finding about a fragment file that does not stop the load (Go `FragmentAdvisory`), on its first citer. */
export interface FragmentNote {
  readonly nodeId: string;
  readonly reason: string;
}

/** The spliced graph data, every problem splicing found, what it spliced, and its advice. */
export interface SpliceResult {
  readonly data: Record<string, unknown>;
  readonly issues: readonly GraphIssue[];
  /** Every resolved citation, in the order spliced (a nested one after its parent). */
  readonly splices: readonly FragmentSplice[];
  readonly notes: readonly FragmentNote[];
}

/**
 * The disclosure line of one splice: `fragment: node "t" spliced from "check" (fragments/check.yaml) —
 * DESCRIPTION`, then ` — node overrides: a, b`, ` — nodes: t/x, t/y`, ` — grants: t [Read, Bash(npm *)]`
 * when there are any (Go `printFragmentResolutions`).
 */
export function formatSplice(splice: FragmentSplice): string {
  const parts = [
    `fragment: node ${JSON.stringify(splice.nodeId)} spliced from ${JSON.stringify(splice.fragment)} ` +
      `(${splice.location}) — ${splice.description}`,
  ];
  if (splice.overridden.length > 0) parts.push(`node overrides: ${splice.overridden.join(", ")}`);
  if (splice.spliced.length > 0) parts.push(`nodes: ${splice.spliced.join(", ")}`);
  if (splice.grants.length > 0) {
    const grant = (tools: unknown): string =>
      Array.isArray(tools) ? `[${tools.map(String).join(", ")}]` : JSON.stringify(tools);
    parts.push(`grants: ${splice.grants.map((g) => `${g.nodeId} ${grant(g.tools)}`).join("; ")}`);
  }
  return parts.join(" — ");
}

type SingleFragment = Extract<Fragment, { kind: "single" }>;
type MultiFragment = Extract<Fragment, { kind: "multi" }>;

/** What a node citing a multi-node fragment may declare besides its citation. */
const WIRING = ["id", "use", "with", "depends_on", "cwd", "worktree"];

/**
 * Splices every `use:` of graph file data `data` (a mapping, `null` values already removed) from
 * `library`. Returns a new object; `data` is not changed. Never throws on bad input.
 */
/**
 * The most nodes a graph may have once its fragments are spliced in. A few kilobytes of nested citations
 * (K citations of a fragment of K nodes, each citing one of K nodes, …) stand for K³ nodes or more, which
 * the graph file's own size cap does not bound; a graph is read from the pull request (`mode: lint`, a
 * hand-written graph), so its size after splicing is bounded here, before it is built.
 */
export const MAX_SPLICED_NODES = 10_000;

export function resolveFragments(data: Record<string, unknown>, library: FragmentLibrary): SpliceResult {
  if (!Array.isArray(data.nodes)) return { data, issues: [], splices: [], notes: [] };
  const splicer = new Splicer(library);
  const spliced: unknown[] = [];
  data.nodes.forEach((node: unknown) => {
    if (!isRecord(node)) {
      spliced.push(node);
      return;
    }
    splicer.checkAuthored(node);
    if (node.use !== undefined) splicer.splice(node, [], spliced);
    else if (node.with !== undefined) {
      splicer.issue(
        node,
        "with: binds a fragment's substitution points, but this node has no use: — add use: NAME or remove with:",
      );
      const { with: _with, ...rest } = node;
      spliced.push(rest);
    } else spliced.push(node);
  });
  splicer.checkCollisions(spliced);
  return {
    data: { ...data, nodes: splicer.pointAtExits(spliced) },
    issues: splicer.issues,
    splices: splicer.splices,
    notes: splicer.notes,
  };
}

class Splicer {
  readonly issues: GraphIssue[] = [];
  readonly splices: FragmentSplice[] = [];
  readonly notes: FragmentNote[] = [];
  /** A multi-node citation's id → its exit's spliced id. */
  private readonly exits = new Map<string, string>();
  private readonly judged = new Map<string, { judgement: FragmentJudgement; firstCitedBy: string }>();
  /** Set once splicing would pass {@link MAX_SPLICED_NODES}: no citation is spliced after that. */
  private overBudget = false;

  constructor(private readonly library: FragmentLibrary) {}

  /**
   * Whether `adding` more nodes fits {@link MAX_SPLICED_NODES} beside the `out` already spliced; when not,
   * the citing node is reported once and every later citation is left unspliced.
   */
  private fits(
    using: Record<string, unknown>,
    fragmentName: string,
    out: unknown[],
    adding: number,
  ): boolean {
    if (this.overBudget) return false;
    if (out.length + adding <= MAX_SPLICED_NODES) return true;
    this.overBudget = true;
    this.issue(
      using,
      `use ${JSON.stringify(fragmentName)}: splicing the graph's fragments makes more than ${MAX_SPLICED_NODES.toLocaleString("en-US")} nodes — a graph may have at most ${MAX_SPLICED_NODES.toLocaleString("en-US")} once its fragments are spliced in; cite fewer fragments (a citation of a fragment that cites others counts every node they splice)`,
    );
    return false;
  }

  issue(node: Record<string, unknown>, reason: string): void {
    this.issues.push({
      nodeId: typeof node.id === "string" && node.id.trim() !== "" ? node.id : null,
      reason,
    });
  }

  /** A graph file's own node may not write `/` in its id or in the ids it names. */
  checkAuthored(node: Record<string, unknown>): void {
    if (typeof node.id === "string" && node.id.includes("/")) {
      this.issue(
        node,
        `id ${JSON.stringify(node.id)} contains "/", which only fragment splicing writes (USING/INNER); choose an id without it`,
      );
    }
    const parents = Array.isArray(node.depends_on) ? node.depends_on : [];
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : undefined;
    for (const named of [...parents, ...(rerun === undefined ? [] : [rerun])]) {
      if (typeof named === "string" && named.includes("/")) {
        const citing = named.slice(0, named.indexOf("/"));
        this.issue(
          node,
          `names ${JSON.stringify(named)}, a node inside a fragment citation: name the citing node ` +
            `${JSON.stringify(citing)} instead (it stands for the fragment's exit)`,
        );
      }
    }
    // Every string, `with:` bindings included (Go `refuseAuthoredNamespaces` walks every scalar): a
    // token is where reaching into a citation leaks data, and the spliced id it names really exists.
    for (const { id, token } of refsIn(node)) {
      if (id.includes("/")) {
        const citing = id.slice(0, id.indexOf("/"));
        this.issue(
          node,
          `${token} names ${JSON.stringify(id)}, a node inside a fragment citation, whose internals a graph ` +
            `file may not read: name the citing node ${JSON.stringify(citing)} instead (it stands for the fragment's exit)`,
        );
      }
    }
  }

  /**
   * A hand-written node sharing its id with a multi-node citation (Go `refuseLoopIDCollisions`): the
   * citation's id leaves the spliced graph, so duplicate-id validation cannot see the pair, and every
   * reference to the id would be aimed at the fragment's exit, orphaning the hand-written node.
   */
  checkCollisions(nodes: readonly unknown[]): void {
    for (const node of nodes) {
      if (isRecord(node)) this.checkLoopRefs(node);
      if (!isRecord(node) || typeof node.id !== "string" || !this.exits.has(node.id)) continue;
      this.issue(
        node,
        `a node citing a multi-node fragment shares its id ${JSON.stringify(node.id)} with this node — ` +
          `depends_on: [${node.id}] and {{ artifacts.${node.id} }} name that fragment's exit, so this node ` +
          "would be bypassed: give one of the two another id",
      );
    }
  }

  /**
   * A `feedback.rerun` or `{{ feedback.ID }}` naming a multi-node citation (Go: "a loop is not a rerun
   * target"): unlike `depends_on` and `{{ artifacts.ID }}`, neither stands for the exit — re-running the
   * citation would re-run one node of it, and its arcs are declared inside the fragment.
   */
  private checkLoopRefs(node: Record<string, unknown>): void {
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : undefined;
    if (typeof rerun === "string" && this.exits.has(rerun)) {
      this.issue(
        node,
        `feedback.rerun names ${JSON.stringify(rerun)}, a node citing a nodes: fragment, which is not a rerun ` +
          "target (its id stands for the fragment's exit, and re-running that alone would not re-run the " +
          "fragment); name a node of this graph, or declare the arc inside the fragment",
      );
    }
    for (const ref of stringsIn(node).flatMap((text) => placeholdersIn(text))) {
      if (ref.namespace !== "feedback" || ref.problem !== null || !this.exits.has(ref.name)) continue;
      this.issue(
        node,
        `${ref.token} names ${JSON.stringify(ref.name)}, a node citing a nodes: fragment: its feedback arcs are ` +
          "declared, and quoted, inside the fragment; quote the feedback of a node of this graph",
      );
    }
  }

  /** Splices the citing node `using` into `out`; `chain` is the fragment names cited on the way here. */
  splice(using: Record<string, unknown>, chain: readonly string[], out: unknown[]): void {
    if (this.overBudget) {
      out.push(standIn(using));
      return;
    }
    const fragment = this.fragmentFor(using, chain);
    if (fragment === null) out.push(standIn(using));
    else if (fragment.kind === "single") this.spliceNode(using, fragment, [...chain, fragment.name], out);
    else this.spliceNodes(using, fragment, [...chain, fragment.name], out);
  }

  /** A `node:` fragment: its body, bindings filled in, under the citing node's own fields. */
  private spliceNode(
    using: Record<string, unknown>,
    fragment: SingleFragment,
    next: string[],
    out: unknown[],
  ): void {
    const at = `use ${JSON.stringify(fragment.name)}`;
    const { use: _use, with: bound, prompt, ...overrides } = using;
    if (prompt !== undefined) {
      this.issue(
        using,
        `${at}: prompt may not be set beside use: — the fragment's prompt is its shape; change it through a substitution point, or write the node out`,
      );
    }
    const body = this.substitute(using, at, fragment.node, isRecord(bound) ? bound : {}) as Record<
      string,
      unknown
    >;
    const merged = { ...body, ...overrides };
    if (!this.fits(using, fragment.name, out, 1)) {
      out.push(standIn(using));
      return;
    }
    this.record(using, fragment, next.length, {
      overridden: Object.keys(fragment.node).filter((key) => Object.hasOwn(overrides, key)),
      spliced: [],
      grants:
        touchedGrant(fragment.node, body) && !Object.hasOwn(overrides, "allowed_tools")
          ? [{ nodeId: using.id as string, tools: merged.allowed_tools }]
          : [],
    });
    if (merged.use !== undefined) this.splice(merged, next, out);
    else out.push(merged);
  }

  /** A `nodes:` fragment: each node as `USING/INNER`, wired in where the citing node stands. */
  private spliceNodes(
    using: Record<string, unknown>,
    fragment: MultiFragment,
    next: string[],
    out: unknown[],
  ): void {
    const at = `use ${JSON.stringify(fragment.name)}`;
    for (const key of Object.keys(using)) {
      if (!WIRING.includes(key)) {
        this.issue(
          using,
          `${at}: ${key} cannot be set on a node citing a nodes: fragment — it may set only ${WIRING.join(", ")}; give the fragment a substitution point, or use another fragment`,
        );
      }
    }
    if (using.depends_on !== undefined && !Array.isArray(using.depends_on)) {
      // The entry nodes inherit it; anything but a list would silently drop the edge.
      this.issue(using, `${at}: depends_on must be a list of node ids`);
    }
    if (!this.fits(using, fragment.name, out, fragment.nodes.length)) {
      out.push(standIn(using));
      return;
    }
    const prefix = `${using.id as string}/`;
    const declared = new Set(fragment.nodes.map((node) => node.id as string));
    const inner = (name: string): string | undefined => (declared.has(name) ? prefix + name : undefined);
    const renamed = fragment.nodes.map((node) => namespaced(node, prefix, inner));
    const bindings = isRecord(using.with) ? using.with : {};
    const nodes = this.substitute(using, at, renamed, bindings) as Record<string, unknown>[];
    for (const node of nodes) {
      if (!Array.isArray(node.depends_on) || node.depends_on.length === 0) {
        if (Array.isArray(using.depends_on)) node.depends_on = [...using.depends_on];
        else delete node.depends_on;
      }
      if (using.cwd !== undefined) node.cwd = using.cwd;
      if (using.worktree !== undefined) node.worktree = using.worktree;
    }
    this.exits.set(using.id as string, prefix + fragment.exit);
    this.record(using, fragment, next.length, {
      overridden: [],
      spliced: nodes.filter((node) => node.use === undefined).map((node) => node.id as string),
      grants: nodes.flatMap((node, index) =>
        touchedGrant(renamed[index] ?? {}, node)
          ? [{ nodeId: node.id as string, tools: node.allowed_tools }]
          : [],
      ),
    });
    for (const node of nodes) {
      if (node.use !== undefined) this.splice(node, next, out);
      else out.push(node);
    }
  }

  /** Rewrites, in every spliced node, a reference to a multi-node citation into one to its exit. */
  pointAtExits(nodes: readonly unknown[]): unknown[] {
    if (this.exits.size === 0) return [...nodes];
    const exitOf = (id: string): string | undefined => {
      let current = this.exits.get(id);
      for (let hops = 0; current !== undefined && this.exits.has(current) && hops < 16; hops += 1) {
        current = this.exits.get(current);
      }
      return current;
    };
    return nodes.map((node) => {
      if (!isRecord(node)) return node;
      const pointed = renameRefsIn(node, exitOf, ["artifacts"]) as Record<string, unknown>;
      if (Array.isArray(node.depends_on)) {
        pointed.depends_on = node.depends_on.map((parent: unknown) =>
          typeof parent === "string" ? (exitOf(parent) ?? parent) : parent,
        );
      }
      return pointed;
    });
  }

  /** Records a resolved citation, and (once per fragment) its unreferenced substitution points. */
  private record(
    using: Record<string, unknown>,
    fragment: Fragment,
    depth: number,
    what: Pick<FragmentSplice, "overridden" | "spliced" | "grants">,
  ): void {
    const { name: fragmentName, description, location } = fragment;
    const nodeId = using.id as string;
    this.splices.push({ nodeId, fragment: fragmentName, description, location, depth, ...what });
    if (this.splices.some((s) => s.fragment === fragmentName && s !== this.splices.at(-1))) return;
    for (const point of fragment.unreferenced) {
      this.notes.push({
        nodeId,
        reason:
          `use ${JSON.stringify(fragmentName)} (${location}): substitution point ${JSON.stringify(point)} is declared ` +
          "but never referenced in the fragment's body, so every citation must bind a value that goes nowhere " +
          `(drift: the body moved, the declaration did not); remove it from substitutions, or put {{ with.${point} }} ` +
          "where it was meant to go",
      });
    }
  }

  /** The fragment `using` cites with valid bindings, or `null` after reporting why not. */
  private fragmentFor(using: Record<string, unknown>, chain: readonly string[]) {
    const name = using.use;
    if (typeof using.id !== "string" || using.id.trim() === "") {
      this.issue(using, "a node with use: needs an id — the spliced node(s) are named after it");
      return null;
    }
    if (typeof name !== "string") {
      this.issue(using, `use: must be a fragment name (got ${Array.isArray(name) ? "a list" : typeof name})`);
      return null;
    }
    const at = `use ${JSON.stringify(name)}`;
    const problem = fragmentNameProblem(name);
    if (problem !== null) {
      this.issue(using, `${at}: ${problem}`);
      return null;
    }
    const trail = [...chain, name].map((link) => JSON.stringify(link));
    if (chain.includes(name)) {
      const cycle = [...chain.slice(chain.indexOf(name)), name].map((link) => JSON.stringify(link));
      this.issue(
        using,
        `${at}: fragment ${cycle.join(" cites ")} — a citation cycle could never finish splicing; remove one of those use: lines`,
      );
      return null;
    }
    if (chain.length + 1 > MAX_FRAGMENT_DEPTH) {
      this.issue(
        using,
        `${at}: the citation chain ${trail.join(" → ")} is ${trail.length} fragments deep; a fragment may cite fragments at most ${MAX_FRAGMENT_DEPTH} deep — write one level out in full`,
      );
      return null;
    }
    const fragment = this.judge(using, name);
    if (fragment === null) return null;
    if (using.with !== undefined && !isRecord(using.with)) {
      this.issue(using, `${at}: with: must be a mapping of substitution point → value`);
      return null;
    }
    const bindings = isRecord(using.with) ? using.with : {};
    const declared = fragment.substitutions;
    const missing = declared.filter((point) => !Object.hasOwn(bindings, point));
    const extra = Object.keys(bindings).filter((point) => !declared.includes(point));
    for (const point of missing) {
      this.issue(
        using,
        `${at}: with: does not bind ${JSON.stringify(point)}, which ${fragment.location} declares — every substitution point needs a value (bind "" for none)`,
      );
    }
    for (const point of extra) {
      this.issue(
        using,
        `${at}: with: binds ${JSON.stringify(point)}, which ${fragment.location} does not declare (it declares: ${declared.length > 0 ? declared.join(", ") : "nothing"})`,
      );
    }
    return missing.length > 0 || extra.length > 0 ? null : fragment;
  }

  /** The judged fragment `name`; its file's problems are reported once, on the first node citing it. */
  private judge(using: Record<string, unknown>, name: string) {
    let entry = this.judged.get(name);
    const first = entry === undefined;
    if (entry === undefined) {
      entry = { judgement: judgeFragment(name, this.library.get(name)), firstCitedBy: using.id as string };
      this.judged.set(name, entry);
    }
    const { judgement } = entry;
    if (judgement.ok) return judgement.fragment;
    const at = `use ${JSON.stringify(name)}`;
    if (first)
      for (const reason of judgement.reasons) this.issue(using, `${at} (${judgement.location}): ${reason}`);
    else
      this.issue(
        using,
        `${at}: ${judgement.location} cannot be spliced (its problems are listed at node ${JSON.stringify(entry.firstCitedBy)})`,
      );
    return null;
  }

  private substitute(
    using: Record<string, unknown>,
    at: string,
    body: unknown,
    bindings: Record<string, unknown>,
  ): unknown {
    const substituted = substituteWith(body, bindings);
    for (const problem of substituted.problems) this.issue(using, `${at}: ${problem}`);
    return substituted.value;
  }
}

/** True when substitution changed a node's `allowed_tools` (compared as data, never by scanning for `{{`). */
function touchedGrant(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): boolean {
  return JSON.stringify(before.allowed_tools) !== JSON.stringify(after.allowed_tools);
}

/** A fragment node renamed into the citation's namespace: its id, its wiring and its own tokens. */
function namespaced(
  node: Readonly<Record<string, unknown>>,
  prefix: string,
  inner: (name: string) => string | undefined,
): Record<string, unknown> {
  const copy = renameRefsIn(structuredClone(node), inner) as Record<string, unknown>;
  copy.id = prefix + String(node.id);
  if (Array.isArray(node.depends_on)) {
    copy.depends_on = node.depends_on.map((parent: unknown) =>
      typeof parent === "string" ? (inner(parent) ?? parent) : parent,
    );
  }
  if (isRecord(node.feedback) && typeof node.feedback.rerun === "string") {
    copy.feedback = { ...node.feedback, rerun: inner(node.feedback.rerun) ?? node.feedback.rerun };
  }
  return copy;
}

/**
 * What stays in the graph for a citation that could not be spliced: its id and `depends_on`, so the rest
 * of the graph (its dependents, their placeholders) is still judged; it never runs (the graph does not load).
 */
function standIn(using: Record<string, unknown>): Record<string, unknown> {
  const { use: _use, with: _with, ...rest } = using;
  if (typeof using.id !== "string") return rest;
  return {
    id: using.id,
    ...(using.depends_on !== undefined ? { depends_on: using.depends_on } : {}),
    prompt: `(not spliced: use ${JSON.stringify(using.use)} — see the errors above)`,
  };
}
