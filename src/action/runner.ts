/** The runner port (`src/pull-request/runner.ts`) as `@actions/core` gives it: the action's one tie to the runner's API. */
import { randomBytes } from "node:crypto";
import * as core from "@actions/core";
import type { Runner } from "../pull-request/runner.js";

/**
 * A line the runner would read as a workflow command: `::name …::` (or the old `##[name]`), leading blanks
 * allowed. The runner splits the log on `\n` and `\r` alike; JavaScript's multi-line `^` matches after both.
 */
const WORKFLOW_COMMAND_LINE = /^\s*(::|##\[)/m;

/**
 * `core.info` writes its text raw, so a line of it that starts `::` is a workflow command; the engine's own
 * lines carry what the pull request controls (a file name with newlines in it, a branch name, a model's
 * words). Such a text is written inside a `::stop-commands::<random token>` window, the same fence child
 * output gets (SPEC §9; GitHub Docs, "Workflow commands for GitHub Actions" → "Stopping and starting
 * workflow commands"): shown as written, parsed as nothing. `notice`, `warning`, `error` and `setFailed`
 * need no fence: `@actions/core` escapes their text (`%0A` for a newline) into one command's data.
 */
function infoFenced(message: string): void {
  if (!WORKFLOW_COMMAND_LINE.test(message)) {
    core.info(message);
    return;
  }
  const token = `eg-${randomBytes(16).toString("hex")}`;
  core.info(`::stop-commands::${token}`);
  core.info(message);
  core.info(`::${token}::`);
}

export const coreRunner: Runner = {
  info: infoFenced,
  notice: (message) => core.notice(message),
  warning: (message) => core.warning(message),
  error: (message) => core.error(message),
  setOutput: (name, value) => core.setOutput(name, value),
  saveState: (name, value) => core.saveState(name, value),
  setFailed: (message) => core.setFailed(message),
  write: (text) => void process.stdout.write(text),
};
