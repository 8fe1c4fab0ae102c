// `npm run demo`: bundles scripts/demo.ts (it reuses the test support code: the scripted model server and
// the sample repository) with esbuild into a temp file and runs it. See scripts/demo.ts.
import { runBundled } from "./bundle.mjs";

// An optional argument names the outputs' folder (default demo-out).
await runBundled("scripts/demo.ts", [process.cwd(), ...process.argv.slice(2)]);
