/**
 * The verify-definition classifier (`src/evidence/verify-definition.ts`): each of its rules flags what it
 * names, and what a normal change does (a dependency bump, a new test file, a source edit) is not flagged.
 * Pure; the git side (`changed-files.ts`) is covered against a real repository at the end.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { changedFilesRecord, parseNameStatus } from "../../src/evidence/changed-files.js";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { SIGNAL_NAMES } from "../../src/evidence/signal-rules.js";
import { commandFiles } from "../../src/evidence/verify-command-files.js";
import {
  addedLinesByFile,
  isDefinitionFile,
  isTestPath,
  packageJsonKeysChanged,
  packageJsonPaths,
  removedLineCountsByFile,
} from "../../src/evidence/verify-definition.js";
import { hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { classify, modified } from "./classify.js";

const pkg = (fields: Record<string, unknown>): string =>
  `${JSON.stringify({ name: "sample", version: "1.0.0", ...fields }, null, 2)}\n`;

// The markers as the test files under judgement hold them, spelled in parts so that this file itself holds
// no focused or skipped test call for a reader (or a linter) to take for one.
const SKIP = [".", "skip("].join("");
const ONLY = [".", "only("].join("");
const XIT = ["x", "it("].join("");
const XDESCRIBE = ["x", "describe("].join("");

describe("rule 1: package.json scripts and test-runner keys, compared as parsed JSON", () => {
  it("flags a script changed, added or removed, naming each key", () => {
    const base = pkg({ scripts: { test: "vitest run", lint: "biome ci ." } });
    const final = pkg({ scripts: { test: "true", build: "tsc" } });
    expect(packageJsonKeysChanged({ base, final })).toEqual([
      "scripts.build",
      "scripts.lint",
      "scripts.test",
    ]);
    const flagged = classify({
      changes: [modified("package.json")],
      packageJsons: new Map([["package.json", { base, final }]]),
    });
    expect(flagged).toEqual([
      {
        path: "package.json",
        kind: "package-scripts",
        detail: "scripts.build, scripts.lint, scripts.test changed",
        keys: ["scripts.build", "scripts.lint", "scripts.test"],
      },
    ]);
  });

  it("flags a test-runner key (jest, mocha, ava, vitest, c8, nyc) changed", () => {
    const base = pkg({ scripts: { test: "jest" }, jest: { testMatch: ["**/*.test.js"] } });
    const final = pkg({ scripts: { test: "jest" }, jest: { testMatch: [] }, nyc: { all: true } });
    expect(packageJsonKeysChanged({ base, final })).toEqual(["jest", "nyc"]);
  });

  it("does not flag a dependency bump, a version or description change, reformatting or key order", () => {
    const base = pkg({ scripts: { test: "node --test", lint: "x" }, dependencies: { a: "1.0.0" } });
    const final = `${JSON.stringify({
      version: "1.1.0",
      description: "new words",
      name: "sample",
      dependencies: { a: "2.0.0", b: "1.0.0" },
      scripts: { lint: "x", test: "node --test" },
    })}\n`;
    expect(packageJsonKeysChanged({ base, final })).toEqual([]);
    expect(
      classify({
        changes: [modified("package.json")],
        packageJsons: new Map([["package.json", { base, final }]]),
      }),
    ).toEqual([]);
  });

  it("a package.json added with scripts, deleted, or not valid JSON is flagged; one without scripts added is not", () => {
    const withScripts = pkg({ scripts: { test: "vitest" } });
    expect(packageJsonKeysChanged({ base: null, final: withScripts })).toEqual(["scripts.test"]);
    expect(packageJsonKeysChanged({ base: withScripts, final: null })).toEqual(["scripts.test"]);
    expect(packageJsonKeysChanged({ base: withScripts, final: "{ not json" })).toEqual([
      "package.json (not valid JSON)",
    ]);
    expect(packageJsonKeysChanged({ base: null, final: pkg({}) })).toEqual([]);
    expect(packageJsonKeysChanged({ base: null, final: null, unread: true })).toEqual([
      "package.json (not compared: too many package.json files changed)",
    ]);
  });

  it("compares the sides git has: a nested package's, a rename away; never one under node_modules or a hidden folder", () => {
    expect(packageJsonPaths(modified("packages/app/package.json"))).toEqual({
      base: "packages/app/package.json",
      final: "packages/app/package.json",
    });
    expect(packageJsonPaths({ path: "package.json.bak", status: "renamed", from: "package.json" })).toEqual({
      base: "package.json",
    });
    expect(packageJsonPaths({ path: "package.json", status: "added" })).toEqual({ final: "package.json" });
    expect(packageJsonPaths(modified("node_modules/x/package.json"))).toEqual({});
    expect(packageJsonPaths(modified(".cache/package.json"))).toEqual({});
    expect(packageJsonPaths(modified("src/index.js"))).toEqual({});
  });
});

describe("rule 2: build and test-runner definition files, any change", () => {
  it.each([
    "Makefile",
    "GNUmakefile",
    "makefile",
    "ci/rules.mk",
    "justfile",
    "Taskfile.yml",
    "Taskfile.yaml",
    "jest.config.js",
    "vitest.config.ts",
    "vitest.workspace.ts",
    "packages/web/vite.config.mjs",
    ".mocharc.yml",
    "karma.conf.js",
    "playwright.config.ts",
    "cypress.config.ts",
    "pytest.ini",
    "tox.ini",
    "noxfile.py",
    "tests/conftest.py",
    "setup.cfg",
    "CMakeLists.txt",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle.kts",
    "pom.xml",
    "pyproject.toml",
  ])("%s is a definition file", (path) => {
    expect(isDefinitionFile(path)).toBe(true);
    // conftest.py says what it holds (pytest's fixtures: what the tests compare against; test-data.test.ts).
    const detail = path.endsWith("conftest.py")
      ? "pytest's conftest.py (the fixtures and hooks the tests under its folder use, what they compare against), a test-runner definition file, modified"
      : "a build or test-runner definition file, modified";
    expect(classify({ changes: [modified(path)] })).toEqual([{ path, kind: "definition-file", detail }]);
  });

  it("a source file, a README, a lockfile, or a Makefile under node_modules is not", () => {
    for (const path of ["src/sum.js", "README.md", "package-lock.json", "node_modules/x/Makefile"]) {
      expect(isDefinitionFile(path)).toBe(false);
    }
    expect(classify({ changes: [modified("src/sum.js"), modified("README.md")] })).toEqual([]);
  });

  it("spells the task-runner and test-runner names the build-signal table shares the same way", () => {
    const shared = [
      "Makefile",
      "GNUmakefile",
      "makefile",
      "justfile",
      "Justfile",
      ".justfile",
      "Taskfile.yml",
      "Taskfile.yaml",
      "taskfile.yml",
      "taskfile.yaml",
      "Rakefile",
      "build.xml",
      "meson.build",
      "pytest.ini",
      "tox.ini",
      "noxfile.py",
      "setup.cfg",
      "CMakeLists.txt",
      "build.gradle",
      "build.gradle.kts",
      "settings.gradle",
      "settings.gradle.kts",
      "pom.xml",
      "pyproject.toml",
    ];
    for (const name of shared) {
      expect(SIGNAL_NAMES, name).toContain(name);
      expect(isDefinitionFile(name), name).toBe(true);
    }
  });
});

describe("rule 3: files the verify command names", () => {
  it("finds the files a command runs: the program as a path, an interpreter's script, a file option's value", () => {
    expect(
      commandFiles(`bash "test.sh" && make -f ci.mk; CI=1 ./scripts/ci.sh --config=ci/x.json|tee out.log`),
    ).toEqual(["test.sh", "ci.mk", "./scripts/ci.sh", "ci/x.json"]);
    expect(commandFiles("env FOO=1 node --test && python3 -m pytest -c pytest.ini")).toEqual([
      "pytest",
      "pytest.ini",
    ]);
  });

  it("a file the command only reads as data is not one it runs", () => {
    expect(commandFiles("grep -q 'the nodes wrote this' notes.txt")).toEqual([]);
    expect(commandFiles("cat step.txt; grep -qx three step.txt")).toEqual([]);
    expect(commandFiles("test -f README.md && npm test")).toEqual([]);
    expect(
      classify({
        changes: [modified("notes.txt")],
        verifyCommands: [{ command: "grep -q x notes.txt", cwd: "" }],
      }),
    ).toEqual([]);
  });

  it("flags a changed file of the starting tree a token names, resolved against the command's folder; an added one is not", () => {
    const flagged = classify({
      changes: [
        modified("scripts/ci.sh"),
        { path: "pkg/test.sh", status: "deleted" },
        { path: "report.md", status: "added" },
        modified("src/a.js"),
      ],
      verifyCommands: [
        { command: "./scripts/ci.sh", cwd: "" },
        { command: "bash test.sh", cwd: "pkg" },
        { command: "test -f report.md", cwd: "" },
      ],
    });
    expect(flagged).toEqual([
      {
        path: "scripts/ci.sh",
        kind: "named-by-verify",
        detail: 'named by the verify command "./scripts/ci.sh", modified',
      },
      {
        path: "pkg/test.sh",
        kind: "named-by-verify",
        detail: 'named by the verify command "bash test.sh", deleted',
      },
    ]);
  });

  it("a word that is no changed path, or leaves the repository, flags nothing", () => {
    expect(
      classify({
        changes: [modified("test.sh")],
        verifyCommands: [{ command: "bash ../test.sh /abs/test.sh $X", cwd: "" }],
      }),
    ).toEqual([]);
    // From a sub-folder, `../test.sh` is the root's test.sh: named.
    expect(
      classify({
        changes: [modified("test.sh")],
        verifyCommands: [{ command: "bash ../test.sh", cwd: "sub" }],
      }),
    ).toHaveLength(1);
  });
});

describe("rule 4: test files deleted or renamed away", () => {
  it.each([
    "src/sum.test.ts",
    "web/app.spec.js",
    "pkg/sum_test.go",
    "test_sum.py",
    "sum_test.py",
    "test/helpers.js",
    "a/tests/data.json",
    "src/__tests__/x.js",
    "spec/models/user_spec.rb",
  ])("%s is a test path", (path) => {
    expect(isTestPath(path)).toBe(true);
  });

  it("flags a deleted test file and a renamed one; a source file deleted is not flagged", () => {
    const flagged = classify({
      changes: [
        { path: "test/sum.test.js", status: "deleted" },
        { path: "test/sum.test.js.bak", status: "renamed", from: "test/sum.test.js" },
        { path: "src/old.js", status: "deleted" },
      ],
    });
    expect(flagged).toEqual([
      { path: "test/sum.test.js", kind: "test-file-removed", detail: "a test file, deleted" },
      {
        path: "test/sum.test.js.bak",
        kind: "test-file-removed",
        detail: "a test file, renamed from test/sum.test.js",
      },
    ]);
  });

  it("a new test file (no marker) and an edited one are not flagged", () => {
    expect(
      classify({
        changes: [{ path: "test/new.test.js", status: "added" }, modified("test/sum.test.js")],
        addedLines: new Map([
          ["test/new.test.js", ['test("adds", () => assert.equal(sum(1, 2), 3));']],
          ["test/sum.test.js", ["  assert.equal(sum(2, 3), 5);"]],
        ]),
      }),
    ).toEqual([]);
  });
});

describe("rule 5: skip and only markers in a test file's added lines", () => {
  it("flags each marker once, in table order; exit( is not the xit marker", () => {
    const flagged = classify({
      changes: [modified("test/sum.test.js"), modified("src/run.js")],
      addedLines: new Map([
        [
          "test/sum.test.js",
          [`test${SKIP}"adds", () => {});`, `describe${ONLY}"x", () => {});`, `${XIT}'y')`],
        ],
        ["src/run.js", [`it${SKIP}'not a test file')`]],
      ]),
    });
    expect(flagged).toEqual([
      { path: "test/sum.test.js", kind: "skip-marker", detail: `added ${SKIP}), ${ONLY}), ${XIT})` },
    ]);
    expect(
      classify({
        changes: [modified("test/run.test.js")],
        addedLines: new Map([["test/run.test.js", ["process.exit(1);"]]]),
      }),
    ).toEqual([]);
  });

  it.each([
    ["tests/test_sum.py", "@pytest.mark.skip(reason='later')"],
    ["sum_test.go", '\tt.Skip("flaky")'],
    ["tests/sum.rs", "#[ignore]"],
    ["test/sum.test.js", 'test("x", { skip: true }, () => {});'],
    ["spec/a.spec.js", `${XDESCRIBE}'a', () => {})`],
  ])("%s: %s", (path, line) => {
    const flagged = classify({ changes: [modified(path)], addedLines: new Map([[path, [line]]]) });
    expect(flagged.map((f) => f.kind)).toEqual(["skip-marker"]);
  });

  it("reads the added lines of a -U0 patch by file", () => {
    const patch = [
      "diff --git a/test/a.test.js b/test/a.test.js",
      "--- a/test/a.test.js",
      "+++ b/test/a.test.js",
      "@@ -1 +1 @@",
      "-old",
      "+new line",
      "diff --git a/test/gone.test.js b/test/gone.test.js",
      "--- a/test/gone.test.js",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x",
      "",
    ].join("\n");
    expect([...addedLinesByFile(patch)]).toEqual([["test/a.test.js", ["new line"]]]);
  });
});

describe("rule 6: lines of an existing test file changed or removed", () => {
  it("an assertion rewritten or a test guarded is flagged; lines only added (a new case) are not", () => {
    const flagged = classify({
      changes: [modified("test/sum.test.js"), modified("test/more.test.js"), modified("src/sum.js")],
      addedLines: new Map([
        ["test/sum.test.js", ["  assert.equal(sum(1, 2), -1);"]],
        ["test/more.test.js", ['test("adds negatives", () => {});']],
      ]),
      removedLines: new Map([
        ["test/sum.test.js", 1],
        ["src/sum.js", 3],
      ]),
    });
    expect(flagged).toEqual([
      {
        path: "test/sum.test.js",
        kind: "test-lines-changed",
        detail: "a test file, 1 existing line changed or removed",
      },
    ]);
  });

  it("a test file renamed with edits counts by its old name; a new test file with no old side is not flagged", () => {
    const flagged = classify({
      changes: [
        { path: "checks/sum.js", status: "renamed", from: "test/sum.test.js" },
        { path: "test/new.test.js", status: "added" },
      ],
      addedLines: new Map(),
      removedLines: new Map([["checks/sum.js", 2]]),
    });
    expect(flagged.map((f) => f.kind)).toEqual(["test-file-removed", "test-lines-changed"]);
  });

  it("counts the - lines of a -U0 patch by file, never the --- header or a deleted file", () => {
    const patch = [
      "diff --git a/test/a.test.js b/test/a.test.js",
      "--- a/test/a.test.js",
      "+++ b/test/a.test.js",
      "@@ -1,2 +1 @@",
      "-old",
      "--- not a header: a line that was '-- x'",
      "+new line",
      "diff --git a/test/gone.test.js b/test/gone.test.js",
      "--- a/test/gone.test.js",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x",
      "",
    ].join("\n");
    expect([...removedLineCountsByFile(patch)]).toEqual([["test/a.test.js", 2]]);
  });
});

describe("rule 7: the maintainers' policy file", () => {
  it("any change to .github/evidence-gate.yml is flagged (its verify-cmd is the next run's verify command)", () => {
    for (const change of [
      modified(".github/evidence-gate.yml"),
      { path: ".github/evidence-gate.yml", status: "added" as const },
      { path: ".github/old.yml", status: "renamed" as const, from: ".github/evidence-gate.yml" },
    ]) {
      expect(classify({ changes: [change], addedLines: new Map() }).map((f) => f.kind)).toEqual([
        "policy-file",
      ]);
    }
    expect(classify({ changes: [modified(".github/workflows/ci.yml")], addedLines: new Map() })).toEqual([]);
  });
});

describe("the git side: changedFilesRecord on a real repository", () => {
  const repos: TempRepo[] = [];
  afterEach(async () => {
    await Promise.all(repos.splice(0).map((r) => r.cleanup()));
  });

  it("parses -z name-status output, renames and type changes included", () => {
    expect(parseNameStatus("M\0b.js\0A\0a.js\0R087\0old.js\0new.js\0T\0link\0D\0gone.js\0")).toEqual([
      { path: "a.js", status: "added" },
      { path: "b.js", status: "modified" },
      { path: "gone.js", status: "deleted" },
      { path: "link", status: "modified" },
      { path: "new.js", status: "renamed", from: "old.js" },
    ]);
  });

  it("lists the changes between two trees with their status and flags package.json scripts.test", async () => {
    const repo = await makeTempRepo({
      commit: true,
      files: {
        "package.json": pkg({ scripts: { test: "node --test" }, dependencies: { a: "1.0.0" } }),
        "src/sum.js": "export const sum = (a, b) => a - b;\n",
        "test/sum.test.js": 'import "../src/sum.js";\ntest("adds", () => {});\n',
        "test/other.test.js": 'test("other", () => {});\n',
      },
    });
    repos.push(repo);
    const context = { baseEnv: hermeticGitEnv };
    const baseTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
    await repo.write("package.json", pkg({ scripts: { test: "true" }, dependencies: { a: "2.0.0" } }));
    await repo.write("src/sum.js", "export const sum = (a, b) => a + b;\n");
    await repo.write("test/sum.test.js", `import "../src/sum.js";\ntest${SKIP}"adds", () => {});\n`);
    await rm(join(repo.dir, "test/other.test.js"));
    await repo.write("src/new.js", "export {};\n");
    const finalTree = await evidenceTree(repo.dir, context);

    const record = await changedFilesRecord(
      repo.dir,
      { baseTree, finalTree, verifyCommands: [{ command: "npm test", cwd: repo.dir }] },
      context,
    );

    expect(record).toEqual({
      total: 5,
      counts: { added: 1, modified: 3, deleted: 1, renamed: 0 },
      files: [
        { path: "package.json", status: "modified" },
        { path: "src/new.js", status: "added" },
        { path: "src/sum.js", status: "modified" },
        { path: "test/other.test.js", status: "deleted" },
        { path: "test/sum.test.js", status: "modified" },
      ],
      verifyDefinition: [
        {
          path: "package.json",
          kind: "package-scripts",
          detail: "scripts.test changed",
          keys: ["scripts.test"],
        },
        { path: "test/other.test.js", kind: "test-file-removed", detail: "a test file, deleted" },
        { path: "test/sum.test.js", kind: "skip-marker", detail: `added ${SKIP})` },
        {
          path: "test/sum.test.js",
          kind: "test-lines-changed",
          detail: "a test file, 1 existing line changed or removed",
        },
      ],
      flaggedTotal: 4,
    });
  });
});
