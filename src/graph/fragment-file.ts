/**
 * One fragment file, judged on its own (Go ADR 0013, 0027): what it declares and everything wrong with it
 * that does not depend on who cites it. A fragment file is a mapping:
 *
 *   fragment: NAME            required; must equal the file name (the name a `use:` resolves)
 *   description: TEXT         required; says what the spliced node is
 *   substitutions: [a, b]     the points a citing node binds with `with:` (default none)
 *   node: {…}                 a single node's body, or
 *   nodes: [{id: …}, …]       several nodes with the edges among them, plus
 *   exit: ID                  required with `nodes:`: the node whose result the citation stands for
 *
 * The invariant behind the rules: **a fragment never names an id it does not declare itself.** A `node:`
 * declares none, so it may not carry `id`, `depends_on` or `feedback`, nor name a node in an
 * `{{ artifacts.… }}` / `{{ feedback.… }}` token; a `nodes:` list may wire and name only its own ids. Where
 * a node runs (`cwd`, `worktree`) is never a fragment's choice: the citing node's propagates.
 */
import type { FragmentRead } from "./fragment-source.js";
import { refsIn, withTokensIn } from "./fragment-text.js";
import { readGraphText } from "./graph-text.js";
import { isRecord, withoutNulls } from "./plain-data.js";
import { feedbackBodyOf } from "./topology.js";
import { NODE_ID_SEGMENT } from "./validate-edges.js";

/** What a single-node and a multi-node fragment have in common. `location` is where the file was read. */
interface FragmentBase {
  readonly name: string;
  readonly location: string;
  readonly description: string;
  readonly substitutions: readonly string[];
  /** Declared substitution points the body never references (Go: drift smell, a lint advisory). */
  readonly unreferenced: readonly string[];
}

/** A judged fragment file: its node body (`single`), or its nodes and exit (`multi`), as plain data. */
export type Fragment =
  | (FragmentBase & { readonly kind: "single"; readonly node: Readonly<Record<string, unknown>> })
  | (FragmentBase & {
      readonly kind: "multi";
      readonly nodes: readonly Readonly<Record<string, unknown>>[];
      readonly exit: string;
    });

/** A fragment, or every reason its file cannot be spliced (each a sentence about the file). */
export type FragmentJudgement =
  | { readonly ok: true; readonly fragment: Fragment }
  | { readonly ok: false; readonly location: string; readonly reasons: readonly string[] };

const FILE_FIELDS = ["fragment", "description", "substitutions", "node", "nodes", "exit"];
const SUBSTITUTION_NAME = /^[A-Za-z0-9_]+$/;

/**
 * Judges the fragment `name` as `read` found it (`undefined`: never read). Never throws on bad input.
 */
export function judgeFragment(name: string, read: FragmentRead | undefined): FragmentJudgement {
  const location = read?.location ?? `fragments/${name}.yaml`;
  const refuse = (...reasons: string[]): FragmentJudgement => ({ ok: false, location, reasons });
  if (read === undefined || read.kind === "missing") {
    return refuse(
      `no fragment file ${location}: a fragment is looked up there, beside the graph file, and nowhere else`,
    );
  }
  if (read.kind === "unreadable") return refuse(`cannot read ${location}: ${read.reason}`);
  const parsed = readGraphText(read.text, location);
  if (!parsed.ok) return refuse(...parsed.issues.map((issue) => issue.reason));
  const data = withoutNulls(parsed.data);
  if (!isRecord(data))
    return refuse(`${location} must be a mapping with fragment, description and node or nodes`);

  const reasons: string[] = [];
  for (const key of Object.keys(data)) {
    if (!FILE_FIELDS.includes(key)) {
      reasons.push(
        `unknown field ${JSON.stringify(key)} (a fragment file has only ${FILE_FIELDS.join(", ")})`,
      );
    }
  }
  if (data.fragment !== name) {
    reasons.push(
      data.fragment === undefined
        ? `fragment: ${JSON.stringify(name)} is missing — the file must say which fragment it is`
        : `fragment: says ${JSON.stringify(data.fragment)}, but the file is ${name}.yaml — they must agree`,
    );
  }
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (description === "") reasons.push("description: is missing or empty — say what the spliced node does");
  const substitutions = substitutionsOf(data.substitutions, reasons);
  const body = bodyOf(data, reasons);
  let unreferenced: string[] = [];
  if (body !== null) {
    const tokens = withTokensIn(body.kind === "single" ? body.node : body.nodes);
    unreferenced = substitutions.filter((point) => !tokens.names.includes(point));
    for (const token of tokens.malformed) {
      reasons.push(
        `${JSON.stringify(token)} claims the with namespace but is not {{ with.NAME }}, so it could never be ` +
          "substituted and would reach the model as written",
      );
    }
    for (const used of tokens.names) {
      if (!substitutions.includes(used)) {
        reasons.push(`{{ with.${used} }} is used but not declared in substitutions`);
      }
    }
  }
  if (reasons.length > 0 || body === null) return refuse(...reasons);
  return { ok: true, fragment: { name, location, description, substitutions, unreferenced, ...body } };
}

function substitutionsOf(value: unknown, reasons: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    reasons.push("substitutions: must be a list of names");
    return [];
  }
  const names: string[] = [];
  for (const item of value) {
    if (typeof item !== "string" || !SUBSTITUTION_NAME.test(item)) {
      reasons.push(`substitutions: ${JSON.stringify(item)} is not a name (letters, digits and "_")`);
    } else if (names.includes(item)) {
      reasons.push(`substitutions: ${JSON.stringify(item)} is listed more than once`);
    } else {
      names.push(item);
    }
  }
  return names;
}

type Body =
  | { readonly kind: "single"; readonly node: Record<string, unknown> }
  | { readonly kind: "multi"; readonly nodes: Record<string, unknown>[]; readonly exit: string };

function bodyOf(data: Record<string, unknown>, reasons: string[]): Body | null {
  const hasNode = data.node !== undefined;
  const hasNodes = data.nodes !== undefined;
  if (hasNode === hasNodes) {
    reasons.push(
      hasNode
        ? "declares both node: and nodes: — a fragment is one node (node:) or several (nodes: with exit:)"
        : "declares neither node: nor nodes: — there is nothing to splice",
    );
    return null;
  }
  if (hasNode) {
    if (data.exit !== undefined)
      reasons.push("exit: belongs to a nodes: fragment; a single node is its own exit");
    return singleBody(data.node, reasons);
  }
  return multiBody(data.nodes, data.exit, reasons);
}

// Fields a fragment's node may not carry, and why.
const PLACEMENT = "where a node runs is the citing node's choice, which it passes to every spliced node";
const NO_IDS = "a node: fragment declares no ids, so it cannot name one; the citing node sets it";

function singleBody(node: unknown, reasons: string[]): Body | null {
  if (!isRecord(node)) {
    reasons.push("node: must be a mapping (one node's fields)");
    return null;
  }
  const wrong = { id: NO_IDS, depends_on: NO_IDS, feedback: NO_IDS, cwd: PLACEMENT, worktree: PLACEMENT };
  for (const [field, why] of Object.entries(wrong)) {
    if (node[field] !== undefined) reasons.push(`node: may not set ${field} — ${why}`);
  }
  for (const { token } of refsIn(node)) {
    reasons.push(`node: ${token} names a node, and ${NO_IDS}; bind the reference through a substitution`);
  }
  return { kind: "single", node };
}

function multiBody(nodes: unknown, exit: unknown, reasons: string[]): Body | null {
  if (!Array.isArray(nodes) || nodes.length === 0 || !nodes.every(isRecord)) {
    reasons.push("nodes: must be a non-empty list of nodes");
    return null;
  }
  const ids: string[] = [];
  nodes.forEach((node, index) => {
    const id = node.id;
    if (typeof id !== "string" || !NODE_ID_SEGMENT.test(id)) {
      reasons.push(
        `nodes[${index}]: id ${JSON.stringify(id ?? null)} must be one path element (letters, digits, ".", "_", ` +
          '"-"; no "/" — only splicing writes one)',
      );
    } else if (ids.includes(id)) {
      reasons.push(`nodes[${index}]: id ${JSON.stringify(id)} is declared twice`);
    } else {
      ids.push(id);
    }
  });
  const declared = new Set(ids);
  nodes.forEach((node, index) => {
    const at = typeof node.id === "string" ? `node ${JSON.stringify(node.id)}` : `nodes[${index}]`;
    for (const field of ["cwd", "worktree"]) {
      if (node[field] !== undefined) reasons.push(`${at}: may not set ${field} — ${PLACEMENT}`);
    }
    const parents = Array.isArray(node.depends_on) ? node.depends_on : [];
    const rerun = isRecord(node.feedback) ? node.feedback.rerun : undefined;
    for (const named of [...parents, ...(rerun === undefined ? [] : [rerun])]) {
      if (typeof named === "string" && !declared.has(named)) {
        reasons.push(
          `${at}: names ${JSON.stringify(named)}, which this fragment does not declare — a fragment wires only its own nodes`,
        );
      }
    }
    for (const { id, token } of refsIn(node)) {
      if (!declared.has(id)) {
        reasons.push(
          `${at}: ${token} names ${JSON.stringify(id)}, which this fragment does not declare; bind it through a substitution`,
        );
      }
    }
  });
  if (typeof exit !== "string" || !declared.has(exit)) {
    reasons.push(
      exit === undefined
        ? "exit: is missing — a nodes: fragment must name the node its citation stands for (it is never guessed)"
        : `exit: ${JSON.stringify(exit)} is not one of its nodes (${ids.join(", ")})`,
    );
    return null;
  }
  const topology = nodes.map((node) => ({
    id: String(node.id),
    depends_on: Array.isArray(node.depends_on) ? node.depends_on.map(String) : [],
    ...(isRecord(node.feedback) && typeof node.feedback.rerun === "string"
      ? { feedback: { rerun: node.feedback.rerun } }
      : {}),
  }));
  for (const declarer of topology) {
    if (declarer.id !== exit && feedbackBodyOf(topology, declarer.id).includes(exit)) {
      reasons.push(
        `exit: ${JSON.stringify(exit)} lies inside the feedback arc of ${JSON.stringify(declarer.id)}: a node ` +
          "downstream of the citation would depend on the middle of a loop; exit at the arc's declarer or after it",
      );
    }
  }
  return { kind: "multi", nodes, exit };
}
