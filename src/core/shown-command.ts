/**
 * A shell command as a one-line display shows it. A multi-line verify command (a workflow's
 * `verify-cmd: |` block) runs as the lines it has, but every one-line surface — a ledger cell, a progress
 * line, a check-run title — flattens newlines to spaces, so `npm ci` + `npm test` read as `npm ci npm test`,
 * one command with an argument. Here each line break is shown as ` ⏎ `; blank lines and the lines'
 * surrounding spaces are dropped. For display only: what runs, what prompts quote and what the run
 * directory records are the command as given.
 */

/** The line-break mark {@link shownCommand} puts between a command's lines. */
export const LINE_BREAK_MARK = " ⏎ ";

/** `command` on one line: `npm ci ⏎ npm test` for `"npm ci\nnpm test\n"`; a one-line command as given. */
export function shownCommand(command: string): string {
  if (!/[\r\n]/.test(command)) return command;
  return command
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(LINE_BREAK_MARK);
}
