// One esbuild call for the scripts and benches that run TypeScript from this repository outside the test
// runner (scripts/demo.mjs, scripts/model-server.mjs, bench/*.mjs): `entry` is bundled for Node 20 as an ES
// module into `outfile`. The product's own bundles (dist/) are scripts/build.mjs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
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

/** The signals this wrapper passes on to the bundled script rather than dying of them. */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Bundles `entry` into a temp folder and runs it with `args`, stdio inherited; sets the exit code to the
 * child's (128 + the signal's number when a signal ended it) and removes the folder.
 *
 * SIGINT, SIGTERM and SIGHUP sent to this wrapper are passed on to the child, and the wrapper waits for
 * it to exit before it removes the folder and exits itself: stopping the wrapper (`kill PID`, a process
 * manager's SIGTERM, a SIGINT to it alone) stops the script the way Ctrl-C does, so a server it started
 * frees its port, and nothing is left in the temp folder. (A blocking spawnSync let the default handler
 * kill the wrapper at once, leaving the child running and the folder behind.) A signal that arrives while
 * the script is still being bundled stops the run before it starts.
 */
export async function runBundled(entry, args) {
  let child = null;
  let caught = null;
  const onSignal = (signal) => {
    caught ??= signal;
    child?.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, onSignal);
  const dir = mkdtempSync(join(tmpdir(), "evidence-gate-script-"));
  try {
    const outfile = join(dir, "script.mjs");
    await bundleScript(entry, outfile);
    if (caught !== null) {
      process.exitCode = 128 + constants.signals[caught];
      return;
    }
    child = spawn(process.execPath, [outfile, ...args], { stdio: "inherit" });
    process.exitCode = await new Promise((resolve) => {
      child.once("error", (error) => {
        console.error(`${entry}: ${error.message}`);
        resolve(1);
      });
      child.once("exit", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 0)));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const signal of FORWARDED) process.off(signal, onSignal);
  }
}
