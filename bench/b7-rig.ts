/**
 * What bench/b7-cli-install.mjs needs from the engine, in one module it bundles: the action's model-CLI
 * install (src/run/install-cli.ts) as the action calls it.
 */
export { CLAUDE_CLI, ensureCli } from "../src/run/install-cli.js";
