import { describe, expect, it } from "vitest";
import { type QualifierInput, qualifierFor } from "../../src/evidence/qualifier.js";

const nothing: QualifierInput = {
  gateApproved: false,
  verifyRan: null,
  resultMatchesChecked: false,
  exitZeroChecked: false,
};

describe("qualifierFor (SPEC §6 order: approved > verified > self-reported > exit-only)", () => {
  it("a gate a person released is approved, even when every weaker check also ran", () => {
    expect(
      qualifierFor({
        gateApproved: true,
        verifyRan: { passed: true },
        resultMatchesChecked: true,
        exitZeroChecked: true,
      }),
    ).toBe("approved");
  });

  it("an engine-run verify that passed is verified, and beats a matched reply", () => {
    expect(qualifierFor({ ...nothing, verifyRan: { passed: true }, resultMatchesChecked: true })).toBe(
      "verified",
    );
    expect(qualifierFor({ ...nothing, verifyRan: { passed: true }, exitZeroChecked: true })).toBe("verified");
  });

  it("a pattern over the node's own reply is only self-reported, never verified (seed 003)", () => {
    expect(qualifierFor({ ...nothing, resultMatchesChecked: true, exitZeroChecked: true })).toBe(
      "self-reported",
    );
  });

  it("a process that exited 0 with nothing more asked is exit-only", () => {
    expect(qualifierFor({ ...nothing, exitZeroChecked: true })).toBe("exit-only");
    expect(qualifierFor(nothing)).toBe("exit-only");
  });

  it("a PASS cannot be qualified when its verify command failed: that execution is a FAIL", () => {
    expect(() =>
      qualifierFor({ ...nothing, verifyRan: { passed: false }, resultMatchesChecked: true }),
    ).toThrow(/Internal error: a PASS was qualified although its verify command failed/);
  });
});
