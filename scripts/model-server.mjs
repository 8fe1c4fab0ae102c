// `npm run model-server -- SCRIPT.json`: bundles scripts/model-server.ts (it reuses the test support code:
// the scripted model server) with esbuild into a temp file and runs it. See scripts/model-server.ts.
import { runBundled } from "./bundle.mjs";

await runBundled("scripts/model-server.ts", process.argv.slice(2));
