import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real CLIs and real builds; two cores here, so keep parallelism modest.
    maxWorkers: 2,
    // One module registry per worker, not per file: the suite's files import the same engine modules, and
    // re-importing them for each of ~200 files cost about a minute of the CI's wall time. Tests keep no
    // state in modules; what they set in process.env they restore.
    isolate: false,
  },
});
