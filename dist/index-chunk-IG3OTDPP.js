import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);

// src/pull-request/saved-state.ts
var SAVED_STATE = {
  /** The check run the main step created (saved at once after creating it, SPEC §6). */
  checkRunId: "check-run-id",
  /** The run id, which the check run's `external_id` carries while this run owns it. */
  runId: "run-id",
  /** `"true"` once the main step completed the check run itself: the post step has nothing to do. */
  checkRunCompleted: "check-run-completed",
  /** `"true"` once the main step received SIGINT/SIGTERM (the runner cancelling the step). */
  cancelRequested: "cancel-requested",
  /**
   * The separate user's fresh home of this run (`proc/run-home.ts`), until the main step removed it: the post
   * step removes what is still saved here (a cancelled or killed main step). `""` once removed.
   */
  prUserHome: "pr-user-home",
  /**
   * The snapshot of the checkout's `.git` taken before PR code ran (`proc/checkout-git.ts`): the post step
   * puts the checkout's git directories back from it once more, then removes it.
   */
  checkoutGit: "checkout-git"
};

export {
  SAVED_STATE
};
