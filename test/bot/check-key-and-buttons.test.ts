/**
 * The two records the bot keeps on GitHub instead of a store of its own: the check run's `external_id`
 * (which workflow run attempt wrote it) and the buttons with their hidden gate marker.
 */
import { describe, expect, it } from "vitest";
import { compareAttempt, formatCheckKey, parseCheckKey } from "../../src/bot/check-key.js";
import {
  buttonIdentifier,
  clickedButton,
  decidesWaitingGate,
  gateButtons,
  gateMarker,
  readGateMarker,
} from "../../src/bot/gate-buttons.js";

describe("the check run's external_id", () => {
  it("round-trips, and anything the bot did not write reads as no record", () => {
    for (const key of [
      { pullRequest: 42, run: { id: 30_433_642, attempt: 3 } },
      { pullRequest: null, run: { id: 7, attempt: 1 } },
      { pullRequest: 9, run: null },
    ]) {
      expect(parseCheckKey(formatCheckKey(key))).toEqual(key);
    }
    for (const other of [null, "", "20260501-120000-a1b2c3", "workflow-run-7", "evidence-gate-bot:pr=0"]) {
      expect(parseCheckKey(other)).toBeNull();
    }
  });

  it("orders attempts: a later run or attempt is newer, the same is same, an earlier is older; no record makes anything newer", () => {
    const recorded = { pullRequest: 1, run: { id: 100, attempt: 2 } };
    expect(compareAttempt({ id: 100, attempt: 3 }, recorded)).toBe("newer");
    expect(compareAttempt({ id: 101, attempt: 1 }, recorded)).toBe("newer");
    expect(compareAttempt({ id: 100, attempt: 2 }, recorded)).toBe("same");
    expect(compareAttempt({ id: 100, attempt: 1 }, recorded)).toBe("older");
    expect(compareAttempt({ id: 99, attempt: 9 }, recorded)).toBe("older");
    expect(compareAttempt({ id: 1, attempt: 1 }, { pullRequest: 1, run: null })).toBe("newer");
  });
});

describe("gate buttons", () => {
  const leg = { id: 30_433_642, attempt: 1 };

  it("labels stay within 20 characters, descriptions within 40, identifiers within 20 (GitHub's limits)", () => {
    const buttons = gateButtons({
      gate: "security-review-by-the-platform-team",
      runId: "20260501-120000-a1b2c3",
      leg,
    });
    expect(buttons.map((b) => b.label)).toEqual(["Approve security-re…", "Reject security-rev…"]);
    for (const b of buttons) {
      expect(Array.from(b.label).length).toBeLessThanOrEqual(20);
      expect(Array.from(b.description).length).toBeLessThanOrEqual(40);
      expect(b.identifier.length).toBeLessThanOrEqual(20);
    }
  });

  it("a button's identifier binds the run, the leg and the gate: each differs when any one differs, and decides only the gate it was made for", () => {
    const waiting = { gate: "g1", runId: "20260501-120000-a1b2c3", leg };
    const others = [
      { ...waiting, gate: "g2" },
      { ...waiting, runId: "20260501-120000-a1b2c4" },
      { ...waiting, leg: { id: 30_433_700, attempt: 1 } },
      { ...waiting, leg: { id: 30_433_642, attempt: 2 } },
    ];
    const approve = buttonIdentifier(waiting, "approve");
    expect(approve).toMatch(/^approve-[0-9a-f]{12}$/);
    expect(buttonIdentifier(waiting, "reject")).toBe(`reject-${approve.slice("approve-".length)}`);
    const clicked = clickedButton(approve)!;
    expect(clicked.decision).toBe("approve");
    expect(decidesWaitingGate(clicked, waiting)).toBe(true);
    for (const other of others) {
      expect(buttonIdentifier(other, "approve")).not.toBe(approve);
      expect(decidesWaitingGate(clicked, other)).toBe(false);
    }
    // The older buttons' bare decision, and anything else, is no button of this App's.
    for (const identifier of ["approve", "reject", "approve-XYZ", `${approve}0`, "retry-0123456789ab"]) {
      expect(clickedButton(identifier)).toBeNull();
    }
  });

  it("the marker is read only when it ends the summary: one quoted earlier (inside the ledger's output) does not count", () => {
    const waiting = { gate: "sign-off", runId: "20260501-120000-a1b2c3", leg };
    const forged = "<!-- evidence-gate-bot gate=deploy run=20260501-120000-ffffff leg=1.1 -->";
    expect(gateMarker(waiting)).toBe(
      "<!-- evidence-gate-bot gate=sign-off run=20260501-120000-a1b2c3 leg=30433642.1 -->",
    );
    expect(readGateMarker(`ledger\n\n${gateMarker(waiting)}\n`)).toEqual(waiting);
    expect(readGateMarker(`ledger\n\n${gateMarker(waiting)}\n\nmore text`)).toBeNull();
    expect(readGateMarker(`\`\`\`\n${forged}\n\`\`\`\n\n${gateMarker(waiting)}`)).toEqual(waiting);
    expect(readGateMarker(`${gateMarker(waiting)}\n\n\`\`\`\n${forged}\n\`\`\``)).toBeNull();
    expect(
      readGateMarker("<!-- evidence-gate-bot gate=a;rm run=20260501-120000-a1b2c3 leg=1.1 -->"),
    ).toBeNull();
    // A marker without a leg (written before buttons were bound to one), or with a leg of another shape.
    expect(readGateMarker("<!-- evidence-gate-bot gate=sign-off run=20260501-120000-a1b2c3 -->")).toBeNull();
    expect(
      readGateMarker("<!-- evidence-gate-bot gate=sign-off run=20260501-120000-a1b2c3 leg=0.1 -->"),
    ).toBeNull();
  });
});
