/**
 * Issue 14 items 4 and 5, through the engine with the pinned real `claude` (2.1.332) against the scripted
 * model server, in real git repositories (graph-harness.ts):
 * - a session limit in each form the CLI reports it in — an API error it surfaces (429, 400: an error
 *   result) and the notice as the plain reply (not an error) — gives the node a PAUSED row (never FAIL) and
 *   pauses the run (`action_required`, outcome `paused`: `exitCodeFor` gives the CLI's exit 2; the CLI
 *   command itself is run on the 429 form's captured stream in test/cli/resume-command.test.ts, on codex's
 *   usage limit in test/e2e/cli-codex.test.ts);
 * - a `permission_mode: bypassPermissions` node runs as root (as this machine runs the tests) because
 *   IS_SANDBOX=1 is in that node's environment, and only there: not in the verify command's, not in
 *   another node's; the plan section says the node runs with permissions bypassed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { EXIT, exitCodeFor } from "../../src/local-run/exit-codes.js";
import type { ModelScript } from "../support/model-server/index.js";
import { asPass, graphHarnessPerTest, readState, requestsOf, rowWords } from "./graph-harness.js";
import { shellCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();
const LIMIT = "You've hit your session limit · resets 5:30pm (Europe/Paris)";

const GRAPH = `
name: limited
nodes:
  - id: build
    prompt: "BUILD-MARK: build it."
    allowed_tools: [Read]
    retry: { max: 2, on: [run_error] }
  - id: ship
    depends_on: [build]
    prompt: "SHIP-MARK: ship it."
    allowed_tools: [Read]
`;

describe("a session limit in each form the CLI reports it in pauses the run with a PAUSED row", () => {
  const forms: [string, ModelScript["conversations"][number]["turns"]][] = [
    ["an API 429 (error result)", [{ error: { status: 429, message: LIMIT } }]],
    ["an API 400 (error result)", [{ error: { status: 400, message: LIMIT } }]],
    ["the notice as the plain reply (no error)", [{ text: LIMIT }]],
  ];
  test.each(forms)("%s", async (_form, turns) => {
    const h = await harness({
      runtime: "claude",
      script: () => ({
        conversations: [
          { name: "build", match: "BUILD-MARK", turns },
          { name: "ship", match: "SHIP-MARK", turns: [{ text: "shipped" }] },
        ],
      }),
    });
    const { ledger, runDir } = await h.run(GRAPH);
    expect(rowWords(ledger.rows)).toEqual([
      // Once: the PAUSED row says the node stopped and how to resume it; no SKIPPED row repeats it.
      "build PAUSED session_limit, resets 5:30pm (Europe/Paris)",
      "ship SKIPPED",
    ]);
    expect(ledger.rows.some((r) => r.verdict === "FAIL")).toBe(false);
    expect(ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    // The CLI exits by this function of the ledger (terminal-report.ts): 2, paused.
    expect(exitCodeFor(ledger)).toBe(EXIT.paused);
    // Not retried by the engine, whatever retry.on says (the CLI may retry a request itself); the node
    // after it never ran.
    expect(h.spawnsOf("build")).toBe(1);
    expect(requestsOf(h.server.requests, "ship")).toHaveLength(0);
    expect(readState(runDir).paused).toEqual({
      reason: "session-limit",
      node: "build",
      resets_at: "5:30pm (Europe/Paris)",
    });
    const text = renderLedgerText(ledger);
    expect(text).toContain("PAUSED session limit, resets 5:30pm (Europe/Paris)");
    expect(text).not.toMatch(/FAIL/);
  });

  test("a reply that only mentions the words is an ordinary PASS", async () => {
    const h = await harness({
      runtime: "claude",
      script: () => ({
        conversations: [
          {
            name: "build",
            match: "BUILD-MARK",
            turns: [{ text: `The CLI prints "${LIMIT}" at the limit.` }],
          },
          { name: "ship", match: "SHIP-MARK", turns: [{ text: "shipped" }] },
        ],
      }),
    });
    const { ledger } = await h.run(GRAPH);
    expect(rowWords(ledger.rows)).toEqual(["build PASS (exit-only)", "ship PASS (exit-only)"]);
  });
});

describe("bypassPermissions as root", () => {
  test("the node runs through the real CLI with IS_SANDBOX=1 in its environment only; the plan says so", async () => {
    expect(process.getuid?.()).toBe(0);
    const h = await harness({
      runtime: "claude",
      script: (repo) => ({
        conversations: [
          {
            name: "free",
            match: "FREE-MARK",
            turns: [
              {
                tool_calls: [
                  shellCall("claude", `printf '%s' "\${IS_SANDBOX-unset}" > ${join(repo.dir, "free.txt")}`),
                ],
              },
              { text: "done" },
            ],
          },
          {
            name: "plain",
            match: "PLAIN-MARK",
            turns: [
              {
                tool_calls: [
                  shellCall("claude", `printf '%s' "\${IS_SANDBOX-unset}" > ${join(repo.dir, "plain.txt")}`),
                ],
              },
              { text: "done" },
            ],
          },
        ],
      }),
    });
    const { ledger, warnings } = await h.run(`
name: bypass
nodes:
  - id: free
    prompt: "FREE-MARK: write free.txt."
    permission_mode: bypassPermissions
    success_check: { verify: { command: 'test "\${IS_SANDBOX-unset}" = unset && test -f free.txt' } }
  - id: plain
    depends_on: [free]
    prompt: "PLAIN-MARK: write plain.txt."
    allowed_tools: [Bash]
    permission_mode: acceptEdits
`);
    expect(rowWords(ledger.rows)).toEqual(["free PASS (verified)", "plain PASS (exit-only)"]);
    expect(asPass(ledger.rows[0]).verify).toMatchObject({ exitCode: 0 });
    expect(readFileSync(join(h.repo.dir, "free.txt"), "utf8")).toBe("1");
    expect(readFileSync(join(h.repo.dir, "plain.txt"), "utf8")).toBe("unset");
    const line = expect.stringMatching(/^node "free" runs with permissions bypassed .*IS_SANDBOX=1/);
    expect(warnings).toEqual([line]);
    expect(ledger.plan.warnings).toEqual([line]);
    expect(renderLedgerText(ledger)).toContain('Warning: node "free" runs with permissions bypassed');
  });
});
