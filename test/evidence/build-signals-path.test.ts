/**
 * The scan from the repository root down to the working directory (issue 17, item 1): `cd pkg/src &&
 * evidence-gate auto` must find `pkg/package.json`, naming files relative to the root and phrasing every
 * suggestion from the working directory, where the verify command runs. Real temp folders throughout.
 */
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decideBuildEvidence } from "../../src/evidence/build-evidence.js";
import {
  MAX_PATH_FOLDERS,
  scanBuildSignals,
  scanBuildSignalsAlongPath,
} from "../../src/evidence/build-signals.js";
import { suggestVerifyCommand } from "../../src/evidence/verify-suggestion.js";
import { dirWith, removeNameDirs } from "./name-dirs.js";

afterEach(removeNameDirs);

describe("scanBuildSignalsAlongPath", () => {
  it("finds pkg/package.json from pkg/src, relative to the root, its command run from pkg/src", async () => {
    const root = await dirWith(["README.md", "pkg/package.json", "pkg/src/index.ts"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "pkg", "src") });
    expect(signals).toEqual([
      { file: "pkg/package.json", ecosystem: "Node.js (npm)", suggestion: "(cd .. && npm test)" },
    ]);
    // Today's scan of the working directory alone (what the CLI did from pkg/src) saw nothing.
    expect(await scanBuildSignals([join(root, "pkg", "src")])).toEqual([]);
    expect(suggestVerifyCommand(signals)).toEqual({
      command: "(cd .. && npm test)",
      signal: signals[0],
      guess: false,
      nested: { folder: "pkg", command: "npm test" },
    });
  });

  it("from pkg/src with no verify command the answer is a refusal naming pkg/package.json, not none-detected", async () => {
    const root = await dirWith(["pkg/package.json", "pkg/src/"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "pkg", "src") });
    const decision = decideBuildEvidence({ acceptNoBuildEvidence: false, signals, surface: "cli" });
    expect(decision.kind).toBe("refused");
    const lines = decision.kind === "refused" ? decision.message.split("\n") : [];
    expect(lines).toContain("Detected: pkg/package.json (Node.js (npm)).");
    expect(lines).toContain(
      "  --verify-cmd '(cd .. && npm test)' — the engine runs it at each sink of the plan, one at a time, and " +
        "judges its exit code",
    );
    expect(lines).toContain(
      "    (it runs the command in pkg, where those build files are; or set --working-directory 'pkg' with " +
        "--verify-cmd 'npm test', which moves the whole run into that folder)",
    );
  });

  it("scans every folder of the path, in path order, the root's and the working directory's own plain where they run", async () => {
    const root = await dirWith(["Makefile", "a/go.mod", "a/b/Cargo.toml", "a/b/c/package.json"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "a", "b", "c") });
    expect(signals).toEqual([
      { file: "Makefile", ecosystem: "Make", suggestion: "(cd ../../.. && make)" },
      { file: "a/go.mod", ecosystem: "Go", suggestion: "(cd ../.. && go test ./...)" },
      { file: "a/b/Cargo.toml", ecosystem: "Rust (Cargo)", suggestion: "(cd .. && cargo test)" },
      { file: "a/b/c/package.json", ecosystem: "Node.js (npm)", suggestion: "npm test" },
    ]);
    expect(suggestVerifyCommand(signals)).toMatchObject({ command: "npm test", guess: true, nested: null });
  });

  it("reads one level below the root and the working directory, phrased from the working directory", async () => {
    const root = await dirWith(["tools/Makefile", "web/site/package.json", "web/README.md"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "web") });
    expect(signals).toEqual([
      { file: "tools/Makefile", ecosystem: "Make", suggestion: "(cd ../tools && make)" },
      { file: "web/site/package.json", ecosystem: "Node.js (npm)", suggestion: "(cd site && npm test)" },
    ]);
  });

  it("a folder between the root and the working directory is read at its top level only", async () => {
    const root = await dirWith(["a/sibling/Makefile", "a/b/c/README.md", "a/b/pom.xml"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "a", "b", "c") });
    // a/b is on the path (its top level is read); a/sibling sits beside the path under a, which is not
    // the root, so nothing descends into it.
    expect(signals).toEqual([
      { file: "a/b/pom.xml", ecosystem: "Maven", suggestion: "(cd .. && mvn -B verify)" },
    ]);
  });

  it("suggests the nearest enclosing project before a folder below the working directory", async () => {
    const root = await dirWith(["Makefile", "pkg/package.json", "pkg/src/fixtures/pom.xml"]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, "pkg", "src") });
    expect(signals.map((s) => s.file)).toEqual(["Makefile", "pkg/package.json", "pkg/src/fixtures/pom.xml"]);
    // pom.xml is higher in the table than package.json, and Makefile is nearer the root: neither decides.
    expect(suggestVerifyCommand(signals)).toMatchObject({
      command: "(cd .. && npm test)",
      guess: true,
      nested: { folder: "pkg", command: "npm test" },
    });
  });

  it("with the working directory at the root, scans exactly as scanBuildSignals([root]) does", async () => {
    const root = await dirWith(["Makefile", "packages/app/package.json", "backend/go.mod"]);
    const along = await scanBuildSignalsAlongPath({ root, workingDirectory: root });
    expect(along).toEqual(await scanBuildSignals([root]));
    expect(along.map((s) => s.suggestion)).toEqual([
      "make",
      "(cd backend && go test ./...)",
      "(cd packages/app && npm test)",
    ]);
  });

  it(`scans at most ${MAX_PATH_FOLDERS} folders between the root and the working directory, the nearest`, async () => {
    expect(MAX_PATH_FOLDERS).toBe(32);
    const depth = MAX_PATH_FOLDERS + 8;
    const folders = Array.from({ length: depth }, (_, i) => `d${i + 1}`);
    const at = (n: number): string => folders.slice(0, n).join("/");
    // Signals in d4 (too far from the working directory, and deeper than the root's descent reaches) and
    // d9 (among the nearest scanned: d8 … d39).
    const root = await dirWith([`${at(4)}/Makefile`, `${at(9)}/go.mod`, `${at(depth)}/`]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, ...folders) });
    expect(signals.map((s) => s.file)).toEqual([`${at(9)}/go.mod`]);
    expect(signals[0]?.suggestion).toBe(
      `(cd ${Array(depth - 9)
        .fill("..")
        .join("/")} && go test ./...)`,
    );
  });

  it("a folder between that is not scanned is still reached from the root, one level down", async () => {
    const depth = MAX_PATH_FOLDERS + 3;
    const folders = Array.from({ length: depth }, (_, i) => `d${i + 1}`);
    const root = await dirWith(["d1/Makefile", `${folders.join("/")}/`]);
    const signals = await scanBuildSignalsAlongPath({ root, workingDirectory: join(root, ...folders) });
    expect(signals).toEqual([
      {
        file: "d1/Makefile",
        ecosystem: "Make",
        suggestion: `(cd ${Array(depth - 1)
          .fill("..")
          .join("/")} && make)`,
      },
    ]);
  });

  it("accepts paths relative to the process's directory, and a missing working directory yields the path's signals", async () => {
    const root = await dirWith(["pkg/Cargo.toml"]);
    const signals = await scanBuildSignalsAlongPath({
      root: relative(process.cwd(), root),
      workingDirectory: join(root, "pkg", "gone", "deeper"),
    });
    expect(signals).toEqual([
      { file: "pkg/Cargo.toml", ecosystem: "Rust (Cargo)", suggestion: "(cd ../.. && cargo test)" },
    ]);
  });

  it("a working directory outside the root is scanned as scanBuildSignals([root, dir]) scans it", async () => {
    const root = await dirWith(["Makefile"]);
    const elsewhere = await dirWith(["go.mod"]);
    expect(await scanBuildSignalsAlongPath({ root, workingDirectory: elsewhere })).toEqual(
      await scanBuildSignals([root, elsewhere]),
    );
  });
});
