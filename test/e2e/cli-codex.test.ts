/**
 * `--runtime codex` end to end in the CLI (SPEC §4, §6, §9, §10): `auto` and `resume` in-process against a
 * real git repository, the real pinned `codex` CLI (behind a recording stand-in that logs what each call
 * was given) and the scripted model server's OpenAI Responses side, offline through `--codex-config`.
 *
 * What is proved: the planner and the node run on codex with the user's own `CODEX_HOME`; the OpenAI keys
 * reach the codex child and no other (not the verify command), and no claude key reaches codex; every
 * cost is `unknown`, never `$0`, and token usage is shown; the model's usage limit (a 429
 * `usage_limit_reached`) pauses a leg with a PAUSED row (exit 2), not retried, and `--retry-failed` finishes it.
 *
 * A hand-written node's `budget_usd` warning and the `--codex-config` usage errors (exit 64 before anything
 * runs) run in-process through the model port: test/cli/codex-flags.test.ts (issue 24).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { DUMMY_CREDENTIAL } from "../../src/proxy/credential.js";
import { cliHarness, rowWords } from "../support/cli-harness.js";
import { codexConfigFor, SCRIPTED_CODEX_MODEL, startModelServer } from "../support/model-server/index.js";
import {
  CODEX_BIN,
  codexFixSumScript,
  recordedCodexCalls,
  writeRecordingCodex,
} from "../support/scenarios/codex.js";
import { MARKS } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM } from "../support/temp-repo.js";

/** Distinct fake credentials, so each one's path through the run can be told apart. */
const OPENAI_KEY = "sk-test-openai-4d1f0c2b9a8e7d6c";
const CODEX_KEY = "sk-test-codex-5e2a1b0c9d8f7e6a";
const ANTHROPIC_KEY = "sk-ant-test-7c6b5a4f3e2d1c0b";

/** `--codex-config` flags pointing codex at the scripted server (provider, model, no network). */
function configFlags(serverUrl: string): string[] {
  return codexConfigFor(serverUrl).flatMap((pair) => ["--codex-config", pair]);
}

describe("auto --runtime codex", () => {
  test("plans and fixes through the real codex CLI with the user's CODEX_HOME: the ledger prints, every cost is unknown (never $0), tokens are shown, and only codex gets the OpenAI keys", async () => {
    const h = await cliHarness({ script: (repo) => codexFixSumScript(repo.dir) });
    const codexHome = join(h.scratch, "user-codex-home");
    mkdirSync(codexHome);
    const log = join(h.scratch, "codex-calls.log");
    const codex = writeRecordingCodex(join(h.scratch, "bin"), log);
    const verifyEnv = join(h.scratch, "verify-env.txt");

    const r = await h.run(
      [
        "--runtime",
        "codex",
        "--codex-path",
        codex,
        "--model",
        SCRIPTED_CODEX_MODEL,
        ...configFlags(h.server.url),
        "--verify-cmd",
        `env | cut -d= -f1 > '${verifyEnv}' && npm test`,
      ],
      {
        env: {
          CODEX_HOME: codexHome,
          OPENAI_API_KEY: OPENAI_KEY,
          CODEX_API_KEY: CODEX_KEY,
          ANTHROPIC_API_KEY: ANTHROPIC_KEY,
          NO_PROXY: "127.0.0.1",
          no_proxy: "127.0.0.1",
        },
      },
    );

    expect(r.exitCode, r.stderr + r.stdout).toBe(4);
    const ledger = r.ledger!;
    expect(ledger.runtime).toBe("codex");
    expect(ledger.model).toBe(SCRIPTED_CODEX_MODEL);
    expect(rowWords(ledger)).toEqual(["implement PASS (verified)"]);
    expect(readFileSync(join(h.repo.dir, "src", "sum.js"), "utf8")).toBe(FIXED_SUM);
    expect(h.server.requests.map((req) => [req.api, req.conversation])).toEqual([
      ["openai", "planner"],
      ["openai", "implement"],
      ["openai", "implement"],
      ["openai", "implement"],
    ]);

    // Cost: unknown everywhere, never $0; tokens: the planner's request and the node's three, 100/20 each.
    expect(ledger.rows[0]!.costUsd).toBeNull();
    expect(ledger.totals.total).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 2 });
    expect(ledger.totals.tokens).toMatchObject({ inputTokens: 400, outputTokens: 80, callsWithoutUsage: 0 });
    expect(r.stdout).toContain(`Run ${ledger.runId} — auto, codex (${SCRIPTED_CODEX_MODEL})`);
    expect(r.stdout).toMatch(/^TOTAL COST: +unknown \(known subtotal \$0\.0000; 2 calls without USD\)$/m);
    expect(r.stdout).toMatch(/^TOKENS: +input 400, output 80, /m);
    const rowLines = r.stdout
      .split("\n")
      .filter((line) => line.includes("implement") && line.includes("PASS"));
    expect(rowLines.length).toBeGreaterThanOrEqual(2); // the progress line and the table row
    for (const line of rowLines) {
      expect(line).toContain("unknown");
      expect(line).not.toMatch(/\$0(\.0+)?\b/);
    }
    expect(r.summary).toContain("Planned Codex nodes run isolated");

    // Each codex call: the user's own CODEX_HOME, the key proxy's dummy under both OpenAI variables (the
    // real key stays in the engine: issue 12), no claude key; the model server got the real key through the proxy.
    const calls = recordedCodexCalls(log);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.codexHome).toBe(codexHome);
      expect(call.openaiApiKey).toBe(DUMMY_CREDENTIAL);
      expect(call.codexApiKey).toBe(DUMMY_CREDENTIAL);
      expect(call.names).not.toContain("ANTHROPIC_API_KEY");
    }
    for (const req of h.server.requests) expect(req.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(r.stdout + r.stderr).toContain(
      "key proxy: the codex CLI gets a loopback base URL and a dummy key",
    );
    // The verify command gets no model credential or provider setting.
    const verifyNames = readFileSync(verifyEnv, "utf8").split("\n");
    expect(verifyNames).toContain("PATH");
    for (const name of ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME", "ANTHROPIC_API_KEY"])
      expect(verifyNames).not.toContain(name);
    // No key is printed or written anywhere.
    for (const key of [OPENAI_KEY, CODEX_KEY, ANTHROPIC_KEY]) {
      expect(r.stdout + r.stderr).not.toContain(key);
      expect(r.summary).not.toContain(key);
      expect(JSON.stringify(r.checkRunRequests)).not.toContain(key);
    }
  });
});

describe("resume --runtime codex: the codex-config pairs are not recorded, so a resumed leg must be given them again; the usage limit pauses a leg (exit 2)", () => {
  const GATED = [
    "name: gated-review",
    "nodes:",
    "  - id: hold",
    "    type: gate",
    "  - id: review",
    "    depends_on: [hold]",
    `    prompt: "${MARKS.review} whether it looks correct."`,
    "    retry: { max: 2, on: [run_error] }",
    "",
  ].join("\n");

  test("state.json records the keys only; resume without the pairs is a usage error naming them; with them the leg runs, pauses at the usage limit (exit 2), and --retry-failed finishes it", async () => {
    // A 429 usage_limit_reached: codex says "You’ve hit your usage limit. Try again at <its local time>."
    const resetsAt = Math.floor(Date.now() / 1000) + 3600;
    const limit = { status: 429, message: "limit", type: "usage_limit_reached", resets_at: resetsAt };
    const h = await cliHarness({
      script: () => ({ conversations: [{ name: "review", match: MARKS.review, turns: [{ error: limit }] }] }),
    });
    const codexHome = join(h.scratch, "user-codex-home");
    mkdirSync(codexHome);
    const env = { CODEX_HOME: codexHome, OPENAI_API_KEY: OPENAI_KEY, NO_PROXY: "127.0.0.1" };
    const graph = h.writeGraph("gated.yml", GATED);
    const config = configFlags(h.server.url);

    const first = await h.runGraph(graph, ["--runtime", "codex", "--codex-path", CODEX_BIN, ...config], {
      env,
    });
    expect(first.exitCode, first.stderr + first.stdout).toBe(2);
    const runId = first.ledger!.runId;
    const state = JSON.parse(readFileSync(join(first.runDir!, "state.json"), "utf8")) as {
      codex_config_keys?: string[];
    };
    expect(state.codex_config_keys).toEqual(
      codexConfigFor(h.server.url).map((p) => p.slice(0, p.indexOf("="))),
    );
    // No value is recorded (a provider setting may carry a secret).
    expect(readFileSync(join(first.runDir!, "state.json"), "utf8")).not.toContain(h.server.url);

    const bare = await h.resume(runId, ["--approve", "hold", "--codex-path", CODEX_BIN], { env });
    expect(bare.exitCode).toBe(64);
    expect(bare.stderr).toContain(`run ${runId} was started with codex-config pairs for "model_provider"`);
    expect(bare.stderr).toContain("give the same pairs again");
    expect(h.server.requests).toHaveLength(0);

    const given = await h.resume(runId, ["--approve", "hold", "--codex-path", CODEX_BIN, ...config], { env });
    expect(given.exitCode, given.stderr + given.stdout).toBe(2);
    // Not retried, whatever retry.on says: one call, one request.
    expect(h.server.requests.map((r) => r.conversation)).toEqual(["review"]);
    expect(given.ledger!.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    const pausedState = JSON.parse(readFileSync(join(given.runDir!, "state.json"), "utf8")) as {
      paused?: unknown;
    };
    expect(pausedState.paused).toEqual({
      reason: "session-limit",
      node: "review",
      resets_at: expect.stringMatching(/^\d{1,2}:\d{2} [AP]M$/),
    });
    expect(rowWords(given.ledger!)).toEqual([
      "hold PASS (approved)",
      expect.stringMatching(/^review PAUSED session_limit, resets \d{1,2}:\d{2} [AP]M$/),
    ]);
    expect(given.stdout).toMatch(
      new RegExp(
        `⏸ review  session limit reached \\(resets \\d{1,2}:\\d{2} [AP]M\\) — resume after the reset with: evidence-gate resume ${runId} .*--retry-failed`,
      ),
    );

    // The limit reset: the model answers (a new server, so new pairs pointing at it).
    const server = await startModelServer({
      script: {
        conversations: [{ name: "review", match: MARKS.review, turns: [{ text: "It reads fine." }] }],
      },
    });
    onTestFinished(() => server.close());
    const retried = await h.resume(
      runId,
      ["--retry-failed", "--codex-path", CODEX_BIN, ...configFlags(server.url)],
      { env },
    );
    expect(retried.exitCode, retried.stderr + retried.stdout).toBe(0);
    expect(server.requests.map((r) => r.conversation)).toEqual(["review"]);
    expect(rowWords(retried.ledger!).at(-1)).toBe("review PASS (exit-only)");
  });
});
