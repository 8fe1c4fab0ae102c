// `npm run model-server -- SCRIPT.json`: bundles scripts/model-server.ts (it reuses the test support code:
// the scripted model server) with esbuild into a temp file and runs it. See scripts/model-server.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const dir = mkdtempSync(join(tmpdir(), "evidence-gate-model-server-"));
try {
  const outfile = join(dir, "model-server.mjs");
  await build({
    entryPoints: ["scripts/model-server.ts"],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  const result = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: "inherit" });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
