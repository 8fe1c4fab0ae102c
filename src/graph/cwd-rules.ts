/**
 * `lint`'s `cwd` errors (SPEC §3; issue 17): a `cwd` or `success_check.verify.cwd` that cannot lie inside
 * the run's working directory — absolute, or climbing out of it with `..` (verify.cwd is relative to the
 * node's cwd, so the two are joined first). The run fails such a node with "… is outside the repository"
 * (when the working directory is the repository root, the default) only once the node is reached; lint
 * reports it as an error before anything is paid for. A field holding a placeholder is judged only when
 * the run fills it in.
 *
 * The rule reads the graph file's data as written, not a loaded graph, so it judges every node whose `cwd`
 * fields are strings however broken the rest of the file is (an unknown field, a node without an id, a
 * bad duration, an unknown placeholder): `lint` reports every class of problem in one pass.
 */
import { posix, win32 } from "node:path";
import { type GraphIssue, nodeIssue } from "./issue.js";

/** What the rule reads of one node: where it sits in `nodes`, its id, and its two directory fields. */
export interface PlacedNode {
  /** Its index in the file's `nodes` list. */
  readonly index: number;
  /** Its id, `""` when it has none (the issue then names `nodes[INDEX]`). */
  readonly id: string;
  readonly gate: boolean;
  /** `cwd`, or `null` when absent or empty (the working directory). */
  readonly cwd: string | null;
  /** `success_check.verify.cwd`, or `null` when absent or empty (the node's cwd). */
  readonly verifyCwd: string | null;
}

/**
 * The {@link PlacedNode}s of a graph file's data (the parsed YAML / JSON, `null` values removed): every
 * mapping in its `nodes` list, each field read only when it has the type the schema wants. Anything else
 * — no `nodes` list, a list item that is not a mapping — yields nothing (its shape error is the loader's).
 */
export function placedNodesOf(data: unknown): PlacedNode[] {
  const nodes = isRecord(data) ? data.nodes : undefined;
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((node: unknown, index): PlacedNode[] => {
    if (!isRecord(node)) return [];
    const check = isRecord(node.success_check) ? node.success_check : {};
    const verify = isRecord(check.verify) ? check.verify : {};
    return [
      {
        index,
        id: typeof node.id === "string" ? node.id : "",
        gate: node.type === "gate",
        cwd: nonEmptyText(node.cwd),
        verifyCwd: nonEmptyText(verify.cwd),
      },
    ];
  });
}

/** Every `cwd` error of `nodes`, node by node; a gate spawns nothing, so it has none. */
export function cwdIssues(nodes: readonly PlacedNode[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  for (const node of nodes) {
    if (node.gate) continue;
    const report = (reason: string): void => {
      issues.push(nodeIssue(node, node.index, reason));
    };
    const { cwd, verifyCwd } = node;
    const cwdTemplated = cwd?.includes("{{") === true;
    let cwdOutside = false;
    if (cwd !== null && !cwdTemplated) {
      const problem = placementProblem("cwd", cwd, cwd);
      if (problem !== null) {
        report(problem);
        cwdOutside = true;
      }
    }
    if (verifyCwd === null || verifyCwd.includes("{{")) continue;
    // verify.cwd is relative to the node's cwd: judged alone when absolute, else joined to a known cwd.
    const absolute = isAbsolutePath(verifyCwd);
    if (!absolute && (cwdTemplated || cwdOutside)) continue;
    const base = absolute || cwd === null ? null : cwd;
    const problem = placementProblem(
      "success_check.verify.cwd",
      verifyCwd,
      base === null ? verifyCwd : posix.join(base, verifyCwd),
      base,
    );
    if (problem !== null) report(problem);
  }
  return issues;
}

function isAbsolutePath(path: string): boolean {
  return posix.isAbsolute(path) || win32.isAbsolute(path);
}

/**
 * Why `written` (resolving to `joined` from the working directory, through the node's cwd `base` when
 * given) is refused; `null` when it is fine.
 */
function placementProblem(
  field: string,
  written: string,
  joined: string,
  base: string | null = null,
): string | null {
  const refused = 'the run fails the node with "… is outside the repository"';
  if (isAbsolutePath(written)) {
    return (
      `${field} ${JSON.stringify(written)} is an absolute path; write it relative to the run's working ` +
      `directory — a node works inside the repository (${refused} otherwise), and an absolute path ties ` +
      "the graph to one machine's folders"
    );
  }
  const normal = posix.normalize(joined);
  if (normal !== ".." && !normal.startsWith("../")) return null;
  return (
    `${field} ${JSON.stringify(written)} climbs out of the run's working directory ` +
    `(${base === null ? "" : `joined to the node's cwd ${JSON.stringify(base)}, `}it resolves to ` +
    `${JSON.stringify(normal)}) — a node works inside the repository, and ${refused}; name a folder ` +
    "inside the working directory"
  );
}

function nonEmptyText(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
