// One esbuild call for the scripts and benches that run TypeScript from this repository outside the test
// runner (scripts/demo.mjs, scripts/model-server.mjs, bench/*.mjs): `entry` is bundled for Node 20 as an ES
// module into `outfile`. The product's own bundles (dist/) are scripts/build.mjs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

/** Bundles `entry` (a .ts path from the repository root) into `outfile`. */
export async function bundleScript(entry, outfile) {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
}

/**
 * Bundles `entry` into a temp folder and runs it with `args`, stdio inherited; sets the exit code to the
 * child's and removes the folder.
 */
export async function runBundled(entry, args) {
  const dir = mkdtempSync(join(tmpdir(), "evidence-gate-script-"));
  try {
    const outfile = join(dir, "script.mjs");
    await bundleScript(entry, outfile);
    const result = spawnSync(process.execPath, [outfile, ...args], { stdio: "inherit" });
    process.exitCode = result.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
