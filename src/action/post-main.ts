/**
 * The action's post entry point (`runs.post: dist/post.js`); see ./post.ts. Like the main step, the runner's
 * process only launches the clean engine process (`src/proc/clean-process.ts`), which runs the post step with
 * the in-memory environment it was handed: a process the main step left behind cannot read the token from
 * this step's `/proc/<pid>/environ` once the launcher has cleared it (first thing; see `enterCleanProcess`).
 */
import { enterCleanProcess, launcherWarning } from "../run/engine-process.js";

const entered = enterCleanProcess();
if (entered.kind === "launcher") {
  const warning = launcherWarning(entered);
  if (warning !== null) (await import("@actions/core")).warning(warning);
  process.exitCode = await entered.exitCode;
} else {
  const { runPost } = await import("./post.js");
  await runPost(entered.env);
}
