/**
 * Where a `worktree:` node runs, and what its row says about it (docs/graph-format.md "agent and
 * worktree"): the settlement asks {@link directoriesOf} before interpolating the node's directories, and
 * adds {@link withWorktree}'s field to every row of the node.
 */
import type { LedgerRow } from "../core/ledger-row.js";
import type { Graph, GraphNode } from "../graph/graph.js";
import type { NodeDirectories } from "./node-fields.js";
import type { RunStateStore } from "./run-state-store.js";
import type { AcquiredWorktree, RunWorktrees } from "./run-worktrees.js";

/**
 * What these read of the settlement's context (`SettlementContext` of `node-settlement.ts` has these fields;
 * named here so this module does not import the settlement that calls it).
 */
export interface NodeWorktreeContext {
  readonly graph: Graph;
  readonly store: RunStateStore;
  readonly dirs: NodeDirectories;
  /** The leg's managed worktrees; absent when no node declares `worktree`. */
  readonly worktrees?: Pick<RunWorktrees, "acquire" | "branchOf">;
}

/**
 * Where `node` runs: the run's directories, or — for a `worktree` node — its managed checkout, which is
 * then both its repository (what "outside the repository" means for it) and its directory. Made the first
 * time a node of the leg names it. A worktree added anew from the starting commit while another node of the
 * same worktree passed in an earlier leg means that leg's branch is gone (a fresh checkout of the
 * repository): the node would not see those changes, so it fails saying so instead.
 */
export async function directoriesOf(
  ctx: NodeWorktreeContext,
  node: GraphNode,
): Promise<
  { readonly ok: true; readonly dirs: NodeDirectories } | { readonly ok: false; readonly detail: string }
> {
  if (node.worktree === null) return { ok: true, dirs: ctx.dirs };
  if (ctx.worktrees === undefined)
    throw new Error(`Internal error: node "${node.id}" has a worktree but the leg has none`);
  let tree: AcquiredWorktree;
  try {
    tree = await ctx.worktrees.acquire(node.worktree);
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
  if (tree.origin === "created") {
    const passed = ctx.graph.nodes
      .filter(
        (n) => n.worktree === node.worktree && n.id !== node.id && ctx.store.node(n.id)?.status === "passed",
      )
      .map((n) => `"${n.id}"`);
    if (passed.length > 0)
      return {
        ok: false,
        detail: `worktree ${JSON.stringify(node.worktree)}: its branch ${tree.branch} is gone (this checkout of the repository is not the one the earlier leg ran in), so the changes of ${passed.join(", ")}, passed in that leg, are not in the new worktree; run the graph again, or resume where the branch exists`,
      };
  }
  return { ok: true, dirs: { repoDir: tree.path, workDir: tree.path } };
}

/** The row with the worktree its node ran in, when it has one (`LedgerRow.worktree`). */
export function withWorktree(ctx: NodeWorktreeContext, node: GraphNode, row: LedgerRow): LedgerRow {
  if (node.worktree === null || ctx.worktrees === undefined) return row;
  return { ...row, worktree: { name: node.worktree, branch: ctx.worktrees.branchOf(node.worktree) } };
}
