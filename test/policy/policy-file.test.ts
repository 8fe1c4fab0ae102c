import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  autoRunPolicy,
  DEFAULT_POLICY,
  describePolicySource,
  POLICY_FILE,
  POLICY_FILE_MAX_BYTES,
  POLICY_KEYS,
  type PolicyFileResult,
  type PolicySource,
  parsePolicyFile,
  policySummary,
  readWorkingTreePolicy,
} from "../../src/policy/policy-file.js";

const BASE: PolicySource = { kind: "base-ref", ref: "main", sha: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d" };

function ok(text: string | Uint8Array, source: PolicySource = BASE) {
  const result = parsePolicyFile(text, source);
  if (!result.ok) throw new Error(`expected the policy to parse: ${result.errors.join("\n")}`);
  return result.policy;
}

function errors(text: string | Uint8Array, source: PolicySource = BASE): readonly string[] {
  const result = parsePolicyFile(text, source);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.policy)}`);
  return result.errors;
}

describe("policy file: each key", () => {
  it("an empty file, or one with only comments, is every default", () => {
    expect(ok("")).toEqual(DEFAULT_POLICY);
    expect(ok("# nothing set yet\n")).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY).toEqual({
      requireEvidence: false,
      plannedTools: [],
      allowedBots: [],
      commentCommands: true,
      requireTests: false,
      testReports: [],
    });
  });

  it("require-tests is a boolean; test-reports a list of relative patterns inside the folder (issue 25)", () => {
    expect(ok("require-tests: true\n").requireTests).toBe(true);
    expect(ok("test-reports: [reports/*.xml, 'build/test-results/**/*.xml']\n").testReports).toEqual([
      "reports/*.xml",
      "build/test-results/**/*.xml",
    ]);
    expect(errors("require-tests: yes\n")[0]).toContain(
      'require-tests must be true or false, got string "yes"',
    );
    expect(errors("test-reports: /tmp/r.xml\n")[0]).toContain("test-reports must be a list of strings");
    expect(errors("test-reports: [/tmp/r.xml]\n")[0]).toContain(
      "is absolute: give a path relative to the verify command's directory",
    );
    expect(errors("test-reports: [../x/*.xml]\n")[0]).toContain("leaves the verify command's directory");
  });

  it("require-evidence is a boolean", () => {
    expect(ok("require-evidence: true\n").requireEvidence).toBe(true);
    expect(ok("require-evidence: false\n").requireEvidence).toBe(false);
  });

  it("verify-cmd is a non-blank command string", () => {
    expect(ok("verify-cmd: npm test\n").verifyCmd).toBe("npm test");
    expect(ok("verify-cmd: |\n  npm ci\n  npm test\n").verifyCmd).toBe("npm ci\nnpm test\n");
    expect(ok("require-evidence: true\n").verifyCmd).toBeUndefined();
  });

  it("planned-tools adds scoped grants checked by extendAllowlist", () => {
    expect(ok("planned-tools:\n  - Bash(npm test *)\n  - Bash(go vet *)\n").plannedTools).toEqual([
      "Bash(npm test *)",
      "Bash(go vet *)",
    ]);
    expect(ok("planned-tools: []\n").plannedTools).toEqual([]);
  });

  it("allowed-bots is a list of logins", () => {
    expect(ok("allowed-bots:\n  - renovate[bot]\n  - dependabot[bot]\n").allowedBots).toEqual([
      "renovate[bot]",
      "dependabot[bot]",
    ]);
  });

  it("comment-commands is a boolean, default true", () => {
    expect(ok("comment-commands: false\n").commentCommands).toBe(false);
    expect(ok("comment-commands: true\n").commentCommands).toBe(true);
    expect(ok("require-evidence: true\n").commentCommands).toBe(true);
  });

  it("all keys together", () => {
    const policy = ok(
      [
        "require-evidence: true",
        "verify-cmd: ./gradlew check",
        "planned-tools: ['Bash(./gradlew test *)']",
        "allowed-bots: ['renovate[bot]']",
        "comment-commands: false",
        "require-tests: true",
        "test-reports: [build/test-results/**/*.xml]",
        "",
      ].join("\n"),
    );
    expect(policy).toEqual({
      requireEvidence: true,
      verifyCmd: "./gradlew check",
      plannedTools: ["Bash(./gradlew test *)"],
      allowedBots: ["renovate[bot]"],
      commentCommands: false,
      requireTests: true,
      testReports: ["build/test-results/**/*.xml"],
    });
    expect(policySummary(policy)).toBe(
      'require-evidence true, verify-cmd "./gradlew check", planned-tools Bash(./gradlew test *), require-tests true, test-reports build/test-results/**/*.xml',
    );
  });
});

describe("policy file: errors name the file, where it was read, and the key", () => {
  it("an unknown key is an error naming it and listing the known keys", () => {
    const found = errors("require-evidence: true\nrequire_evidence: true\nverify: make\n");
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('unknown key "require_evidence"');
    expect(found[1]).toContain('unknown key "verify"');
    for (const error of found) {
      expect(error.startsWith(`${POLICY_FILE} (base ref main, commit 1a2b3c4): `)).toBe(true);
      for (const key of POLICY_KEYS) expect(error).toContain(key);
    }
  });

  it("bad types are errors naming the key and what was found", () => {
    expect(errors("require-evidence: yes\n")).toEqual([
      expect.stringContaining('require-evidence must be true or false, got string "yes"'),
    ]);
    expect(errors('require-evidence: "true"\n')[0]).toContain("require-evidence must be true or false");
    expect(errors("comment-commands: 1\n")[0]).toContain(
      "comment-commands must be true or false, got number 1",
    );
    expect(errors("verify-cmd: 42\n")[0]).toContain("verify-cmd must be a command string, got number 42");
    expect(errors("verify-cmd:\n")[0]).toContain("verify-cmd must be a command string, got nothing (null)");
    expect(errors("verify-cmd: [npm, test]\n")[0]).toContain(
      "verify-cmd must be a command string, got a list",
    );
    expect(errors("planned-tools: Bash(npm *)\n")[0]).toContain("planned-tools must be a list of strings");
    expect(errors("planned-tools: [Read, 3]\n")[0]).toContain(
      "every entry of planned-tools must be a string, got number 3",
    );
    expect(errors("allowed-bots: {a: b}\n")[0]).toContain(
      "allowed-bots must be a list of strings, got a mapping",
    );
    expect(errors("allowed-bots: ['']\n")[0]).toContain("allowed-bots cannot hold an empty entry");
  });

  it("a blank verify-cmd is refused: it would pass every time", () => {
    expect(errors("verify-cmd: '  '\n")[0]).toContain("verify-cmd is blank");
  });

  it("every problem is reported, not only the first", () => {
    const found = errors("require-evidence: maybe\nverify-cmd: 3\nextra: 1\n");
    expect(found).toHaveLength(3);
  });

  it("the file must be a mapping", () => {
    expect(errors("- require-evidence\n")[0]).toContain("the file must hold a mapping of keys");
    expect(errors("just text\n")[0]).toContain("the file must hold a mapping of keys");
  });

  it("YAML that does not parse, or repeats a key, is an error", () => {
    expect(errors("verify-cmd: make\nrequire-evidence: [true\n")[0]).toMatch(
      /not valid YAML: .* at line 3, column 1$/,
    );
    expect(errors("require-evidence: true\nrequire-evidence: false\n")[0]).toContain("not valid YAML");
    expect(errors("a: 1\n---\nb: 2\n")[0]).toContain("not valid YAML");
  });

  it("a file over 64 KiB is refused unparsed; one at the limit is read", () => {
    const padding = `# ${"x".repeat(POLICY_FILE_MAX_BYTES)}\n`;
    expect(errors(`require-evidence: true\n${padding}`)[0]).toContain(
      `a policy file may be at most ${POLICY_FILE_MAX_BYTES} bytes`,
    );
    const line = "require-evidence: true\n";
    const exact = `${line}#${"x".repeat(POLICY_FILE_MAX_BYTES - line.length - 2)}\n`;
    expect(Buffer.byteLength(exact)).toBe(POLICY_FILE_MAX_BYTES);
    expect(ok(exact).requireEvidence).toBe(true);
  });

  it("bytes that are not UTF-8 are refused", () => {
    expect(errors(Uint8Array.from([0x72, 0x3a, 0x20, 0xff, 0xfe, 0x0a]))[0]).toContain("not valid UTF-8");
  });
});

describe("policy file: planned-tools refusals (extendAllowlist)", () => {
  it.each([
    ["Bash", "bare Bash grants every shell command"],
    ["Bash(*)", "grants every shell command, exactly like bare Bash"],
    ["Bash(sh -c *)", "starts with sh"],
    ["WebFetch", "reaches the network"],
    ["WebSearch(*)", "reaches the network"],
    ["mcp__github__create_issue", "MCP tools are never granted"],
    ["Skill", "Skill would let the plan choose"],
    ["Read, Write", "cannot contain a comma"],
  ])("%s is refused, naming the entry and the reason", (entry, reason) => {
    const found = errors(`planned-tools:\n  - ${JSON.stringify(entry)}\n`);
    expect(found).toEqual([expect.stringContaining(`planned-tools entry ${JSON.stringify(entry)}: `)]);
    expect(found[0]).toContain(reason);
  });

  it("one refused entry refuses the file, and every refused entry is named", () => {
    const found = errors("planned-tools: ['Bash(npm test *)', Bash, WebFetch]\n");
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('"Bash"');
    expect(found[1]).toContain('"WebFetch"');
  });
});

describe("policy source words", () => {
  it("name the base ref and commit, the working tree, or no file", () => {
    expect(describePolicySource(BASE)).toBe(`${POLICY_FILE} (base ref main, commit 1a2b3c4)`);
    expect(describePolicySource({ kind: "base-ref", ref: "main" })).toBe(`${POLICY_FILE} (base ref main)`);
    expect(describePolicySource({ kind: "working-tree", path: "/r/.github/evidence-gate.yml" })).toBe(
      `${POLICY_FILE} (working tree)`,
    );
    expect(describePolicySource({ kind: "none" })).toBe(`no ${POLICY_FILE}`);
  });

  it("autoRunPolicy gives runAuto the values and the source; nothing without a file", () => {
    const parsed = parsePolicyFile("require-evidence: true\nverify-cmd: make check\n", BASE) as Extract<
      PolicyFileResult,
      { ok: true }
    >;
    expect(autoRunPolicy(parsed)).toEqual({
      requireEvidence: true,
      verifyCmd: "make check",
      plannedTools: [],
      requireTests: false,
      testReports: [],
      source: `${POLICY_FILE} (base ref main, commit 1a2b3c4)`,
    });
    expect(autoRunPolicy({ ok: true, policy: DEFAULT_POLICY, source: { kind: "none" } })).toBeUndefined();
  });
});

describe("readWorkingTreePolicy (the CLI)", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const repo = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "eg-policy-"));
    dirs.push(dir);
    return dir;
  };

  it("no file: the defaults, source none", async () => {
    expect(await readWorkingTreePolicy(repo())).toEqual({
      ok: true,
      policy: DEFAULT_POLICY,
      source: { kind: "none" },
    });
  });

  it("reads <repo>/.github/evidence-gate.yml, source working-tree", async () => {
    const dir = repo();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "evidence-gate.yml"), "require-evidence: true\n");
    const result = await readWorkingTreePolicy(dir);
    expect(result).toMatchObject({
      ok: true,
      policy: { requireEvidence: true },
      source: { kind: "working-tree", path: join(dir, ".github", "evidence-gate.yml") },
    });
  });

  it("an oversize file is refused without reading it all; a directory in its place is an error", async () => {
    const dir = repo();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "evidence-gate.yml"), `# ${"x".repeat(POLICY_FILE_MAX_BYTES * 4)}\n`);
    const big = await readWorkingTreePolicy(dir);
    expect(big.ok).toBe(false);
    expect(!big.ok && big.errors[0]).toContain(`at most ${POLICY_FILE_MAX_BYTES} bytes`);

    const other = repo();
    mkdirSync(join(other, ".github", "evidence-gate.yml"), { recursive: true });
    const folder = await readWorkingTreePolicy(other);
    expect(folder.ok).toBe(false);
    expect(!folder.ok && folder.errors[0]).toContain("is not a regular file");
  });

  it("an unknown key names the key and the working tree", async () => {
    const dir = repo();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "evidence-gate.yml"), "requires-evidence: true\n");
    const result = await readWorkingTreePolicy(dir);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      expect.stringMatching(
        /^\.github\/evidence-gate\.yml \(working tree\): unknown key "requires-evidence"/,
      ),
    ]);
  });
});
