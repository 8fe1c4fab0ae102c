// Rebuilds dist/ into a temp folder and fails when the committed dist/ differs (CONVENTIONS "Stack").
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fresh = mkdtempSync(join(tmpdir(), "eg-dist-"));
try {
  execFileSync(process.execPath, ["scripts/build.mjs", "--outdir", fresh], { stdio: "inherit" });
  const names = new Set([...readdirSync("dist"), ...readdirSync(fresh)]);
  const stale = [];
  for (const name of names) {
    let committed = null;
    try {
      committed = readFileSync(join("dist", name));
    } catch {}
    let rebuilt = null;
    try {
      rebuilt = readFileSync(join(fresh, name));
    } catch {}
    if (committed === null || rebuilt === null || !committed.equals(rebuilt)) stale.push(name);
  }
  if (stale.length > 0) {
    console.error(
      `dist/ is stale: ${stale.join(", ")} differ from a fresh build. Run \`npm run build\` and commit dist/.`,
    );
    process.exit(1);
  }
  console.log("dist/ matches a fresh build.");
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
