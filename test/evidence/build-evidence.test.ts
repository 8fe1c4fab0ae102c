import { describe, expect, it } from "vitest";
import type { BuildSignal } from "../../src/core/build-evidence-answer.js";
import {
  type BuildEvidenceDecision,
  type BuildEvidenceInputs,
  decideBuildEvidence,
  MAX_NAMED_SIGNALS,
} from "../../src/evidence/build-evidence.js";
import { POLICY_FILE } from "../../src/policy/policy-file.js";

const gradle: BuildSignal = { file: "gradlew", ecosystem: "Gradle", suggestion: "./gradlew build" };
const npm: BuildSignal = { file: "package.json", ecosystem: "Node.js (npm)", suggestion: "npm test" };

function decide(overrides: Partial<BuildEvidenceInputs>): BuildEvidenceDecision {
  return decideBuildEvidence({ acceptNoBuildEvidence: false, signals: [], surface: "action", ...overrides });
}

function messageOf(decision: BuildEvidenceDecision): string {
  if (decision.kind === "answer") throw new Error(`expected a message, got ${JSON.stringify(decision)}`);
  return decision.message;
}

describe("SPEC §5 table, row by row", () => {
  it("verify-cmd given → attached, whatever the signals", () => {
    for (const signals of [[], [gradle]]) {
      expect(decide({ verifyCmd: "./gradlew build", signals })).toEqual({
        kind: "answer",
        answer: { kind: "attached", command: "./gradlew build", declaredBy: "input" },
      });
    }
  });

  it("no verify-cmd, accept-no-build-evidence, signals found → declared, carrying the signals", () => {
    expect(decide({ acceptNoBuildEvidence: true, signals: [gradle] })).toEqual({
      kind: "answer",
      answer: { kind: "declared", signals: [gradle] },
    });
  });

  it("no verify-cmd and no signals → none-detected, whether or not the operator accepted", () => {
    for (const acceptNoBuildEvidence of [false, true]) {
      expect(decide({ acceptNoBuildEvidence })).toEqual({
        kind: "answer",
        answer: { kind: "none-detected" },
      });
    }
  });

  it("no verify-cmd, no accept, signals found → refused, carrying the signals", () => {
    const decision = decide({ signals: [gradle] });
    expect(decision).toMatchObject({ kind: "refused", signals: [gradle] });
  });

  it("verify-cmd and accept-no-build-evidence together → usage error naming both inputs", () => {
    for (const signals of [[], [gradle]]) {
      const decision = decide({ verifyCmd: "make", acceptNoBuildEvidence: true, signals });
      expect(decision.kind).toBe("usage_error");
      expect(messageOf(decision)).toContain("verify-cmd");
      expect(messageOf(decision)).toContain("accept-no-build-evidence");
      expect(messageOf(decision)).toContain("pass one or the other");
    }
  });

  it("the CLI's usage error names the flags, not the inputs", () => {
    const message = messageOf(decide({ verifyCmd: "make", acceptNoBuildEvidence: true, surface: "cli" }));
    expect(message).toContain("--verify-cmd");
    expect(message).toContain("--accept-no-build-evidence");
  });
});

describe("the refusal message", () => {
  it("names each detected file and ecosystem, suggests verify-cmd, offers accept, and says nothing was spent", () => {
    const message = messageOf(decide({ signals: [gradle] }));
    expect(message).toContain("gradlew (Gradle)");
    expect(message).toContain("verify-cmd: './gradlew build'");
    expect(message).toContain("accept-no-build-evidence: true");
    expect(message).toMatch(/Nothing was run and nothing was spent/);
    expect(message).not.toContain("--verify-cmd");
  });

  it("on the CLI suggests the flags, POSIX-quoted", () => {
    const message = messageOf(decide({ signals: [npm], surface: "cli" }));
    expect(message).toContain("package.json (Node.js (npm))");
    expect(message).toContain("--verify-cmd 'npm test'");
    expect(message).toContain("--accept-no-build-evidence");
    expect(message).not.toContain("verify-cmd: ");
  });

  it("names every file when several build systems are found, and says the suggestion is a guess", () => {
    const message = messageOf(decide({ signals: [gradle, npm] }));
    expect(message).toContain("gradlew (Gradle), package.json (Node.js (npm))");
    expect(message).toContain("verify-cmd: './gradlew build'");
    expect(message).toContain("guess");
  });

  it("for a build found one folder down, names the path and offers the folder or working-directory", () => {
    const app: BuildSignal = {
      file: "packages/app/package.json",
      ecosystem: "Node.js (npm)",
      suggestion: "(cd packages/app && npm test)",
    };
    const message = messageOf(decide({ signals: [app] }));
    expect(message).toContain("Detected: packages/app/package.json (Node.js (npm)).");
    expect(message).toContain("verify-cmd: '(cd packages/app && npm test)' — the engine runs it");
    expect(message).toContain(
      "(it runs the command in packages/app, where those build files are; or set " +
        "working-directory: 'packages/app' with verify-cmd: 'npm test', which moves the whole run into that folder)",
    );
    expect(message).not.toContain("guess");
    const cli = messageOf(decide({ signals: [app], surface: "cli" }));
    expect(cli).toContain("--verify-cmd '(cd packages/app && npm test)'");
    expect(cli).toContain("--working-directory 'packages/app' with --verify-cmd 'npm test'");
    expect(cli).not.toContain("working-directory: ");
  });

  it("on the CLI, with the root known, names the folder to move the run into by its absolute path (--working-directory is resolved from --repo); the action's input stays relative to the root", () => {
    const app: BuildSignal = {
      file: "packages/app/package.json",
      ecosystem: "Node.js (npm)",
      suggestion: "(cd packages/app && npm test)",
    };
    const cli = messageOf(decide({ signals: [app], surface: "cli", repoDir: "/work/repo" }));
    expect(cli).toContain("--working-directory '/work/repo/packages/app' with --verify-cmd 'npm test'");
    const action = messageOf(decide({ signals: [app], surface: "action", repoDir: "/work/repo" }));
    expect(action).toContain("working-directory: 'packages/app' with verify-cmd: 'npm test'");
  });

  it("says nothing about folders when the suggested signal is at the top level", () => {
    const nested: BuildSignal = { file: "web/Makefile", ecosystem: "Make", suggestion: "(cd web && make)" };
    const message = messageOf(decide({ signals: [npm, nested] }));
    expect(message).toContain("verify-cmd: 'npm test'");
    expect(message).not.toContain("working-directory");
    expect(message).toContain("guess");
  });

  it("calls the pick a guess when several packages of one ecosystem are found", () => {
    const pkg = (name: string): BuildSignal => ({
      file: `packages/${name}/package.json`,
      ecosystem: "Node.js (npm)",
      suggestion: `(cd packages/${name} && npm test)`,
    });
    const message = messageOf(decide({ signals: [pkg("a"), pkg("b")] }));
    expect(message).toContain("verify-cmd: '(cd packages/a && npm test)'");
    expect(message).toContain("(the detected files suggest different commands, so this one is a guess)");
  });

  it(`names at most ${MAX_NAMED_SIGNALS} detected files and counts the rest`, () => {
    const many = Array.from(
      { length: MAX_NAMED_SIGNALS + 3 },
      (_, i): BuildSignal => ({
        file: `packages/p${i}/Makefile`,
        ecosystem: "Make",
        suggestion: `(cd packages/p${i} && make)`,
      }),
    );
    const message = messageOf(decide({ signals: many }));
    expect(MAX_NAMED_SIGNALS).toBe(12);
    expect(message).toContain(`packages/p${MAX_NAMED_SIGNALS - 1}/Makefile (Make), and 3 more.`);
    expect(message).not.toContain(`packages/p${MAX_NAMED_SIGNALS}/Makefile`);
    expect(decide({ signals: many })).toMatchObject({ kind: "refused", signals: many });
  });

  it("quotes a suggestion holding a quote so it can be pasted", () => {
    const odd: BuildSignal = { file: "Makefile", ecosystem: "Make", suggestion: "make 'check all'" };
    expect(messageOf(decide({ signals: [odd] }))).toContain("verify-cmd: 'make ''check all'''");
    expect(messageOf(decide({ signals: [odd], surface: "cli" }))).toContain(
      "--verify-cmd 'make '\\''check all'\\'''",
    );
  });
});

describe("a blank verify command would pass every time", () => {
  for (const verifyCmd of ["", "   ", "\n\t"]) {
    it(`verify-cmd ${JSON.stringify(verifyCmd)} is a usage error naming the input`, () => {
      const decision = decide({ verifyCmd, signals: [gradle] });
      expect(decision.kind).toBe("usage_error");
      expect(messageOf(decision)).toContain("verify-cmd");
      expect(messageOf(decision)).toContain("would pass every time");
    });
  }

  it("a blank policy verify-cmd is a usage error naming the policy file when it would be used", () => {
    const decision = decide({ signals: [gradle], policy: { verifyCmd: " " } });
    expect(decision.kind).toBe("usage_error");
    expect(messageOf(decision)).toContain(POLICY_FILE);
    expect(messageOf(decision)).toContain("would pass every time");
  });
});

describe("the base-branch policy file", () => {
  it("gives the verify command when the workflow gives none and does not accept → attached by policy", () => {
    expect(decide({ signals: [gradle], policy: { verifyCmd: "./gradlew check" } })).toEqual({
      kind: "answer",
      answer: { kind: "attached", command: "./gradlew check", declaredBy: "policy" },
    });
  });

  it("the workflow's verify-cmd wins over the policy's default", () => {
    expect(decide({ verifyCmd: "make", policy: { verifyCmd: "./gradlew check" } })).toEqual({
      kind: "answer",
      answer: { kind: "attached", command: "make", declaredBy: "input" },
    });
  });

  it("accepting without evidence sets the policy's default command aside → declared", () => {
    expect(decide({ acceptNoBuildEvidence: true, signals: [gradle], policy: { verifyCmd: "make" } })).toEqual(
      {
        kind: "answer",
        answer: { kind: "declared", signals: [gradle] },
      },
    );
  });

  it("require-evidence: true makes accept-no-build-evidence a usage error naming the policy file", () => {
    for (const surface of ["action", "cli"] as const) {
      const decision = decide({
        acceptNoBuildEvidence: true,
        signals: [],
        policy: { requireEvidence: true },
        surface,
      });
      expect(decision.kind).toBe("usage_error");
      expect(messageOf(decision)).toContain(POLICY_FILE);
      expect(messageOf(decision)).toContain("require-evidence: true");
      expect(messageOf(decision)).toContain(
        surface === "cli" ? "--accept-no-build-evidence" : "accept-no-build-evidence",
      );
    }
  });

  it("require-evidence: true with signals and no command still refuses (it never attaches a command)", () => {
    expect(decide({ signals: [gradle], policy: { requireEvidence: true } }).kind).toBe("refused");
  });
});
