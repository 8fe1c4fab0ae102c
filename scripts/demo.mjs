// `npm run demo`: bundles scripts/demo.ts (it reuses the test support code: the scripted model server and
// the sample repository) with esbuild into a temp file and runs it. See scripts/demo.ts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const dir = mkdtempSync(join(tmpdir(), "evidence-gate-demo-"));
try {
  const outfile = join(dir, "demo.mjs");
  await build({
    entryPoints: ["scripts/demo.ts"],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  const result = spawnSync(process.execPath, [outfile, process.cwd()], { stdio: "inherit" });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
