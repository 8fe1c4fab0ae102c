/**
 * The push inputs (SPEC §10 "Push", §11): `push` (bool, default false) and `push-token` (optional) are read
 * into the typed inputs for `auto` and `run`, and refused by name where they cannot apply.
 */
import { describe, expect, it } from "vitest";
import { readActionInputs } from "../../src/action/inputs.js";

function env(inputs: Record<string, string>): Record<string, string> {
  const all = { "github-token": "ghs_x", ...inputs };
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
}

describe("inputs push and push-token", () => {
  it("default off, with no push token; true with a token in auto and run", () => {
    const off = readActionInputs(env({ goal: "g" }));
    expect(off.ok && off.inputs.push).toBe(false);
    expect(off.ok && off.inputs.pushToken).toBeUndefined();
    for (const mode of [{ goal: "g" }, { graph: "g.yml" }] as Record<string, string>[]) {
      const on = readActionInputs(env({ ...mode, push: "true", "push-token": "ghp_app" }));
      expect(on).toMatchObject({ ok: true, inputs: { push: true, pushToken: "ghp_app" } });
    }
  });

  it("a push value that is not a boolean, and a push-token without push, are refused naming the input", () => {
    expect(readActionInputs(env({ goal: "g", push: "yes" }))).toEqual({
      ok: false,
      errors: ['input `push` is "yes": use true or false'],
    });
    expect(readActionInputs(env({ goal: "g", "push-token": "ghp_app" }))).toEqual({
      ok: false,
      errors: ["input `push-token` is only used with `push: true`: set `push: true` or drop `push-token`"],
    });
  });

  it("lint and resume refuse push and push-token by name", () => {
    const lint = readActionInputs(env({ mode: "lint", graph: "g.yml", push: "true", "push-token": "t" }));
    expect(lint.ok).toBe(false);
    expect(!lint.ok && lint.errors).toEqual([
      "input `push` does not apply to mode lint: lint only reads the graph file: nothing runs; drop it",
      "input `push-token` does not apply to mode lint: lint only reads the graph file: nothing runs; drop it",
    ]);
    const resume = readActionInputs(
      env({
        mode: "resume",
        "resume-run-id": "20260101-000000-abcdef",
        "retry-failed": "true",
        push: "true",
      }),
    );
    expect(!resume.ok && resume.errors).toEqual([
      "input `push` does not apply to mode resume: a resumed leg does not push in this version; drop it",
    ]);
  });
});
