/**
 * What bench/b7-cli-install.mjs needs from the engine, in one module it bundles: the action's model-CLI
 * install (src/run/install-cli.ts) as the action calls it, and claude's package (src/runtime/claude-runtime.ts).
 */
import { CLAUDE_RUNTIME } from "../src/runtime/claude-runtime.js";

export { ensureCli } from "../src/run/install-cli.js";

/** `claude` from `@anthropic-ai/claude-code`, as the action installs it. */
export const CLAUDE_CLI = CLAUDE_RUNTIME.cliPackage;
