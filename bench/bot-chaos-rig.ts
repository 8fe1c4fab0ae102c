/** What `bench/b9-bot-chaos.mjs` needs, in one module it bundles: the chaos scenario (`test/support/bot-chaos.ts`). */
export { percentile, runChaos } from "../test/support/bot-chaos.js";
