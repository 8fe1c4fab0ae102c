/**
 * What bench/b5-api-writes.mjs needs from the repository, in one module it bundles: the local GitHub server
 * (every request validated against GitHub's OpenAPI description) and the harness that runs the bundled
 * action (`node dist/index.js`) as the runner does.
 */
export { cleanupActionRun, runActionStep } from "../test/support/action-harness.js";
export { startGitHubServer } from "../test/support/github-server/index.js";
export { makeTempRepo } from "../test/support/temp-repo.js";
