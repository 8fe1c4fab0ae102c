/**
 * `--runtime codex` in the CLI, in-process (SPEC §4, §10; issue 24: the CLI's decisions in the fast tier;
 * test/support/cli-in-process.ts, the codex calls played by the scripted stand-in through codex's real
 * stream parser): `--codex-config` problems are usage errors (exit 64) before anything runs, and a
 * hand-written node's `budget_usd` is warned about, naming the timeout that bounds it, in the plan lines
 * and in the ledger's plan section. Moved from test/e2e/cli-codex.test.ts, which keeps the runs through the
 * real `codex` CLI (the keys each child gets, the user's CODEX_HOME, the usage limit and resume).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { replied } from "../engine/port-harness.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { rowWords } from "../support/cli-run-result.js";
import { codexConfigFor } from "../support/model-server/index.js";
import { MARKS } from "../support/scenarios/fix-sum.js";

/** A fake OpenAI key (the stand-in never sends it anywhere). */
const OPENAI_KEY = "sk-test-openai-4d1f0c2b9a8e7d6c";
/** Where the `--codex-config` provider points: nothing listens there, and nothing is sent. */
const PROVIDER_URL = "http://127.0.0.1:9";

/** `--codex-config` flags naming a model provider of the operator's own (the scripted server's pairs). */
function configFlags(serverUrl: string): string[] {
  return codexConfigFor(serverUrl).flatMap((pair) => ["--codex-config", pair]);
}

describe("run --runtime codex", () => {
  const BUDGET_GRAPH = [
    "name: budget-review",
    "nodes:",
    "  - id: review",
    `    prompt: "${MARKS.review} whether it looks correct."`,
    "    budget_usd: 0.5",
    "    timeout: 90s",
    "",
  ].join("\n");
  const WARNING =
    'node "review": budget_usd 0.5 is not enforced on the codex runtime (codex reports no USD cost, so every codex row\'s cost is unknown); what bounds this node is its timeout of 1m30s';

  test("a node's budget_usd is warned about, naming the timeout that bounds it: printed with the plan, and in the ledger's plan section", async () => {
    const h = await cliInProcess({ plays: { review: [replied("codex", "It reads fine.")] } });
    const codexHome = join(h.scratch, "user-codex-home");
    mkdirSync(codexHome);
    const graph = h.writeGraph("budget.yml", BUDGET_GRAPH);

    const r = await h.runGraph(
      graph,
      ["--runtime", "codex", "--codex-path", h.codexStandIn, ...configFlags(PROVIDER_URL)],
      { env: { CODEX_HOME: codexHome, OPENAI_API_KEY: OPENAI_KEY, NO_PROXY: "127.0.0.1" } },
    );

    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    expect(rowWords(r.ledger!)).toEqual(["review PASS (exit-only)"]);
    expect(h.calls().map((call) => call.label)).toEqual(["review"]);
    // Printed before anything ran (with the plan), and again in the text ledger.
    const lines = r.stdout.split("\n");
    const warnAt = lines.indexOf(`warning: ${WARNING}`);
    expect(warnAt).toBeGreaterThan(-1);
    expect(warnAt).toBeLessThan(lines.findIndex((l) => l.startsWith("▶ review")));
    expect(lines).toContain(`Warning: ${WARNING}`);
    expect(r.ledger!.plan.warnings).toEqual([WARNING]);
    expect(r.summary).toContain(`**Warnings:**\n- ${WARNING.replaceAll("_", "\\_")}`);
    expect(r.ledger!.rows[0]!.costUsd).toBeNull();
  });
});

describe("--codex-config is checked before anything runs", () => {
  test("a bad pair on codex is a usage error naming it: exit 64, no model request, no run directory", async () => {
    const h = await cliInProcess();
    const r = await h.run(
      [
        "--runtime",
        "codex",
        "--codex-path",
        h.codexStandIn,
        "--codex-config",
        "model_provider",
        "--verify-cmd",
        "npm test",
      ],
      { env: { OPENAI_API_KEY: OPENAI_KEY } },
    );
    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain('codex-config entry 1: expected KEY=VALUE, got "model_provider"');
    expect(r.stderr).toContain("run `evidence-gate auto --help` for its flags"); // one pointer, not the whole usage
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
    expect(r.checkRunRequests).toBeNull();
  });

  test("a pair that would widen the sandbox (the /opt repro) is a usage error naming the key: exit 64, nothing runs", async () => {
    const h = await cliInProcess();
    const r = await h.run(
      [
        "--runtime",
        "codex",
        "--codex-path",
        h.codexStandIn,
        ...configFlags(PROVIDER_URL),
        "--codex-config",
        'sandbox_workspace_write.writable_roots=["/opt"]',
        "--verify-cmd",
        "npm test",
      ],
      { env: { OPENAI_API_KEY: OPENAI_KEY } },
    );
    expect(r.exitCode).toBe(64);
    const entry = codexConfigFor(PROVIDER_URL).length + 1;
    expect(r.stderr).toContain(
      `codex-config entry ${entry}: "sandbox_workspace_write.writable_roots" is not allowed: codex-config may only configure the model provider;`,
    );
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
  });

  test("codex with no credential at all (no key, no codex login, no provider of its own) is a usage error: exit 64, nothing runs", async () => {
    // The second run starts: its planner replies with no plan, so the run ends there (exit 1).
    const h = await cliInProcess({
      plays: { planner: [replied("codex", "I would rather not plan today.")] },
    });
    const args = ["--runtime", "codex", "--codex-path", h.codexStandIn, "--verify-cmd", "npm test"];
    const r = await h.run(args, { env: { OPENAI_API_KEY: undefined, CODEX_API_KEY: undefined } });
    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      "codex has no credential: set OPENAI_API_KEY (or CODEX_API_KEY), run `codex login`",
    );
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
    // A provider of the operator's own counts: the same run with the scripted provider's pairs starts.
    const withProvider = await h.run([...args, ...configFlags(PROVIDER_URL)], {
      env: { OPENAI_API_KEY: undefined, CODEX_API_KEY: undefined },
    });
    expect(withProvider.stderr).not.toContain("codex has no credential");
    expect(withProvider.exitCode).not.toBe(64);
    expect(h.runDirs()).toHaveLength(1);
  });

  test("--codex-config on the claude runtime is a usage error: exit 64, nothing runs", async () => {
    const h = await cliInProcess();
    const graph = h.writeGraph("g.yml", "nodes:\n  - id: review\n    prompt: review it\n");
    const r = await h.runGraph(graph, ["--codex-config", 'model="gpt-5.5"']);
    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      "codex-config applies only to the codex runtime: pass --runtime codex (input runtime: codex), or drop codex-config",
    );
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
  });
});
