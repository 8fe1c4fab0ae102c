/**
 * Node ids as file names (SPEC §3: "wherever an id becomes a file name, `/` is written `~`").
 *
 * Hand-written ids are one safe path element (`^[A-Za-z0-9][A-Za-z0-9._-]*$`, enforced by validation);
 * ids minted by fragment splicing (`USING/INNER`) may contain `/`, which would otherwise open a
 * sub-directory. `~` cannot appear in a valid id, so the mapping is reversible and collision-free.
 */

/**
 * The file-name stem for a node id: every `/` becomes `~` (`"lint/fix"` → `"lint~fix"`); callers add
 * their own suffix (`.out`). The id is assumed validated; no other character is changed.
 */
export function nodeFileName(id: string): string {
  return id.replaceAll("/", "~");
}
