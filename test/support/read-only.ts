/**
 * Runs `node dist/cli.js ARGV` with some folders read-only, for tests of what the CLI does with a place it
 * cannot write (issue 17 item 5). Two ways, whichever this machine allows, each a real refusal by the
 * kernel:
 *
 * - as root (CI containers; permission bits do not stop root): in a new user and mount namespace
 *   (`unshare -rm`) where each folder is bind-mounted onto itself read-only, so writes fail with EROFS
 *   exactly as on a read-only checkout;
 * - as any other user: the folders' write bits are cleared for the run (EACCES), and put back afterwards.
 */
import { spawn } from "node:child_process";
import { chmodSync, statSync } from "node:fs";
import { DIST_CLI } from "./cli-harness.js";

export interface ReadOnlyRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Which refusal the kernel gives on this machine: EROFS (a read-only mount) or EACCES (mode bits). */
export const READ_ONLY_CODE = process.getuid?.() === 0 ? "EROFS" : "EACCES";

/**
 * `node dist/cli.js ARGV` from `cwd` with `env`, every folder in `readOnly` unwritable while it runs.
 */
export async function runCliReadOnly(o: {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly readOnly: readonly string[];
}): Promise<ReadOnlyRun> {
  const node = [process.execPath, DIST_CLI, ...o.argv];
  if (READ_ONLY_CODE === "EROFS") {
    // $1… are the folders, then `--`, then the command: each folder is bound onto itself read-only.
    const script =
      'while [ "$1" != -- ]; do mount --bind -o ro "$1" "$1" || exit 90; shift; done; shift; exec "$@"';
    return collect("unshare", ["-rm", "sh", "-c", script, "sh", ...o.readOnly, "--", ...node], o);
  }
  const modes = o.readOnly.map((dir) => [dir, statSync(dir).mode & 0o7777] as const);
  for (const [dir, mode] of modes) chmodSync(dir, mode & ~0o222);
  try {
    return await collect(node[0]!, node.slice(1), o);
  } finally {
    for (const [dir, mode] of modes) chmodSync(dir, mode);
  }
}

function collect(
  command: string,
  args: readonly string[],
  o: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): Promise<ReadOnlyRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: { ...o.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
