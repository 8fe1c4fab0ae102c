import { describe, expect, it } from "vitest";
import { extractPlanJson, MAX_PLAN_REPLY_BYTES } from "../../src/plan/parse-plan.js";

describe("extractPlanJson", () => {
  it("takes the object from the first { to the last }, tolerating a code fence and prose around it", () => {
    const reply = 'Here is the plan:\n```json\n{"name": "x", "nodes": [{"id": "a"}]}\n```\nDone.';
    expect(extractPlanJson(reply)).toEqual({ ok: true, value: { name: "x", nodes: [{ id: "a" }] } });
  });

  it("fails as no_json, not repairable, when the reply holds no object", () => {
    expect(extractPlanJson("I could not plan this.")).toEqual({
      ok: false,
      kind: "no_json",
      repairable: false,
      message: "the planner reply holds no JSON object",
      excerpt: "I could not plan this.",
    });
  });

  it("fails as no_json when the only closing brace comes before the opening one", () => {
    const result = extractPlanJson("} then {");
    expect(result.ok === false && result.kind).toBe("no_json");
  });

  it("fails loudly as undecodable, not repairable, when braces in prose break the slice", () => {
    const result = extractPlanJson('Plan {"name": "x"} and {see notes}');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("undecodable");
    expect(result.repairable).toBe(false);
    expect(result.message).toMatch(
      /^the planner reply's text from the first "\{" to the last "\}" is not valid JSON \(/,
    );
  });

  it("keeps at most 500 bytes of the raw reply as the excerpt", () => {
    const result = extractPlanJson(`${"é".repeat(400)} no json`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.excerpt).toBe(`${"é".repeat(250)}…`);
  });

  it("refuses a reply over the size limit as undecodable without parsing it", () => {
    const result = extractPlanJson(`{"x": "${"a".repeat(MAX_PLAN_REPLY_BYTES)}"}`);
    expect(result.ok === false && result.kind).toBe("undecodable");
    expect(result.ok === false && result.message).toBe(
      `the planner reply is ${MAX_PLAN_REPLY_BYTES + 9} bytes, over the ${MAX_PLAN_REPLY_BYTES}-byte limit`,
    );
  });
});
