// Bundles the action and the CLI into dist/ with esbuild (one bundler, CONVENTIONS "Stack").
// dist/ is committed; CI rebuilds it and fails when the committed copy differs (scripts/check-dist.mjs).
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const outdir = process.argv.includes("--outdir")
  ? process.argv[process.argv.indexOf("--outdir") + 1]
  : "dist";

const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);",
  },
};

await build({ ...shared, entryPoints: { index: "src/action/main.ts" }, outdir });
// The post step (action.yml `runs.post`): completes a check run the main step left in progress.
await build({ ...shared, entryPoints: { post: "src/action/post-main.ts" }, outdir });
await build({
  ...shared,
  entryPoints: { cli: "src/cli/main.ts" },
  outdir,
  banner: { js: `#!/usr/bin/env node\n${shared.banner.js}` },
});
// The CLI is the package's `bin`: executable, so `npx evidence-gate` runs it (git records the mode too).
chmodSync(join(outdir, "cli.js"), 0o755);
