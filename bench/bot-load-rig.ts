/**
 * What `bench/bot-load.mjs` needs from the repository, in one module it bundles: the local GitHub server
 * with App authentication, the payload builders, a ledger to upload, and the bot's command (each replica
 * is a child process running it).
 */
export { SUCCESS_LEDGER } from "../test/ledger/fixtures.js";
export {
  botEnv,
  pullRequestPayload,
  startAppGitHubServer,
  uploadLedger,
  WEBHOOK_SECRET,
  workflowRunPayload,
} from "../test/support/bot-fixtures.js";
