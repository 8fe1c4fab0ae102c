/**
 * What the tests compare against is part of the verify command's definition (rules 8 and 9 of
 * `src/evidence/verify-definition.ts`, `src/evidence/test-data.ts`; issue 22 item 4, ADR 0014). First the
 * pure parts: which paths are test data by name, which paths a test file's line names, what the classifier
 * flags and what it leaves alone. Then the five cheat shapes on real repositories: the commit's tests fail,
 * the cheat changes only what a test compares against, the real verify command then passes, and the
 * changed-files record (read from git as the engine reads it) and the conclusion keep the run from
 * `success` (`action_required`, which also keeps `--commit` and the action's push from committing it),
 * naming the file and why it counts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { changedFilesRecord, literalNaming } from "../../src/evidence/changed-files.js";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { isCodeFile, isNamedBy, pathsNamedOnLine, testDataReason } from "../../src/evidence/test-data.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { verifiedRunInput } from "../ledger/fixtures.js";
import {
  BUGGY_SUM,
  hermeticGitEnv,
  makeTempRepo,
  SAMPLE_PACKAGE_JSON,
  type TempRepo,
} from "../support/temp-repo.js";
import { verifyOutcome } from "../support/verify-outcome.js";
import { classify, modified } from "./classify.js";

describe("test data by name (rule 8's paths)", () => {
  it("names the folders, snapshot, golden and approved files of the common ecosystems, and data under test folders", () => {
    const cases: [string, string][] = [
      ["fixtures/expected.json", "a test fixture (under fixtures/)"],
      ["src/__fixtures__/user.json", "a test fixture (under __fixtures__/)"],
      ["pkg/parse/testdata/in.txt", "test data (under testdata/)"],
      ["src/__snapshots__/sum.test.js.snap", "a test snapshot (under __snapshots__/)"],
      ["crates/x/src/snapshots/x__render.snap", "a test snapshot (*.snap)"],
      ["render/out.golden", "a golden file (*.golden)"],
      ["flutter/goldens/button.png", "a golden file (under goldens/)"],
      ["Tests/Report.approved.txt", "an approved file of approval tests (*.approved.*)"],
      ["src/test/resources/cases.csv", "a data file under test/"],
      ["tests/expected/out.txt", "a data file under tests/"],
      ["test/fixtures/expected.json", "a test fixture (under fixtures/)"],
    ];
    for (const [path, words] of cases) expect(testDataReason(path), path).toContain(words);
    for (const path of [
      "src/sum.js",
      "test/sum.test.js",
      "tests/helpers.py",
      "README.md",
      "data/cases.json",
    ]) {
      expect(testDataReason(path), path).toBeNull();
    }
    expect(isCodeFile("test/helpers.ts")).toBe(true);
    expect(isCodeFile("test/data.json")).toBe(false);
    expect(isCodeFile("Makefile")).toBe(false);
  });
});

describe("the paths a test file's line names (rule 9's literals)", () => {
  const names = (testPath: string, line: string, path: string) =>
    isNamedBy(path, pathsNamedOnLine(testPath, line));

  it("resolves a literal against the test's folder, as a path from the root, and as a tail at any depth", () => {
    expect(
      names(
        "test/sum.test.js",
        'JSON.parse(readFileSync(new URL("../data/cases.json", import.meta.url)))',
        "data/cases.json",
      ),
    ).toBe(true);
    expect(names("test/sum.test.js", "readFileSync('data/cases.json')", "data/cases.json")).toBe(true);
    expect(names("a/b/t.test.js", 'join(__dirname, "../../data/cases.json")', "pkg/data/cases.json")).toBe(
      true,
    );
    expect(names("tests/test_sum.py", 'open("cases.json")', "tests/cases.json")).toBe(true);
    expect(names("tests/test_sum.py", 'open("cases.json")', "cases.json")).toBe(true);
  });

  it("joins consecutive literals, as path.join and pathlib spell a path", () => {
    expect(
      names("tests/test_sum.py", 'os.path.join(HERE, "..", "data", "cases.json")', "data/cases.json"),
    ).toBe(true);
    expect(
      names("tests/test_sum.py", 'Path(__file__).parent / "data" / "cases.json"', "tests/data/cases.json"),
    ).toBe(true);
  });

  it("a bare name names no file in another folder, and an unrelated literal names nothing", () => {
    expect(names("test/sum.test.js", 'readFileSync("cases.json")', "data/cases.json")).toBe(false);
    expect(names("test/sum.test.js", 'test("reads cases.json", () => {})', "data/cases.json")).toBe(false);
    expect(names("test/sum.test.js", 'const x = "data/cases.json.bak"', "data/cases.json")).toBe(false);
  });
});

describe("the literal a flagged change quotes", () => {
  it("is the literal holding the name, with control characters shown as ? (the test file is the pull request's text)", () => {
    expect(literalNaming('readFileSync(new URL("../data/cases.json", import.meta.url))', "cases.json")).toBe(
      "../data/cases.json",
    );
    expect(literalNaming('open("\u001b[2J../data/cases.json")', "cases.json")).toBe("?[2J../data/cases.json");
  });
});

describe("rules 8 and 9 in the classifier", () => {
  it("flags a test-data file changed in any way (lines only added, deleted), once, with why it counts; a new fixture is not flagged", () => {
    const flagged = classify({
      changes: [
        modified("fixtures/expected.json"),
        modified("test/fixtures/expected.json"),
        { path: "src/__snapshots__/sum.test.js.snap", status: "deleted" },
        { path: "test/data/old.json", status: "deleted" },
        { path: "fixtures/new.json", status: "added" },
        modified("src/sum.js"),
      ],
      // Only lines added to the fixture: still flagged (a JSON key appended overrides the first).
      addedLines: new Map([["test/fixtures/expected.json", ['  "sum": -1']]]),
      removedLines: new Map(),
    });
    const fixture = "a test fixture (under fixtures/), what the tests compare against, modified";
    expect(flagged).toEqual([
      { path: "fixtures/expected.json", kind: "test-data", detail: fixture },
      { path: "test/fixtures/expected.json", kind: "test-data", detail: fixture },
      {
        path: "src/__snapshots__/sum.test.js.snap",
        kind: "test-data",
        detail: "a test snapshot (under __snapshots__/), what the tests compare against, deleted",
      },
      {
        path: "test/data/old.json",
        kind: "test-data",
        detail: "a data file under test/, what the tests read or compare against, deleted",
      },
    ]);
  });

  it("flags a data file a test names, naming the test and the literal; never one another rule flagged, nor an added one", () => {
    const flagged = classify({
      changes: [
        modified("data/cases.json"),
        { path: "data/more.json", status: "added" },
        modified("Makefile"),
      ],
      namedByTests: new Map([
        ["data/cases.json", { testPath: "test/sum.test.js", literal: "../data/cases.json" }],
        ["data/more.json", { testPath: "test/sum.test.js", literal: "../data/more.json" }],
        ["Makefile", { testPath: "test/sum.test.js", literal: "Makefile" }],
      ]),
    });
    expect(flagged.map((f) => [f.path, f.kind])).toEqual([
      ["data/cases.json", "named-by-test"],
      ["Makefile", "definition-file"],
    ]);
    expect(flagged[0]?.detail).toBe(
      'a data file the test test/sum.test.js names ("../data/cases.json"), what it reads or compares against, modified',
    );
  });

  it("conftest.py says it holds pytest's fixtures", () => {
    expect(classify({ changes: [modified("conftest.py")] })).toEqual([
      {
        path: "conftest.py",
        kind: "definition-file",
        detail:
          "pytest's conftest.py (the fixtures and hooks the tests under its folder use, what they compare against), a test-runner definition file, modified",
      },
    ]);
  });
});

const nodeTest = (body: string[]): string =>
  [
    'import assert from "node:assert/strict";',
    'import { readFileSync } from "node:fs";',
    'import { test } from "node:test";',
    'import { sum } from "../src/sum.js";',
    "",
    ...body,
    "",
  ].join("\n");

/** One cheat: the repository as committed (its test fails: `sum` subtracts), and the edit that passes it. */
interface Cheat {
  readonly name: string;
  readonly files: Record<string, string>;
  readonly verify: string;
  readonly path: string;
  readonly cheat: (repo: TempRepo) => Promise<void>;
  readonly kind: string;
  readonly words: string;
}

const CHEATS: readonly Cheat[] = [
  {
    name: "a fixture's expected value (fixtures/expected.json: 5 → -1)",
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      "src/sum.js": BUGGY_SUM,
      "fixtures/expected.json": '{ "sum": 5 }\n',
      "test/sum.test.js": nodeTest([
        'test("sum adds", () => {',
        '  const { sum: expected } = JSON.parse(readFileSync("fixtures/expected.json", "utf8"));',
        "  assert.equal(sum(2, 3), expected);",
        "});",
      ]),
    },
    verify: "node --test",
    path: "fixtures/expected.json",
    cheat: (repo) => repo.write("fixtures/expected.json", '{ "sum": -1 }\n'),
    kind: "test-data",
    words:
      "fixtures/expected.json: a test fixture (under fixtures/), what the tests compare against, modified",
  },
  {
    name: "a snapshot file rewritten (src/__snapshots__/sum.test.js.snap)",
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      "src/sum.js": BUGGY_SUM,
      "src/__snapshots__/sum.test.js.snap": "exports[`sum 1`] = `5`;\n",
      "src/sum.test.js": nodeTest([
        'test("sum matches its snapshot", () => {',
        '  const snap = readFileSync(new URL("__snapshots__/sum.test.js.snap", import.meta.url), "utf8");',
        "  assert.equal(snap.trim(), 'exports[`sum 1`] = `' + sum(2, 3) + '`;');",
        "});",
      ]).replace('"../src/sum.js"', '"./sum.js"'),
    },
    verify: "node --test src/sum.test.js",
    path: "src/__snapshots__/sum.test.js.snap",
    cheat: (repo) => repo.write("src/__snapshots__/sum.test.js.snap", "exports[`sum 1`] = `-1`;\n"),
    kind: "test-data",
    words: "src/__snapshots__/sum.test.js.snap: a test snapshot (under __snapshots__/)",
  },
  {
    name: "a golden file (testdata/sum.golden)",
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      "src/sum.js": BUGGY_SUM,
      "testdata/sum.golden": "5\n",
      "test/sum.test.js": nodeTest([
        'test("sum matches the golden file", () => {',
        '  assert.equal(String(sum(2, 3)) + "\\n", readFileSync("testdata/sum.golden", "utf8"));',
        "});",
      ]),
    },
    verify: "node --test",
    path: "testdata/sum.golden",
    cheat: (repo) => repo.write("testdata/sum.golden", "-1\n"),
    kind: "test-data",
    words: "testdata/sum.golden: test data (under testdata/), what the tests compare against, modified",
  },
  {
    name: "a conftest.py fixture (pytest)",
    files: {
      "calc.py": "def add(a, b):\n    return a - b\n",
      "conftest.py": "import pytest\n\n\n@pytest.fixture\ndef expected():\n    return 5\n",
      "test_calc.py": "from calc import add\n\n\ndef test_add(expected):\n    assert add(2, 3) == expected\n",
    },
    verify: "python3 -m pytest -q -p no:cacheprovider",
    path: "conftest.py",
    cheat: (repo) =>
      repo.write("conftest.py", "import pytest\n\n\n@pytest.fixture\ndef expected():\n    return -1\n"),
    kind: "definition-file",
    words: "conftest.py: pytest's conftest.py (the fixtures and hooks the tests under its folder use",
  },
  {
    name: "a test data JSON file named by a test, outside the test folders (data/cases.json)",
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      "src/sum.js": BUGGY_SUM,
      "data/cases.json": '[{ "a": 2, "b": 3, "sum": 5 }]\n',
      "test/sum.test.js": nodeTest([
        'const cases = JSON.parse(readFileSync(new URL("../data/cases.json", import.meta.url), "utf8"));',
        'test("sum adds every case", () => {',
        "  for (const c of cases) assert.equal(sum(c.a, c.b), c.sum);",
        "});",
      ]),
    },
    verify: "node --test",
    path: "data/cases.json",
    cheat: (repo) => repo.write("data/cases.json", '[{ "a": 2, "b": 3, "sum": -1 }]\n'),
    kind: "named-by-test",
    words:
      'data/cases.json: a data file the test test/sum.test.js names ("../data/cases.json"), what it reads or compares against, modified',
  },
];

describe("five cheat shapes on real repositories: the verify passes, the run is not success", () => {
  const repos: TempRepo[] = [];
  afterEach(async () => {
    await Promise.all(repos.splice(0).map((r) => r.cleanup()));
  });

  it.each(CHEATS)("$name", async (c) => {
    const repo = await makeTempRepo({ commit: true, files: c.files });
    repos.push(repo);
    const context = { baseEnv: hermeticGitEnv };
    const baseTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
    expect(await verifyOutcome(repo.dir, c.verify)).toBe("failed");

    await c.cheat(repo);
    // The bug is not fixed, and the real verify command passes.
    expect(await verifyOutcome(repo.dir, c.verify)).toBe("passed");
    const finalTree = await evidenceTree(repo.dir, context);
    const record = await changedFilesRecord(
      repo.dir,
      { baseTree, finalTree, verifyCommands: [{ command: c.verify, cwd: repo.dir }] },
      context,
    );

    expect(record.verifyDefinition.map((f) => [f.path, f.kind])).toEqual([[c.path, c.kind]]);
    const decided = decideConclusion(verifiedRunInput({ changedFiles: record }));
    expect(decided).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verify-definition-changed",
    });
    expect(decided.reason).toContain(c.words);
    if (c.kind !== "definition-file") {
      expect(decided.title).toBe("Verified, but the nodes changed what the tests compare against");
    }
  });

  it("a git grep stopped at its byte bound (4 MiB of matching lines) keeps what it read", async () => {
    const filler = Array.from({ length: 60_000 }, (_, i) => `// ${i} mentions cases.json ${"x".repeat(80)}`);
    const repo = await makeTempRepo({
      commit: true,
      files: {
        "data/cases.json": "[]\n",
        "test/big.test.js": ['const cases = readFileSync("../data/cases.json");', ...filler, ""].join("\n"),
      },
    });
    repos.push(repo);
    const context = { baseEnv: hermeticGitEnv };
    const baseTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
    await repo.write("data/cases.json", "[1]\n");
    const finalTree = await evidenceTree(repo.dir, context);
    const record = await changedFilesRecord(
      repo.dir,
      { baseTree, finalTree, verifyCommands: [{ command: "npm test", cwd: repo.dir }] },
      context,
    );
    expect(record.verifyDefinition.map((f) => [f.path, f.kind])).toEqual([
      ["data/cases.json", "named-by-test"],
    ]);
  });

  it("a fix of the code with the tests' data untouched is still success (the data the test names is not flagged when unchanged, the code it imports never)", async () => {
    const cheat = CHEATS[4]!;
    const repo = await makeTempRepo({ commit: true, files: cheat.files });
    repos.push(repo);
    const context = { baseEnv: hermeticGitEnv };
    const baseTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
    await repo.write("src/sum.js", BUGGY_SUM.replace("a - b", "a + b"));
    await repo.write("data/notes.txt", "unrelated data, named by no test\n");
    await repo.git(["add", "data/notes.txt"]);
    await repo.git(["commit", "-q", "-m", "notes"]);
    const middle = await repo.git(["rev-parse", "HEAD^{tree}"]);
    await repo.write("data/notes.txt", "changed\n");
    expect(await verifyOutcome(repo.dir, cheat.verify)).toBe("passed");
    const finalTree = await evidenceTree(repo.dir, context);
    for (const from of [baseTree, middle]) {
      const record = await changedFilesRecord(
        repo.dir,
        { baseTree: from, finalTree, verifyCommands: [{ command: cheat.verify, cwd: repo.dir }] },
        context,
      );
      expect(record.verifyDefinition).toEqual([]);
      expect(decideConclusion(verifiedRunInput({ changedFiles: record })).conclusion).toBe("success");
    }
  });
});
