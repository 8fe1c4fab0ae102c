import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { FAILURE_LEDGER, NEUTRAL_LEDGER, SUCCESS_LEDGER } from "./fixtures.js";

/**
 * Rendered fixtures committed as reviewable goldens: a change to a renderer shows up as a plain diff of
 * these files. The `.golden` suffix keeps the formatter (Biome formats Markdown tables) from rewriting
 * them. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/ledger/golden.test.ts`, then read the diff.
 */
const UPDATE = process.env.UPDATE_GOLDEN === "1";
const GOLDEN_DIR = fileURLToPath(new URL("./__golden__/", import.meta.url));

const FIXTURES: readonly { readonly name: string; readonly ledger: Ledger }[] = [
  { name: "success-verified", ledger: SUCCESS_LEDGER },
  { name: "failure-verify-failed", ledger: FAILURE_LEDGER },
  { name: "neutral-none-detected", ledger: NEUTRAL_LEDGER },
];

const RENDERERS = [
  { ext: "md", render: renderLedgerMarkdown },
  { ext: "txt", render: renderLedgerText },
] as const;

describe("rendered ledgers match their committed goldens", () => {
  for (const { name, ledger } of FIXTURES) {
    for (const { ext, render } of RENDERERS) {
      it(`${name}.${ext} renders exactly as committed`, () => {
        const path = `${GOLDEN_DIR}${name}.${ext}.golden`;
        const rendered = render(ledger);
        if (UPDATE) writeFileSync(path, rendered);
        expect(existsSync(path), `missing golden ${path}; run with UPDATE_GOLDEN=1`).toBe(true);
        expect(rendered).toBe(readFileSync(path, "utf8"));
      });
    }
  }

  it("the fixtures conclude success, failure and neutral, as their names say", () => {
    expect(SUCCESS_LEDGER.conclusion?.conclusion).toBe("success");
    expect(FAILURE_LEDGER.conclusion?.conclusion).toBe("failure");
    expect(NEUTRAL_LEDGER.conclusion?.conclusion).toBe("neutral");
  });
});
