// Bundles the action and the CLI into dist/ with esbuild (one bundler, CONVENTIONS "Stack").
// dist/ is committed; CI rebuilds it and fails when the committed copy differs (scripts/check-dist.mjs).
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs";
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

// The action's entry is split at its dynamic imports (issue 16, B2): the runner's process only launches the
// clean engine process, so it loads the small launcher chunk, not the whole engine; the engine process loads
// the rest. Chunks sit flat beside index.js (scripts/check-dist.mjs compares files by name).
// The CLI is split the same way, at its per-command dynamic imports (src/cli/dispatch.ts; issue 24 item 5):
// `evidence-gate --version` loads the small cli.js alone, and each command only its own chunks.
// A rebuild leaves no chunk of an earlier build behind (their names carry a content hash).
if (existsSync(outdir))
  for (const name of readdirSync(outdir))
    if (/^(?:index|cli)-.*\.js$/.test(name)) rmSync(join(outdir, name), { force: true });
await build({
  ...shared,
  entryPoints: { index: "src/action/main.ts" },
  outdir,
  splitting: true,
  chunkNames: "index-[name]-[hash]",
});
// The post step (action.yml `runs.post`): completes a check run the main step left in progress.
await build({ ...shared, entryPoints: { post: "src/action/post-main.ts" }, outdir });
await build({
  ...shared,
  entryPoints: { cli: "src/cli/main.ts" },
  outdir,
  splitting: true,
  chunkNames: "cli-[name]-[hash]",
  banner: { js: `#!/usr/bin/env node\n${shared.banner.js}` },
});
// The CLI is the package's `bin`: executable, so `npx evidence-gate` runs it (git records the mode too).
chmodSync(join(outdir, "cli.js"), 0o755);
