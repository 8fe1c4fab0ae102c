/**
 * `ledgerProblem` (src/github/workflow-run-ledger.ts): why a schema-valid ledger from a pull request's
 * workflow run is still not that run's verdict — the rule both stage-2 posters (the action's `mode: report`
 * and the bot) follow before posting (SPEC §6, §10). test/e2e/action-report.test.ts runs `mode: report`
 * through `node dist/index.js` on a refused ledger (not the schema) and on valid ones; the bot's tests
 * (test/bot/two-stage.test.ts) post from and refuse ledgers through the same rule.
 */
import { describe, expect, it } from "vitest";
import { ledgerProblem } from "../../src/github/workflow-run-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const OTHER = "fedcba9876543210fedcba9876543210fedcba98";

describe("ledgerProblem", () => {
  it("a finished ledger about the run's head whose success its own rows decide is the verdict", () => {
    expect(ledgerProblem({ ...SUCCESS_LEDGER, headSha: HEAD }, { headSha: HEAD })).toBeNull();
    expect(ledgerProblem({ ...FAILURE_LEDGER, headSha: HEAD }, { headSha: HEAD })).toBeNull();
  });

  it("a ledger about another head commit is refused: it cannot be replayed onto a commit it is not about", () => {
    expect(ledgerProblem({ ...SUCCESS_LEDGER, headSha: OTHER }, { headSha: HEAD })).toBe(
      `the ledger is about head commit ${OTHER}, but the workflow run's head commit is ${HEAD}`,
    );
    const { headSha: _none, ...headless } = SUCCESS_LEDGER;
    expect(ledgerProblem(headless as Ledger, { headSha: HEAD })).toBe(
      `the ledger names no head commit, so it cannot be tied to ${HEAD}`,
    );
  });

  it("a conclusion flipped to success while the rows say FAIL is refused, naming what the rows decide", () => {
    const flipped: Ledger = {
      ...FAILURE_LEDGER,
      headSha: HEAD,
      conclusion: { ...SUCCESS_LEDGER.conclusion!, title: "all good" },
    };
    expect(ledgerProblem(flipped, { headSha: HEAD })).toMatch(
      /^the ledger claims success, but its own rows decide failure \(/,
    );
  });

  it("an unfinished ledger (no conclusion) is refused", () => {
    expect(ledgerProblem({ ...SUCCESS_LEDGER, headSha: HEAD, conclusion: null }, { headSha: HEAD })).toBe(
      "the ledger is unfinished (it has no conclusion)",
    );
  });
});
