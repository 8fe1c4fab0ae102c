/**
 * `verify-base` and `test-reports` as each surface takes them (issue 25 items 1 and 3; ADR 0017): the CLI's
 * `--verify-base`, `--base REF` and `--test-reports GLOBS` (run and verify), the action's `verify-base` and
 * `test-reports` inputs, and the policy key `verify-base` — each bad value refused with the flag or input
 * named and the fix.
 */
import { describe, expect, test } from "vitest";
import { readActionInputs } from "../../src/action/inputs.js";
import { parseRunFlags } from "../../src/cli/parse-run-flags.js";
import { parseVerifyFlags } from "../../src/cli/verify-command.js";
import { parsePolicyFile, policySummary } from "../../src/policy/policy-file.js";

const SOURCE = { kind: "base-ref", ref: "main", sha: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d" } as const;

describe("the CLI flags", () => {
  test("run: --verify-base, --base REF and --test-reports parse; absent, verify-base is off", () => {
    const parsed = parseRunFlags([
      "g.yml",
      "--verify-base",
      "--base",
      "origin/main",
      "--test-reports",
      "reports/*.xml, tap/out.tap",
    ]);
    expect(parsed.ok && parsed.flags).toMatchObject({
      verifyBase: true,
      baseRef: "origin/main",
      testReports: ["reports/*.xml", "tap/out.tap"],
    });
    const plain = parseRunFlags(["g.yml"]);
    expect(plain.ok && plain.flags.verifyBase).toBe(false);
    expect(plain.ok && plain.flags).not.toHaveProperty("baseRef");
  });

  test("verify takes them too", () => {
    const parsed = parseVerifyFlags(["--verify-cmd", "npm test", "--verify-base"]);
    expect(parsed.ok && parsed.flags.verifyBase).toBe(true);
  });

  test("--base without --verify-base, a --base that is not a ref, a test-reports glob outside the folder: refused by name", () => {
    const errorsOf = (argv: string[]) => {
      const parsed = parseRunFlags(argv);
      return parsed.ok ? "" : parsed.errors.join("\n");
    };
    expect(errorsOf(["g.yml", "--base", "main"])).toContain("give --verify-base too");
    expect(errorsOf(["g.yml", "--verify-base", "--base=-x"])).toContain('--base "-x" is not a ref');
    expect(errorsOf(["g.yml", "--test-reports", "../r.xml"])).toContain("--test-reports: test-reports entry");
  });
});

describe("the action's inputs", () => {
  const read = (inputs: Record<string, string>) =>
    readActionInputs(
      Object.fromEntries(
        Object.entries({ "github-token": "ghs_x", goal: "g", ...inputs }).map(([k, v]) => [
          `INPUT_${k.toUpperCase()}`,
          v,
        ]),
      ),
    );

  test("verify-base: true and test-reports lines parse; the defaults leave both off", () => {
    const parsed = read({ "verify-base": "true", "test-reports": "reports/*.xml\nother/*.tap" });
    expect(parsed.ok && parsed.inputs).toMatchObject({
      verifyBase: true,
      testReports: ["reports/*.xml", "other/*.tap"],
    });
    const plain = read({ "verify-base": "false", "test-reports": "" });
    expect(plain.ok && plain.inputs).not.toHaveProperty("verifyBase");
    expect(plain.ok && plain.inputs).not.toHaveProperty("testReports");
  });

  test("a bad value names the input", () => {
    const bad = read({ "verify-base": "yes", "test-reports": "/abs/*.xml" });
    expect(bad.ok).toBe(false);
    const words = bad.ok ? "" : bad.errors.join("\n");
    expect(words).toContain("verify-base");
    expect(words).toContain("input `test-reports`: test-reports entry");
  });
});

describe("the policy key", () => {
  test("verify-base: true is read and summarised; a string is refused", () => {
    const parsed = parsePolicyFile("verify-base: true\n", SOURCE);
    expect(parsed.ok && parsed.policy.verifyBase).toBe(true);
    expect(parsed.ok && policySummary(parsed.policy)).toContain("verify-base true");
    const off = parsePolicyFile("verify-base: false\n", SOURCE);
    expect(off.ok && off.policy).not.toHaveProperty("verifyBase");
    const bad = parsePolicyFile("verify-base: yes\n", SOURCE);
    expect(bad.ok).toBe(false);
  });
});
