/**
 * The plain-text phrases the conclusion's titles and reasons share (SPEC §6): node counts, quoted id lists,
 * and the sentence for a verification that is not on the posted commit.
 */

/** The `success`-blocking phrase SPEC §6 gives for evidence on a tree that is not the posted commit's. */
export const PATCH_NOT_ON_COMMIT = "the evidence is for a patch that is not on this commit";

/** `1 node`, `3 nodes`. */
export function countNodes(n: number): string {
  return `${n} ${n === 1 ? "node" : "nodes"}`;
}

/** `"a", "b"`: each id in double quotes, comma-separated. */
export function quoteList(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(", ");
}
