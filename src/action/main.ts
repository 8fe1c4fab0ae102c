/** The action's entry point (`runs.main: dist/index.js`). */
import { runAction } from "./run-action.js";

// The runner cancels a step with SIGINT, then SIGTERM 7.5 s later: stop the nodes at once so the ledger can
// be finished and the check run completed `cancelled` before the runner kills the process.
const controller = new AbortController();
for (const name of ["SIGINT", "SIGTERM"] as const) {
  process.once(name, () => {
    process.stdout.write(`evidence-gate: ${name} received — stopping the running nodes\n`);
    controller.abort();
  });
}

await runAction(process.env, controller.signal);
