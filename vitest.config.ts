import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { testTiers } from "./test/tiers.js";

// The three tiers (test/tiers.ts says the rule; test/architecture/test-tiers.test.ts keeps it honest):
// `npm test` runs `fast`, `npm run test:e2e` rebuilds dist/ and runs `e2e`, `npm run test:host` runs `host`
// (as root). `npx vitest run FILE` runs FILE in whichever tier holds it.
const tiers = testTiers(fileURLToPath(new URL(".", import.meta.url)));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real CLIs and real builds; two cores here, so keep parallelism modest.
    maxWorkers: 2,
    // One module registry per worker, not per file: the suite's files import the same engine modules, and
    // re-importing them for each of ~200 files cost about a minute of the CI's wall time. Tests keep no
    // state in modules; what they set in process.env they restore.
    isolate: false,
    projects: (["fast", "e2e", "host"] as const).map((name) => ({
      extends: true as const,
      test: { name, include: [...tiers[name]] },
    })),
  },
});
