/**
 * The action's post entry point (`runs.post: dist/post.js`); see ./post.ts. Like the main step, the runner's
 * process only launches the clean engine process (`src/proc/clean-process.ts`), which runs the post step with
 * the in-memory environment it was handed: a process the main step left behind cannot read the token from
 * this step's `/proc/<pid>/environ`.
 */
import * as core from "@actions/core";
import { enterCleanProcess } from "../proc/clean-process.js";

const entered = enterCleanProcess({ warn: (message) => core.warning(message) });
if (entered.kind === "launcher") {
  process.exitCode = await entered.exitCode;
} else {
  const { runPost } = await import("./post.js");
  await runPost(entered.env);
}
