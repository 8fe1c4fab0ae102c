/**
 * A resumed leg continues exactly the files the latest leg left (`state.json` `leg_end_tree`): an edit made
 * while the run waited (a neutered test, say) must not ride along under an approval, and nodes' changes
 * that went missing must not be reported as verified. A fresh checkout of the starting commit (the
 * action's resume job) gets the run's `patch.diff` applied first.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { evidenceTree } from "../evidence/evidence-tree.js";
import { applyPatch } from "../evidence/patch.js";
import type { RunGitContext } from "./run-frame.js";
import type { RunState } from "./run-state.js";

/**
 * Makes sure the working tree holds the files the latest leg left. Any difference other than a fresh
 * checkout of the starting commit (restored from `<runDir>/patch.diff`) is refused.
 *
 * @returns `null` when the files are as the run left them, else the usage error (nothing else was run).
 * @throws git errors reading the working tree (internal errors).
 */
export async function restoreLegEndFiles(
  state: RunState,
  runDir: string,
  gitContext: Pick<RunGitContext, "baseEnv" | "knownSecrets">,
): Promise<string | null> {
  const expected = state.leg_end_tree;
  // A crashed leg recorded no end: its files cannot be checked, and `--retry-failed` re-runs what it lost.
  if (expected === undefined || expected === null) return null;
  const now = await evidenceTree(state.repo_dir, gitContext);
  if (now === expected) return null;
  const patch = join(runDir, "patch.diff");
  if (now === state.starting_commit.tree && existsSync(patch)) {
    try {
      await applyPatch(state.repo_dir, patch, gitContext);
    } catch (error) {
      return `the nodes' changes from the earlier leg (${patch}) do not apply to ${state.repo_dir}: ${error instanceof Error ? error.message : String(error)}. Nothing was run.`;
    }
    if ((await evidenceTree(state.repo_dir, gitContext)) === expected) return null;
    return `after applying ${patch}, the files in ${state.repo_dir} are still not the ones the run left (tree ${expected.slice(0, 12)}). Nothing else was run; restore a clean checkout of ${state.starting_commit.sha.slice(0, 12)} before resuming again.`;
  }
  return `the files in ${state.repo_dir} are not the ones run ${state.run_id} left when it paused (tree ${now.slice(0, 12)}, expected ${expected.slice(0, 12)}): files were edited while it waited, or the nodes' changes are missing. A resumed leg continues exactly the files the approval and the earlier verdicts were about: undo the edits (or put the nodes' changes back: \`git apply ${patch}\` on a clean checkout of ${state.starting_commit.sha.slice(0, 12)}), or start a new run. Nothing was run.`;
}
