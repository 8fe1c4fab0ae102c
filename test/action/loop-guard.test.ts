/**
 * The loop guard's trailer reading (SPEC §10 "Push"): `Evidence-Gate-Run: <run id>` counts only as a trailer
 * — a line of the message's last paragraph, after the subject — as `git interpret-trailers` reads it.
 */
import { describe, expect, it } from "vitest";
import { runTrailerOf } from "../../src/pull-request/loop-guard.js";

describe("runTrailerOf", () => {
  it("finds the run id in the last paragraph, among other trailers, key case-insensitive, CRLF or LF", () => {
    expect(runTrailerOf("evidence-gate: fix sum\n\nEvidence-Gate-Run: 20260101-000000-abcdef\n")).toBe(
      "20260101-000000-abcdef",
    );
    expect(
      runTrailerOf(
        "fix\n\nbody text\n\nCo-Authored-By: A <a@b>\r\nevidence-gate-run: 20260101-000000-abcdef\r\n",
      ),
    ).toBe("20260101-000000-abcdef");
  });

  it("a subject line, a body paragraph that is not the last, or a different key is not the trailer", () => {
    expect(runTrailerOf("Evidence-Gate-Run: 20260101-000000-abcdef")).toBeNull();
    expect(
      runTrailerOf("fix\n\nEvidence-Gate-Run: 20260101-000000-abcdef\n\nSigned-off-by: A <a@b>"),
    ).toBeNull();
    expect(runTrailerOf("fix\n\nEvidence-Gate-Runs: 20260101-000000-abcdef")).toBeNull();
    expect(runTrailerOf("fix\n\nsee Evidence-Gate-Run: 20260101-000000-abcdef")).toBeNull();
  });
});
