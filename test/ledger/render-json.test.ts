import { describe, expect, it } from "vitest";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { FAILURE_LEDGER, NEUTRAL_LEDGER, pass, SUCCESS_LEDGER } from "./fixtures.js";

describe("ledger JSON", () => {
  it("every fixture ledger round-trips through JSON and the schema unchanged", () => {
    for (const ledger of [SUCCESS_LEDGER, FAILURE_LEDGER, NEUTRAL_LEDGER]) {
      const parsed = parseLedgerJson(renderLedgerJson(ledger));
      expect(parsed).toEqual({ ok: true, ledger });
    }
  });

  it("the plan's policy section round-trips", () => {
    const ledger = {
      ...SUCCESS_LEDGER,
      plan: {
        ...SUCCESS_LEDGER.plan,
        policy: {
          source: ".github/evidence-gate.yml (base ref main, commit 1a2b3c4)",
          requireEvidence: true,
        },
      },
    };
    expect(parseLedgerJson(renderLedgerJson(ledger))).toEqual({ ok: true, ledger });
    const every = {
      ...ledger,
      plan: {
        ...ledger.plan,
        policy: {
          ...ledger.plan.policy,
          requireTests: true,
          verifyRepeat: 3,
          verifyBase: true,
          testReports: ["reports/*.xml"],
        },
      },
    };
    expect(parseLedgerJson(renderLedgerJson(every))).toEqual({ ok: true, ledger: every });
    // Untrusted data (a fork's ledger artifact): a repeat count outside the policy's 1–10 is refused.
    const data = JSON.parse(renderLedgerJson(every));
    data.plan.policy.verifyRepeat = 11;
    expect(parseLedgerJson(JSON.stringify(data)).ok).toBe(false);
  });

  it("an in-progress ledger (no conclusion yet) is valid", () => {
    const parsed = parseLedgerJson(
      renderLedgerJson({ ...SUCCESS_LEDGER, conclusion: null, finishedAt: null }),
    );
    expect(parsed.ok).toBe(true);
  });

  it("an untrusted ledger with an unknown key is refused, naming the key's path", () => {
    const data = JSON.parse(renderLedgerJson(SUCCESS_LEDGER));
    data.rows[1].verifiedByReviewer = true;
    const parsed = parseLedgerJson(JSON.stringify(data));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues.join("\n")).toMatch(/rows\.1: .*verifiedByReviewer/);
  });

  it("a PASS with a qualifier outside the closed set is refused", () => {
    const data = JSON.parse(renderLedgerJson(SUCCESS_LEDGER));
    data.rows[0].qualifier = "trusted";
    const parsed = parseLedgerJson(JSON.stringify(data));
    expect(!parsed.ok && parsed.issues.join("\n")).toMatch(/rows\.0\.qualifier/);
  });

  it("another schema version is refused", () => {
    const parsed = parseLedgerJson(JSON.stringify({ ...SUCCESS_LEDGER, schemaVersion: 2 }));
    expect(!parsed.ok && parsed.issues.join("\n")).toMatch(/^schemaVersion: /m);
  });

  it("text that is not JSON is refused, not thrown", () => {
    const parsed = parseLedgerJson("{not json");
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues[0]).toMatch(/^not JSON: /);
  });

  it("a negative cost is refused (untrusted numbers are bounded)", () => {
    const data = JSON.parse(renderLedgerJson(SUCCESS_LEDGER));
    data.rows[0].costUsd = -1;
    expect(parseLedgerJson(JSON.stringify(data)).ok).toBe(false);
  });

  it("who approved a gate is a GitHub login, a bot's name[bot] or NAME (local user): any other text is refused, so no surface posts it", () => {
    const withApprover = (login: string) =>
      renderLedgerJson({
        ...SUCCESS_LEDGER,
        rows: [
          ...SUCCESS_LEDGER.rows,
          pass("sign-off", { qualifier: "approved", approvedBy: { login, headSha: "0".repeat(40) } }),
        ],
      });
    for (const login of [
      "octocat",
      "evidence-gate-app[bot]",
      "carol (local user)",
      "Jane Doe (local user)",
    ]) {
      expect(parseLedgerJson(withApprover(login)).ok, login).toBe(true);
    }
    for (const login of [
      "@octocat (GitHub-verified maintainer)",
      "@octocat",
      "octocat (maintainer)",
      "@octocat (local user)",
      "root (local user) (local user)",
      " (local user)",
    ]) {
      const parsed = parseLedgerJson(withApprover(login));
      expect(parsed.ok, login).toBe(false);
      expect(parsed.ok ? [] : parsed.issues).toContainEqual(
        expect.stringMatching(/approvedBy\.login: not an approver the product records/),
      );
    }
  });
});
