/**
 * The action's entry point (`runs.main: dist/index.js`). The runner's process only launches the clean engine
 * process (`src/run/engine-process.ts`: the same script re-executed without the secret inputs, tokens and
 * file-command paths in its environment, which arrive over a pipe) and waits for it; the action runs there,
 * with the in-memory environment it was handed. Only the launcher module is imported statically: the
 * launcher clears its own `/proc/<pid>/environ` before anything else of the bundle is evaluated.
 */
import { enterCleanProcess, launcherWarning } from "../run/engine-process.js";

const entered = enterCleanProcess();
if (entered.kind === "launcher") {
  const warning = launcherWarning(entered);
  if (warning !== null) (await import("@actions/core")).warning(warning);
  process.exitCode = await entered.exitCode;
} else {
  const core = await import("@actions/core");
  const { SAVED_STATE } = await import("../pull-request/saved-state.js");
  // The runner cancels a step with SIGINT, then SIGTERM 7.5 s later (the launcher forwards both): stop the
  // nodes at once so the ledger can be finished and the check run completed `cancelled` before the runner
  // kills the process.
  const controller = new AbortController();
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.once(name, () => {
      process.stdout.write(`evidence-gate: ${name} received — stopping the running nodes\n`);
      // If the runner kills the step before the check run is completed, the post step completes it `cancelled`.
      try {
        core.saveState(SAVED_STATE.cancelRequested, "true");
      } catch (error) {
        core.warning(
          `could not save the cancellation for the post step: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      controller.abort();
    });
  }
  const { runAction } = await import("./run-action.js");
  await runAction(entered.env, controller.signal);
}
