/** The runner port (`src/run/runner.ts`) as `@actions/core` gives it: the action's one tie to the runner's API. */
import * as core from "@actions/core";
import type { Runner } from "../run/runner.js";

export const coreRunner: Runner = {
  info: (message) => core.info(message),
  notice: (message) => core.notice(message),
  warning: (message) => core.warning(message),
  error: (message) => core.error(message),
  setOutput: (name, value) => core.setOutput(name, value),
  saveState: (name, value) => core.saveState(name, value),
  setFailed: (message) => core.setFailed(message),
  write: (text) => void process.stdout.write(text),
};
