// The test harness for benches that run the bundled action (bench/b5-rig.ts: the local GitHub server, the
// action harness, temp repositories), bundled with esbuild two folders under the repository
// (`.bench-cache/<tmp>/`, git-ignored) so it resolves node_modules (GitHub's OpenAPI description) and the
// harness finds dist/ (`../..`) from where it is. `vitest` (the harness registers cleanups with it) stays
// external.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { ROOT } from "./cli.mjs";

/**
 * Bundles `bench/<entry>` (default `b5-rig.ts`) and imports it. Resolves with the module's exports plus
 * `dispose()`, which removes the bundle.
 */
export async function loadRig(entry = "b5-rig.ts") {
  mkdirSync(join(ROOT, ".bench-cache"), { recursive: true });
  const work = mkdtempSync(join(ROOT, ".bench-cache", "rig-"));
  await build({
    entryPoints: [join(ROOT, "bench", entry)],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile: join(work, "rig.mjs"),
    external: ["vitest"],
    logLevel: "warning",
    banner: {
      js: "import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);",
    },
  });
  const rig = await import(pathToFileURL(join(work, "rig.mjs")).href);
  return { ...rig, dispose: () => rmSync(work, { recursive: true, force: true }) };
}
