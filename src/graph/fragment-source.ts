/**
 * Where fragment files come from (research/oh-my-graph.md §2.9; Go ADR 0013, 0027, 0029): a node that
 * says `use: NAME` is spliced from the fragment file `fragments/NAME.yaml` beside its graph file, and
 * from nowhere else — no search path, no shipped tier. The loader reads fragments through a
 * {@link FragmentSource}, so the CLI reads them from disk beside the graph file ({@link fragmentsBeside})
 * and the action can read the same path from the base ref through the API.
 *
 * Splicing itself is synchronous (`resolve-fragments.ts`); {@link gatherFragments} reads, up front, every
 * file a graph can reach within the citation depth bound, into a {@link FragmentLibrary}.
 */
import { lstat, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readGraphText } from "./graph-text.js";
import { isRecord, withoutNulls } from "./plain-data.js";

/**
 * One fragment file looked up by name. `location` is where it was looked for, as a user would name it
 * (`graphs/fragments/e2e-verify.yaml`, or `base ref main: .github/fragments/e2e-verify.yaml`), for
 * messages. `found.text` is the file's text (YAML or JSON).
 */
export type FragmentRead =
  | { readonly kind: "found"; readonly location: string; readonly text: string }
  | { readonly kind: "missing"; readonly location: string }
  | { readonly kind: "unreadable"; readonly location: string; readonly reason: string };

/**
 * Reads a named fragment's text. `name` has already passed {@link fragmentNameProblem}; an implementation
 * reports a missing or unreadable file as a {@link FragmentRead}, and rejects only on its own internal
 * failure.
 */
export interface FragmentSource {
  read(name: string): Promise<FragmentRead>;
}

/** Every fragment file a graph can reach, read: fragment name → what reading it gave. */
export type FragmentLibrary = ReadonlyMap<string, FragmentRead>;

/**
 * The longest fragment citation chain (Go ADR 0029): a graph cites a fragment (1), which cites a fragment
 * (2), which cites a fragment (3); a fourth is a load error naming the chain.
 */
export const MAX_FRAGMENT_DEPTH = 3;

const BARE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Why `name` cannot name a fragment file, or `null` when it can: one bare file name — letters, digits,
 * `.`, `_`, `-`, starting with a letter or digit, with no `..` — so no name can walk out of `fragments/`.
 */
export function fragmentNameProblem(name: string): string | null {
  if (BARE_NAME.test(name) && !name.includes("..")) return null;
  return (
    `${JSON.stringify(name)} is not a fragment name: write a bare file name (letters, digits, ".", "_" or "-", ` +
    'starting with a letter or digit, no ".." and no "/"), which is looked up as fragments/NAME.yaml beside ' +
    "the graph file and nowhere else"
  );
}

/**
 * The disk source of the graph file at `graphPath`: `NAME` is read from `<its folder>/fragments/NAME.yaml`.
 * `shownGraphPath` is the graph path as the user gave it (relative, say); locations in messages are
 * derived from it. A name that is not bare is refused without touching the disk; a fragment file that is a
 * symlink, or that resolves outside the graph's `fragments/` folder, is refused (`unreadable`).
 */
export function fragmentsBeside(graphPath: string, shownGraphPath: string = graphPath): FragmentSource {
  const folder = join(dirname(graphPath), "fragments");
  const shownFolder = join(dirname(shownGraphPath), "fragments");
  return {
    async read(name: string): Promise<FragmentRead> {
      const location = join(shownFolder, `${name}.yaml`);
      const problem = fragmentNameProblem(name);
      if (problem !== null) return { kind: "unreadable", location, reason: problem };
      const path = join(folder, `${name}.yaml`);
      try {
        const entry = await lstat(path);
        if (entry.isSymbolicLink()) {
          return {
            kind: "unreadable",
            location,
            reason:
              "it is a symlink, and a fragment is read only from a regular file in fragments/ (a link could reach a file outside it): put the fragment's text in the file itself",
          };
        }
        if (entry.isDirectory()) {
          return { kind: "unreadable", location, reason: "it is a directory, not a fragment file" };
        }
        // fragments/ itself may not be a link elsewhere either: the file must resolve inside the graph's folder.
        if (dirname(await realpath(path)) !== join(await realpath(dirname(graphPath)), "fragments")) {
          return {
            kind: "unreadable",
            location,
            reason:
              "it resolves outside the graph's fragments/ folder (is fragments/ a symlink?): make fragments/ a real folder beside the graph",
          };
        }
        return { kind: "found", location, text: await readFile(path, "utf8") };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing", location };
        return {
          kind: "unreadable",
          location,
          reason: error instanceof Error ? error.message : String(error),
        };
      }
    },
  };
}

/**
 * The `use:` names written in `nodes` (a graph's `nodes` list, or a fragment's `node` / `nodes`), in
 * order, keeping only well-formed names: a bad name is reported by the splicer, never read.
 */
export function citedNames(nodes: unknown): string[] {
  const list = Array.isArray(nodes) ? nodes : [nodes];
  return list.flatMap((node: unknown) =>
    isRecord(node) && typeof node.use === "string" && fragmentNameProblem(node.use) === null
      ? [node.use]
      : [],
  );
}

/**
 * Reads, through `source`, every fragment graph data `data` can reach: the names its nodes cite, then the
 * names those files cite, breadth first, each name once, down to {@link MAX_FRAGMENT_DEPTH}. A name first
 * cited deeper than that is not read (the splicer refuses the chain without it). Files that do not parse
 * are kept as read; the splicer reports them.
 */
export async function gatherFragments(data: unknown, source: FragmentSource): Promise<FragmentLibrary> {
  const library = new Map<string, FragmentRead>();
  let level = isRecord(data) ? citedNames(data.nodes) : [];
  for (let depth = 1; depth <= MAX_FRAGMENT_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const name of new Set(level)) {
      if (library.has(name)) continue;
      const read = await source.read(name);
      library.set(name, read);
      if (read.kind !== "found") continue;
      const parsed = readGraphText(read.text, read.location);
      const fragment = parsed.ok ? withoutNulls(parsed.data) : null;
      if (isRecord(fragment)) next.push(...citedNames(fragment.node ?? fragment.nodes));
    }
    level = next;
  }
  return library;
}
