/**
 * A loaded user `config.toml` cannot widen a workspace-write node's sandbox (seed 001 §9, first bullet:
 * "whether a restored config.toml can weaken the sandbox floor"), measured on the real pinned `codex`
 * against the scripted model server. The user's config lists an extra writable root outside the workspace
 * and `/tmp`; an opted-in (settings loaded) workspace-write node asks a shell command to write there.
 *
 * - with the argv this project builds (`buildCodexArgv`, which pins `sandbox_workspace_write.writable_roots=[]`
 *   and `network_access=false`): the write is blocked;
 * - control, the same argv without those two pins: the write lands — so the config really was loaded and
 *   really widened the sandbox, and the first case is not passing vacuously.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { plannedNodePolicy } from "../../src/policy/ceiling.js";
import { buildCodexArgv, WORKSPACE_WRITE_EXTENT } from "../../src/runtime/codex-argv.js";
import { codexConfigFor } from "../support/model-server/index.js";
import { makeRepoScratchFor, realCliRig, SCRATCH_GIT_IDENTITY } from "./real-cli.js";
import { runCodex } from "./real-codex.js";
import { codexToolExchanges } from "./tool-exchanges.js";

const rig = realCliRig("codex", () => makeRepoScratchFor("codex-extent"));
// Outside the workspace, /tmp and $TMPDIR (all writable under workspace-write, so a target there would land
// whatever the config says): under the user's home, never under the checkout (CI may clone into /tmp).
const outside = mkdtempSync(join(homedir(), ".eg-extent-"));
for (const temp of new Set([tmpdir(), "/tmp", process.env.TMPDIR].filter((t): t is string => !!t))) {
  if (outside.startsWith(`${temp}/`))
    throw new Error(`the outside folder ${outside} is under ${temp}: the test would prove nothing`);
}
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** One spawn: the user's config adds `root` as a writable root; the model asks to write `root/<name>`. */
async function attempt(
  name: string,
  pinned: boolean,
): Promise<{ wrote: boolean; toolResult: string | null }> {
  const target = join(outside, name);
  const { server, scratch } = await rig.setup({
    conversations: [
      {
        name,
        match: "write the marker",
        turns: [
          { tool_calls: [{ name: "exec_command", input: { cmd: `touch '${target}'` } }] },
          { text: "done" },
        ],
      },
    ],
  });
  writeFileSync(
    join(scratch.home, "config.toml"),
    `[sandbox_workspace_write]\nwritable_roots = ["${outside}"]\n`,
  );
  const built = buildCodexArgv({
    permissionMode: "dontAsk",
    policy: plannedNodePolicy(["Read", "Edit"], { loadedUserConfig: true }),
    session: { kind: "fresh" },
    config: codexConfigFor(server.url),
    prompt: "Please write the marker.",
  });
  expect(built).toContain(WORKSPACE_WRITE_EXTENT[0]);
  expect(built).not.toContain("--ignore-user-config");
  // Unpinned: drop `--config <writable_roots> --config <network_access>` (the four items) and nothing else.
  const pinnedAt = (i: number) => WORKSPACE_WRITE_EXTENT.includes(built[i] ?? "");
  const argv = pinned ? built : built.filter((_, i) => !pinnedAt(i) && !pinnedAt(i + 1));
  if (!pinned) expect(argv.filter((x) => x.startsWith("sandbox_workspace_write"))).toEqual([]);
  const run = rig.timed(name, await runCodex({ server, scratch, argv, env: SCRATCH_GIT_IDENTITY }));
  expect(run.exitCode, run.stderr).toBe(0);
  const exchange = codexToolExchanges(server.requests.at(-1))[0];
  return { wrote: existsSync(target), toolResult: exchange?.result ?? null };
}

describe("codex workspace-write extent under a loaded config.toml (real codex)", () => {
  it("the argv this project builds blocks a write to a writable root the user's config adds", async () => {
    const r = await attempt("pinned", true);
    expect(r.toolResult, "the call reached codex and was answered").not.toBeNull();
    expect(r.wrote).toBe(false);
  });

  it("control: without the two pins the same config lets the write land (the config was loaded and widens)", async () => {
    const r = await attempt("unpinned", false);
    expect(r.toolResult).not.toBeNull();
    expect(r.wrote).toBe(true);
  });
});
