/**
 * The run service's process boundary on the runner (issue 12; ADR 0009): the action's entry points start in
 * the runner's process, which only launches the clean engine process and waits for it. The mechanism is the
 * exec seam's (`src/proc/clean-process.ts`); this module is how an entry point reaches it without importing
 * `src/proc` (docs/architecture.md). It imports nothing else, so the launcher clears its own environment
 * before the rest of the bundle is evaluated.
 */
export { enterCleanProcess, launcherWarning } from "../proc/clean-process.js";
