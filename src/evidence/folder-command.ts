/**
 * A suggested command that runs in another folder than the one it is run from: `(cd <folder> && <command>)`,
 * the folder written as one shell word, and read back into its folder and command.
 */

/** A path as one shell word: plain when it is safe, else single-quoted; never read as an option. */
function shellWord(path: string): string {
  if (/^[A-Za-z0-9_@%+=:,.][A-Za-z0-9_@%+=:,./-]*$/.test(path)) return path;
  const word = path.startsWith("-") ? `./${path}` : path;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `command` run in `folder` (`/`-separated, relative to where the result runs). */
export function commandInFolder(folder: string, command: string): string {
  return `(cd ${shellWord(folder)} && ${command})`;
}

/** Reads {@link commandInFolder}'s form back: the folder and the command; `null` for any other text. */
export function readCommandInFolder(
  suggestion: string,
): { readonly folder: string; readonly command: string } | null {
  const match = /^\(cd ('(?:[^']|'\\'')*'|[^\s']+) && ([\s\S]+)\)$/.exec(suggestion);
  if (match === null) return null;
  const word = match[1]!;
  const folder = word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word;
  return { folder: folder.startsWith("./") ? folder.slice(2) : folder, command: match[2]! };
}
