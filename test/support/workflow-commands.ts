/**
 * Reading a step's log as the GitHub runner reads it (a pure helper; no process, no `dist/`, so fast-tier
 * tests may import it — test/tiers.ts).
 */

/**
 * The workflow commands the runner would process in `stdout`: lines starting `::` once leading blanks are
 * trimmed (the runner's `ActionCommand.TryParseV2` trims them), lines split at `\n`, `\r\n` and a lone `\r`
 * alike (it reads the log with `ReadLine`), except those inside a `::stop-commands::TOKEN` … `::TOKEN::`
 * window (GitHub Docs, "Stopping and starting workflow commands").
 */
export function activeWorkflowCommands(stdout: string): string[] {
  const active: string[] = [];
  let stopToken: string | null = null;
  for (const raw of stdout.split(/\r\n|\r|\n/)) {
    const line = raw.trimStart();
    if (stopToken !== null) {
      if (line === `::${stopToken}::`) stopToken = null;
      continue;
    }
    const stop = /^::stop-commands::(.+)$/.exec(line);
    if (stop !== null) {
      stopToken = stop[1]!;
      continue;
    }
    if (line.startsWith("::")) active.push(line);
  }
  return active;
}
