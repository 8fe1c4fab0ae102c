/**
 * The build-signal table (SPEC §5; seed 003): which file names say "this repository builds", the ecosystem
 * each names, and the command it suggests — judged by names only, never by opening a file. Starts from the
 * Go CLI's list and extends it where a user would expect.
 *
 * The table is prose, not policy: a repository file may make the tool STOP (refuse), never run a command.
 * The suggestion is only ever printed for the operator to copy.
 */
import type { BuildSignal } from "../core/build-evidence-answer.js";
import type { Names } from "./directory-names.js";

interface SignalRule {
  /** An exact file name, or a glob with one `*` (`*.csproj`, `test_*.py`) over the (bounded) listing. */
  readonly pattern: string;
  /**
   * A test file whose project is its test folder's parent: found in a folder named `tests` or `test`, its
   * command runs one folder up (`pytest` at the root for `tests/test_x.py`, not inside `tests/`).
   */
  readonly testFile?: true;
  readonly ecosystem: (names: Names) => string;
  readonly suggestion: (names: Names) => string;
  /** The rule stays silent when one of these files sits beside it (a lockfile next to its manifest). */
  readonly unlessBeside?: readonly string[];
}

const fixed =
  (value: string) =>
  (_names: Names): string =>
    value;

/** Which JavaScript package manager a directory uses, judged by lockfile name only. */
function nodeManager(names: Names): { readonly ecosystem: string; readonly suggestion: string } {
  if (names.has("pnpm-lock.yaml")) return { ecosystem: "Node.js (pnpm)", suggestion: "pnpm test" };
  if (names.has("yarn.lock")) return { ecosystem: "Node.js (yarn)", suggestion: "yarn test" };
  if (names.has("bun.lockb") || names.has("bun.lock")) {
    return { ecosystem: "Node.js (bun)", suggestion: "bun run test" };
  }
  return { ecosystem: "Node.js (npm)", suggestion: "npm test" };
}

/** Which Python project manager a directory uses, judged by lockfile / manifest name only. */
function pythonManager(names: Names): { readonly ecosystem: string; readonly suggestion: string } {
  if (names.has("uv.lock")) return { ecosystem: "Python (uv)", suggestion: "uv run pytest" };
  if (names.has("poetry.lock")) return { ecosystem: "Python (Poetry)", suggestion: "poetry run pytest" };
  if (names.has("pdm.lock")) return { ecosystem: "Python (PDM)", suggestion: "pdm run pytest" };
  if (names.has("Pipfile")) return { ecosystem: "Python (Pipenv)", suggestion: "pipenv run pytest" };
  return { ecosystem: "Python", suggestion: "pytest" };
}

const node: Pick<SignalRule, "ecosystem" | "suggestion"> = {
  ecosystem: (n) => nodeManager(n).ecosystem,
  suggestion: (n) => nodeManager(n).suggestion,
};
const python: Pick<SignalRule, "ecosystem" | "suggestion"> = {
  ecosystem: (n) => pythonManager(n).ecosystem,
  suggestion: (n) => pythonManager(n).suggestion,
};
const gradle = (names: Names): string => (names.has("gradlew") ? "./gradlew build" : "gradle build");
const maven = (names: Names): string => (names.has("mvnw") ? "./mvnw -B verify" : "mvn -B verify");
const mill = (names: Names): string => (names.has("mill") ? "./mill __.test" : "mill __.test");
const rake = (names: Names): string => (names.has("Gemfile") ? "bundle exec rake" : "rake");
/** A Flutter app is a Dart package with platform folders or Flutter's `.metadata` beside its pubspec. */
const isFlutter = (names: Names): boolean =>
  names.has(".metadata") || names.has("android", "dir") || names.has("ios", "dir");
const cmake = "cmake -S . -B build && cmake --build build && ctest --test-dir build";
const NODE_MANIFEST = ["package.json"];
const dotnet = { ecosystem: fixed(".NET"), suggestion: fixed("dotnet test") };
const bazel = { ecosystem: fixed("Bazel"), suggestion: fixed("bazel test //...") };
const just = { ecosystem: fixed("just"), suggestion: fixed("just test") };
const task = { ecosystem: fixed("Task"), suggestion: fixed("task test") };
const make = { ecosystem: fixed("Make"), suggestion: fixed("make") };

/**
 * The signal table, in priority order: when several match, the first one's command is suggested (and
 * flagged as a guess). Starts from the Go CLI's list and extends it (SPEC §5): ecosystem manifests first,
 * then their lockfiles and workspace files, then generic build systems, then task runners.
 */
const RULES: readonly SignalRule[] = [
  // JVM
  { pattern: "gradlew", ecosystem: fixed("Gradle"), suggestion: fixed("./gradlew build") },
  { pattern: "build.gradle.kts", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "build.gradle", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "settings.gradle.kts", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "settings.gradle", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "mvnw", ecosystem: fixed("Maven"), suggestion: fixed("./mvnw -B verify") },
  { pattern: "pom.xml", ecosystem: fixed("Maven"), suggestion: maven },
  { pattern: "build.sbt", ecosystem: fixed("sbt (Scala)"), suggestion: fixed("sbt test") },
  { pattern: "build.mill", ecosystem: fixed("Mill (Scala)"), suggestion: mill },
  { pattern: "build.sc", ecosystem: fixed("Mill (Scala)"), suggestion: mill },
  { pattern: "build.xml", ecosystem: fixed("Ant"), suggestion: fixed("ant test") },
  { pattern: "project.clj", ecosystem: fixed("Clojure (Leiningen)"), suggestion: fixed("lein test") },
  { pattern: "deps.edn", ecosystem: fixed("Clojure (CLI)"), suggestion: fixed("clojure -X:test") },
  // Rust
  { pattern: "Cargo.toml", ecosystem: fixed("Rust (Cargo)"), suggestion: fixed("cargo test") },
  {
    pattern: "Cargo.lock",
    ecosystem: fixed("Rust (Cargo)"),
    suggestion: fixed("cargo test"),
    unlessBeside: ["Cargo.toml"],
  },
  // JavaScript / TypeScript
  { pattern: "package.json", ...node },
  {
    pattern: "pnpm-workspace.yaml",
    ecosystem: fixed("Node.js (pnpm workspace)"),
    suggestion: fixed("pnpm -r test"),
  },
  { pattern: "lerna.json", ecosystem: fixed("Node.js (Lerna)"), suggestion: fixed("npx lerna run test") },
  { pattern: "nx.json", ecosystem: fixed("Node.js (Nx)"), suggestion: fixed("npx nx run-many -t test") },
  { pattern: "turbo.json", ecosystem: fixed("Node.js (Turborepo)"), suggestion: fixed("npx turbo run test") },
  { pattern: "pnpm-lock.yaml", ...node, unlessBeside: NODE_MANIFEST },
  { pattern: "yarn.lock", ...node, unlessBeside: NODE_MANIFEST },
  { pattern: "package-lock.json", ...node, unlessBeside: NODE_MANIFEST },
  { pattern: "bun.lockb", ...node, unlessBeside: NODE_MANIFEST },
  { pattern: "bun.lock", ...node, unlessBeside: NODE_MANIFEST },
  // A TypeScript project without a package.json still type-checks (issue 26).
  {
    pattern: "tsconfig.json",
    ecosystem: fixed("TypeScript"),
    suggestion: fixed("npx --yes -p typescript tsc --noEmit"),
    unlessBeside: NODE_MANIFEST,
  },
  { pattern: "deno.json", ecosystem: fixed("Deno"), suggestion: fixed("deno test") },
  { pattern: "deno.jsonc", ecosystem: fixed("Deno"), suggestion: fixed("deno test") },
  // Python
  { pattern: "pyproject.toml", ...python },
  { pattern: "setup.py", ...python },
  { pattern: "setup.cfg", ...python },
  { pattern: "uv.lock", ...python, unlessBeside: ["pyproject.toml"] },
  { pattern: "poetry.lock", ...python, unlessBeside: ["pyproject.toml"] },
  { pattern: "pdm.lock", ...python, unlessBeside: ["pyproject.toml"] },
  { pattern: "Pipfile", ...python },
  { pattern: "tox.ini", ecosystem: fixed("Python (tox)"), suggestion: fixed("tox") },
  { pattern: "noxfile.py", ecosystem: fixed("Python (nox)"), suggestion: fixed("nox") },
  { pattern: "pytest.ini", ...python },
  // Python tests alone (no manifest): pytest's own files name the project (issue 26).
  { pattern: "conftest.py", ecosystem: fixed("Python (pytest)"), suggestion: fixed("pytest") },
  { pattern: "test_*.py", ecosystem: fixed("Python (pytest)"), suggestion: fixed("pytest"), testFile: true },
  { pattern: "*_test.py", ecosystem: fixed("Python (pytest)"), suggestion: fixed("pytest"), testFile: true },
  { pattern: "requirements.txt", ...python },
  { pattern: "pants.toml", ecosystem: fixed("Pants"), suggestion: fixed("pants test ::") },
  // Ruby
  { pattern: "Gemfile", ecosystem: fixed("Ruby (Bundler)"), suggestion: fixed("bundle exec rake") },
  { pattern: "Rakefile", ecosystem: fixed("Ruby (Rake)"), suggestion: rake },
  // BEAM
  { pattern: "mix.exs", ecosystem: fixed("Elixir (Mix)"), suggestion: fixed("mix test") },
  { pattern: "rebar.config", ecosystem: fixed("Erlang (rebar3)"), suggestion: fixed("rebar3 eunit") },
  { pattern: "gleam.toml", ecosystem: fixed("Gleam"), suggestion: fixed("gleam test") },
  // Go
  { pattern: "go.mod", ecosystem: fixed("Go"), suggestion: fixed("go test ./...") },
  { pattern: "go.work", ecosystem: fixed("Go (workspace)"), suggestion: fixed("go test ./...") },
  // Other languages with their own package manager
  { pattern: "composer.json", ecosystem: fixed("PHP (Composer)"), suggestion: fixed("composer test") },
  { pattern: "Package.swift", ecosystem: fixed("Swift (SwiftPM)"), suggestion: fixed("swift test") },
  {
    pattern: "pubspec.yaml",
    ecosystem: (n) => (isFlutter(n) ? "Flutter" : "Dart"),
    suggestion: (n) => (isFlutter(n) ? "flutter test" : "dart test"),
  },
  { pattern: "build.zig", ecosystem: fixed("Zig"), suggestion: fixed("zig build test") },
  { pattern: "stack.yaml", ecosystem: fixed("Haskell (Stack)"), suggestion: fixed("stack test") },
  { pattern: "cabal.project", ecosystem: fixed("Haskell (Cabal)"), suggestion: fixed("cabal test") },
  { pattern: "*.cabal", ecosystem: fixed("Haskell (Cabal)"), suggestion: fixed("cabal test") },
  { pattern: "package.yaml", ecosystem: fixed("Haskell (hpack)"), suggestion: fixed("stack test") },
  { pattern: "dune-project", ecosystem: fixed("OCaml (dune)"), suggestion: fixed("dune test") },
  {
    pattern: "DESCRIPTION",
    ecosystem: fixed("R package"),
    suggestion: fixed("R CMD build . && R CMD check *.tar.gz"),
  },
  { pattern: "shard.yml", ecosystem: fixed("Crystal (Shards)"), suggestion: fixed("crystal spec") },
  { pattern: "*.nimble", ecosystem: fixed("Nim (Nimble)"), suggestion: fixed("nimble test") },
  {
    pattern: "Project.toml",
    ecosystem: fixed("Julia"),
    suggestion: fixed("julia --project -e 'using Pkg; Pkg.test()'"),
  },
  { pattern: "Makefile.PL", ecosystem: fixed("Perl"), suggestion: fixed("perl Makefile.PL && make test") },
  { pattern: "Build.PL", ecosystem: fixed("Perl"), suggestion: fixed("perl Build.PL && ./Build test") },
  { pattern: "cpanfile", ecosystem: fixed("Perl"), suggestion: fixed("prove -lr t") },
  // .NET
  { pattern: "*.sln", ...dotnet },
  { pattern: "*.slnx", ...dotnet },
  { pattern: "*.csproj", ...dotnet },
  { pattern: "*.fsproj", ...dotnet },
  { pattern: "*.vbproj", ...dotnet },
  { pattern: "*.vcxproj", ecosystem: fixed("MSBuild (C++)"), suggestion: fixed("msbuild /t:Build") },
  // Polyglot build systems
  { pattern: "MODULE.bazel", ...bazel },
  { pattern: "WORKSPACE", ...bazel },
  { pattern: "WORKSPACE.bazel", ...bazel },
  { pattern: "BUILD.bazel", ...bazel },
  { pattern: "BUILD", ...bazel },
  { pattern: "flake.nix", ecosystem: fixed("Nix (flake)"), suggestion: fixed("nix flake check") },
  // C / C++
  { pattern: "CMakeLists.txt", ecosystem: fixed("CMake"), suggestion: fixed(cmake) },
  { pattern: "CMakePresets.json", ecosystem: fixed("CMake"), suggestion: fixed(cmake) },
  {
    pattern: "meson.build",
    ecosystem: fixed("Meson"),
    suggestion: fixed("meson setup build && meson test -C build"),
  },
  { pattern: "vcpkg.json", ecosystem: fixed("C/C++ (vcpkg)"), suggestion: fixed(cmake) },
  {
    pattern: "conanfile.py",
    ecosystem: fixed("C/C++ (Conan)"),
    suggestion: fixed("conan build . --build=missing"),
  },
  { pattern: "conanfile.txt", ecosystem: fixed("C/C++ (Conan)"), suggestion: fixed(cmake) },
  { pattern: "configure", ecosystem: fixed("Autotools"), suggestion: fixed("./configure && make check") },
  {
    pattern: "configure.ac",
    ecosystem: fixed("Autotools"),
    suggestion: fixed("autoreconf -fi && ./configure && make check"),
  },
  { pattern: "SConstruct", ecosystem: fixed("SCons"), suggestion: fixed("scons") },
  {
    pattern: "Makefile.am",
    ecosystem: fixed("Autotools"),
    suggestion: fixed("autoreconf -fi && ./configure && make check"),
  },
  // Task runners
  { pattern: "justfile", ...just },
  { pattern: "Justfile", ...just },
  { pattern: ".justfile", ...just },
  { pattern: "Taskfile.yml", ...task },
  { pattern: "Taskfile.yaml", ...task },
  { pattern: "taskfile.yml", ...task },
  { pattern: "taskfile.yaml", ...task },
  { pattern: "Makefile", ...make },
  { pattern: "GNUmakefile", ...make },
  { pattern: "makefile", ...make },
];

/**
 * Every exact name a rule or its hints look up (manifests, the lockfiles and wrappers beside them, Flutter's
 * platform folders); each is looked up with `lstat` even beyond a listing's limit, never opened.
 */
export const SIGNAL_NAMES: readonly string[] = [
  ...new Set([
    ...RULES.map((r) => r.pattern).filter((p) => !p.includes("*")),
    ...RULES.flatMap((r) => r.unlessBeside ?? []),
    "mill",
    ".metadata",
    "android",
    "ios",
  ]),
];

/** Folders whose test files ({@link SignalRule.testFile}) belong to the project one folder up. */
export const TEST_FOLDERS: readonly string[] = ["tests", "test"];

/**
 * The signals one directory's names carry, by table priority. `suggest` shapes each command, run in that
 * directory; `suggestAbove`, when the directory is a test folder ({@link TEST_FOLDERS}), shapes a test
 * file's command, run one folder up. A test file elsewhere, or without `suggestAbove`, is run where it is.
 */
export function signalsIn(
  names: Names,
  display: (name: string) => string,
  suggest: (command: string) => string,
  suggestAbove?: (command: string) => string,
): BuildSignal[] {
  const signals: BuildSignal[] = [];
  for (const rule of RULES) {
    if (rule.unlessBeside?.some((name) => names.has(name))) continue;
    const files = rule.pattern.includes("*")
      ? names.matching(rule.pattern)
      : names.has(rule.pattern)
        ? [rule.pattern]
        : [];
    const shape = rule.testFile === true && suggestAbove !== undefined ? suggestAbove : suggest;
    for (const name of files) {
      signals.push({
        file: display(name),
        ecosystem: rule.ecosystem(names),
        suggestion: shape(rule.suggestion(names)),
      });
    }
  }
  return signals;
}

/** The table position of the rule a signal file name (`package.json`, `App.csproj`) matches; after all when none. */
export function signalRank(fileName: string): number {
  const index = RULES.findIndex((r) => {
    const star = r.pattern.indexOf("*");
    return star === -1
      ? r.pattern === fileName
      : fileName.startsWith(r.pattern.slice(0, star)) && fileName.endsWith(r.pattern.slice(star + 1));
  });
  return index === -1 ? RULES.length : index;
}
