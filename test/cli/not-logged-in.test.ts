/**
 * claude with no credential (a new user's trial, closing note of the sixth session): claude 2.1.332 answers
 * the planner `Not logged in · Please run /login` at $0, before reaching the model
 * (test/runtime/fixtures/not-logged-in.jsonl, captured from the pinned CLI with an empty HOME and no key).
 * `auto` and `plan` turn that into a usage error naming `ANTHROPIC_API_KEY`, `CLAUDE_CODE_OAUTH_TOKEN`,
 * `ANTHROPIC_AUTH_TOKEN` and claude's own login — exit 64 — instead of "planning failed" naming none of
 * them. In-process, the model calls played by the scripted stand-in (test/engine/scripted-calls.ts).
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runCliPlan } from "../../src/cli/plan-command.js";
import { runCliAuto } from "../../src/cli/run-auto-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { ScriptedPlay } from "../engine/port-harness.js";
import { scriptedCallsByLabel } from "../engine/scripted-calls.js";
import { hermeticGitEnv, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/** The pinned claude's answer with no credential, as captured. */
function notLoggedIn(): ScriptedPlay {
  const captured = readFileSync(new URL("../runtime/fixtures/not-logged-in.jsonl", import.meta.url), "utf8");
  return { lines: captured.split("\n").filter((line) => line !== ""), exitCode: 1 };
}

/** What the message names: every variable claude reads a credential from, and its own login. */
const NAMES = ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "/login"];

/** Runs `COMMAND --goal … --verify-cmd "node --test"` in-process with no model credential in its environment. */
async function cli(command: typeof runCliAuto, more: readonly string[] = []) {
  const repo = await makeSampleNodeRepo();
  repos.push(repo);
  const scripted = scriptedCallsByLabel({ planner: [notLoggedIn()] });
  let stdout = "";
  let stderr = "";
  const code = await command(
    [
      "--repo",
      repo.dir,
      "--goal",
      "Fix sum().",
      "--verify-cmd",
      "node --test",
      "--claude-path",
      process.execPath,
      ...more,
    ],
    {
      cwd: repo.dir,
      env: {
        ...hermeticGitEnv,
        ANTHROPIC_API_KEY: undefined,
        ANTHROPIC_AUTH_TOKEN: undefined,
        CLAUDE_CODE_OAUTH_TOKEN: undefined,
      },
      out: { write: (t: string) => (stdout += t) },
      err: { write: (t: string) => (stderr += t) },
      modelCalls: scripted.calls,
    },
  );
  return { code, stdout, stderr, planner: scripted.madeFor("planner") };
}

describe("claude not logged in: a usage error naming the credential and the fix", () => {
  it("auto: exit 64, the ledger a usage error naming the variables and /login, nothing spent", async () => {
    const r = await cli(runCliAuto, ["--json"]);
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.planner).toHaveLength(1);
    const ledger = JSON.parse(r.stdout) as Ledger;
    expect(ledger.conclusion).toMatchObject({
      outcome: "usage-error",
      conclusion: "action_required",
      title: "Usage error: nothing ran",
    });
    const reason = ledger.conclusion!.reason;
    for (const name of NAMES) expect(reason).toContain(name);
    expect(reason).toContain('the claude CLI answered "Not logged in"');
    expect(reason).toContain("nothing was spent");
    expect(reason).not.toContain("The model API refused the credential");
    expect(ledger.rows).toEqual([]);
  });

  it("plan: exit 64, the message on stderr naming the variables and /login, not 'planning failed'", async () => {
    const r = await cli(runCliPlan);
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.planner).toHaveLength(1);
    for (const name of NAMES) expect(r.stderr).toContain(name);
    expect(r.stderr).toContain('evidence-gate plan: the claude CLI answered "Not logged in"');
    expect(r.stderr).not.toContain("planning failed");
  });
});
