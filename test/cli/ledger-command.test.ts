/**
 * `evidence-gate ledger RUN_ID [--json | --markdown]` (SPEC §11, issue 14): a saved run's ledger printed
 * again from its run directory. The runs are real: `verify` over the sample project's real tests, passed
 * and failed (`node --test`, what its `npm test` runs, without npm's start: npm is not what is tested
 * here), and `run` over a graph whose gate pauses it; `--json` prints the ledger artifact's bytes. An unknown
 * id, a run whose lock a live process holds and a state file of another schema version are refused with exit
 * 64.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliLedger } from "../../src/cli/ledger-command.js";
import { runCliRun } from "../../src/cli/run-command.js";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import {
  hermeticGitEnv,
  makeFixedSampleRepo,
  makeSampleNodeRepo,
  type TempRepo,
} from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function capture(
  fn: (io: {
    cwd: string;
    env: Record<string, string | undefined>;
    out: { write(t: string): unknown };
    err: { write(t: string): unknown };
  }) => Promise<number>,
  cwd: string,
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const code = await fn({
    cwd,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined },
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

/** A finished run in `repo`: its id, `ledger.json`'s path and text. */
async function savedRun(
  repo: TempRepo,
  argv: readonly string[],
  command: typeof runCliVerify = runCliVerify,
): Promise<{ runId: string; ledgerPath: string; ledgerText: string; ledger: Ledger; code: number }> {
  const r = await capture((io) => command(["--repo", repo.dir, ...argv], io), repo.dir);
  const ledgerPath = /^ledger: (.+)$/m.exec(r.stdout)?.[1];
  if (ledgerPath === undefined) throw new Error(`no ledger line:\n${r.stdout}\n${r.stderr}`);
  const ledgerText = readFileSync(ledgerPath, "utf8");
  const ledger = JSON.parse(ledgerText) as Ledger;
  return { runId: ledger.runId, ledgerPath, ledgerText, ledger, code: r.code };
}

const ledgerOf = (repo: TempRepo, argv: readonly string[]) =>
  capture((io) => runCliLedger(argv, io), repo.dir);

describe("evidence-gate ledger RUN_ID", () => {
  it("prints a passed run's table, and under --json the ledger artifact byte for byte", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const run = await savedRun(repo, ["--verify-cmd", "node --test"]);
    expect(run.code).toBe(0);

    const text = await ledgerOf(repo, [run.runId]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("verify (engine)");
    expect(text.stdout).toMatch(/PASS \(verified\)/);

    const json = await ledgerOf(repo, [run.runId, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(run.ledgerText);

    // From a sub-folder, as the run-making commands do: the runs of the working tree's root.
    const sub = join(repo.dir, "src");
    const fromSub = await capture((io) => runCliLedger([run.runId, "--json"], io), sub);
    expect(fromSub.code, fromSub.stderr).toBe(0);
    expect(fromSub.stdout).toBe(run.ledgerText);

    const md = await ledgerOf(repo, [run.runId, "--markdown"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("| `verify (engine)` | PASS (verified) |");
  });

  it("prints a failed run's FAIL row and cause; --json equals the artifact", async () => {
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    const run = await savedRun(repo, ["--verify-cmd", "node --test"]);
    expect(run.code).toBe(1);

    const text = await ledgerOf(repo, ["--repo", repo.dir, run.runId]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("FAIL");
    expect(text.stdout).toContain("verify_failed");
    const json = await ledgerOf(repo, [run.runId, "--json"]);
    expect(json.stdout).toBe(run.ledgerText);
    expect((JSON.parse(json.stdout) as Ledger).conclusion?.outcome).toBe("failed");
  });

  it("prints a run paused at a gate (its row waiting, action_required); --json equals the artifact", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const graph = join(repo.dir, "..", `gate-${process.pid}.yaml`);
    writeFileSync(graph, 'name: gated\nversion: "1"\nnodes:\n  - id: sign-off\n    type: gate\n');
    const run = await savedRun(repo, [graph], runCliRun);
    expect(run.code).toBe(2);
    expect(run.ledger.conclusion?.outcome).toBe("paused");

    const text = await ledgerOf(repo, [run.runId]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("sign-off");
    expect(text.stdout).toMatch(/sign-off +WAITING .*waiting for a person to approve or reject this gate/);
    expect(text.stdout).toContain("action_required (outcome paused)");
    const json = await ledgerOf(repo, [run.runId, "--json"]);
    expect(json.stdout).toBe(run.ledgerText);
    expect((JSON.parse(json.stdout) as Ledger).conclusion?.conclusion).toBe("action_required");
  });

  it("refuses an unknown id, a malformed id, a run in progress and a state file of another schema: exit 64", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const run = await savedRun(repo, ["--verify-cmd", "node --test"]);
    const runDir = join(repo.dir, ".evidence-gate", "runs", run.runId);

    const unknown = await ledgerOf(repo, ["20200101-000000-abcdef"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain("no run 20200101-000000-abcdef");
    expect(unknown.stderr).toContain(run.runId);
    expect(unknown.stdout).toBe("");

    const malformed = await ledgerOf(repo, ["latest"]);
    expect(malformed.code).toBe(64);
    expect(malformed.stderr).toContain('"latest" is not a run id');

    // This test process is alive: a lock naming it is a leg in progress.
    writeFileSync(join(runDir, "run.lock"), `${process.pid}@${hostname()}\n`);
    const inProgress = await ledgerOf(repo, [run.runId]);
    expect(inProgress.code).toBe(64);
    expect(inProgress.stderr).toContain("still in progress");
    expect(inProgress.stdout).toBe("");
    // A lock whose process is gone is no run in progress.
    writeFileSync(join(runDir, "run.lock"), `999999999@${hostname()}\n`);
    expect((await ledgerOf(repo, [run.runId])).code).toBe(0);

    // A run directory another evidence-gate wrote: its state.json of another schema version.
    const graph = join(repo.dir, "..", `gate-${process.pid}.yaml`);
    writeFileSync(graph, 'name: gated\nversion: "1"\nnodes:\n  - id: sign-off\n    type: gate\n');
    const gated = await savedRun(repo, [graph], runCliRun);
    const statePath = join(repo.dir, ".evidence-gate", "runs", gated.runId, "state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8")) as Record<string, unknown>;
    expect(state.schema_version).toBe(2);
    writeFileSync(statePath, JSON.stringify({ ...state, schema_version: 99 }));
    const otherSchema = await ledgerOf(repo, [gated.runId]);
    expect(otherSchema.code).toBe(64);
    expect(otherSchema.stderr).toContain("schema_version 99");

    const both = await ledgerOf(repo, [run.runId, "--json", "--markdown"]);
    expect(both.code).toBe(64);
    expect(both.stderr).toContain("--json and --markdown were both given");
  });
});
