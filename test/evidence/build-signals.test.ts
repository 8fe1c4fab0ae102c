import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BuildSignal } from "../../src/core/build-evidence-answer.js";
import {
  MAX_DEPTH,
  MAX_SUBDIRECTORIES,
  MONOREPO_FOLDERS,
  SKIPPED_FOLDERS,
  scanBuildSignals,
} from "../../src/evidence/build-signals.js";
import { listTopLevelNames, MAX_ENTRIES_PER_DIRECTORY } from "../../src/evidence/directory-names.js";
import { suggestVerifyCommand } from "../../src/evidence/verify-suggestion.js";
import { dirWith, removeNameDirs } from "./name-dirs.js";

afterEach(removeNameDirs);

describe("each build signal suggests its ecosystem's command", () => {
  const table: ReadonlyArray<readonly [files: readonly string[], signal: BuildSignal]> = [
    [["gradlew"], { file: "gradlew", ecosystem: "Gradle", suggestion: "./gradlew build" }],
    [["build.gradle.kts"], { file: "build.gradle.kts", ecosystem: "Gradle", suggestion: "gradle build" }],
    [["build.gradle"], { file: "build.gradle", ecosystem: "Gradle", suggestion: "gradle build" }],
    [["settings.gradle"], { file: "settings.gradle", ecosystem: "Gradle", suggestion: "gradle build" }],
    [
      ["settings.gradle.kts"],
      { file: "settings.gradle.kts", ecosystem: "Gradle", suggestion: "gradle build" },
    ],
    [["pom.xml"], { file: "pom.xml", ecosystem: "Maven", suggestion: "mvn -B verify" }],
    [["build.sbt"], { file: "build.sbt", ecosystem: "sbt (Scala)", suggestion: "sbt test" }],
    [["Cargo.toml"], { file: "Cargo.toml", ecosystem: "Rust (Cargo)", suggestion: "cargo test" }],
    [["package.json"], { file: "package.json", ecosystem: "Node.js (npm)", suggestion: "npm test" }],
    [["deno.json"], { file: "deno.json", ecosystem: "Deno", suggestion: "deno test" }],
    [["deno.jsonc"], { file: "deno.jsonc", ecosystem: "Deno", suggestion: "deno test" }],
    [["pyproject.toml"], { file: "pyproject.toml", ecosystem: "Python", suggestion: "pytest" }],
    [["setup.py"], { file: "setup.py", ecosystem: "Python", suggestion: "pytest" }],
    [["Gemfile"], { file: "Gemfile", ecosystem: "Ruby (Bundler)", suggestion: "bundle exec rake" }],
    [["mix.exs"], { file: "mix.exs", ecosystem: "Elixir (Mix)", suggestion: "mix test" }],
    [["go.mod"], { file: "go.mod", ecosystem: "Go", suggestion: "go test ./..." }],
    [["composer.json"], { file: "composer.json", ecosystem: "PHP (Composer)", suggestion: "composer test" }],
    [["Package.swift"], { file: "Package.swift", ecosystem: "Swift (SwiftPM)", suggestion: "swift test" }],
    [["pubspec.yaml"], { file: "pubspec.yaml", ecosystem: "Dart", suggestion: "dart test" }],
    [["build.zig"], { file: "build.zig", ecosystem: "Zig", suggestion: "zig build test" }],
    [["stack.yaml"], { file: "stack.yaml", ecosystem: "Haskell (Stack)", suggestion: "stack test" }],
    [["dune-project"], { file: "dune-project", ecosystem: "OCaml (dune)", suggestion: "dune test" }],
    [["App.sln"], { file: "App.sln", ecosystem: ".NET", suggestion: "dotnet test" }],
    [["App.csproj"], { file: "App.csproj", ecosystem: ".NET", suggestion: "dotnet test" }],
    [["App.fsproj"], { file: "App.fsproj", ecosystem: ".NET", suggestion: "dotnet test" }],
    [["MODULE.bazel"], { file: "MODULE.bazel", ecosystem: "Bazel", suggestion: "bazel test //..." }],
    [["WORKSPACE"], { file: "WORKSPACE", ecosystem: "Bazel", suggestion: "bazel test //..." }],
    [["flake.nix"], { file: "flake.nix", ecosystem: "Nix (flake)", suggestion: "nix flake check" }],
    [
      ["CMakeLists.txt"],
      {
        file: "CMakeLists.txt",
        ecosystem: "CMake",
        suggestion: "cmake -S . -B build && cmake --build build && ctest --test-dir build",
      },
    ],
    [
      ["meson.build"],
      { file: "meson.build", ecosystem: "Meson", suggestion: "meson setup build && meson test -C build" },
    ],
    [["Makefile"], { file: "Makefile", ecosystem: "Make", suggestion: "make" }],
    // Extended after the user trial: each of these alone used to scan as none-detected.
    [["mvnw"], { file: "mvnw", ecosystem: "Maven", suggestion: "./mvnw -B verify" }],
    [["build.mill"], { file: "build.mill", ecosystem: "Mill (Scala)", suggestion: "mill __.test" }],
    [["build.sc"], { file: "build.sc", ecosystem: "Mill (Scala)", suggestion: "mill __.test" }],
    [["build.xml"], { file: "build.xml", ecosystem: "Ant", suggestion: "ant test" }],
    [["project.clj"], { file: "project.clj", ecosystem: "Clojure (Leiningen)", suggestion: "lein test" }],
    [["deps.edn"], { file: "deps.edn", ecosystem: "Clojure (CLI)", suggestion: "clojure -X:test" }],
    [["Cargo.lock"], { file: "Cargo.lock", ecosystem: "Rust (Cargo)", suggestion: "cargo test" }],
    [
      ["pnpm-workspace.yaml"],
      { file: "pnpm-workspace.yaml", ecosystem: "Node.js (pnpm workspace)", suggestion: "pnpm -r test" },
    ],
    [["lerna.json"], { file: "lerna.json", ecosystem: "Node.js (Lerna)", suggestion: "npx lerna run test" }],
    [["nx.json"], { file: "nx.json", ecosystem: "Node.js (Nx)", suggestion: "npx nx run-many -t test" }],
    [
      ["turbo.json"],
      { file: "turbo.json", ecosystem: "Node.js (Turborepo)", suggestion: "npx turbo run test" },
    ],
    [["pnpm-lock.yaml"], { file: "pnpm-lock.yaml", ecosystem: "Node.js (pnpm)", suggestion: "pnpm test" }],
    [["yarn.lock"], { file: "yarn.lock", ecosystem: "Node.js (yarn)", suggestion: "yarn test" }],
    [
      ["package-lock.json"],
      { file: "package-lock.json", ecosystem: "Node.js (npm)", suggestion: "npm test" },
    ],
    [["bun.lockb"], { file: "bun.lockb", ecosystem: "Node.js (bun)", suggestion: "bun run test" }],
    [["bun.lock"], { file: "bun.lock", ecosystem: "Node.js (bun)", suggestion: "bun run test" }],
    [["setup.cfg"], { file: "setup.cfg", ecosystem: "Python", suggestion: "pytest" }],
    [["requirements.txt"], { file: "requirements.txt", ecosystem: "Python", suggestion: "pytest" }],
    [["pytest.ini"], { file: "pytest.ini", ecosystem: "Python", suggestion: "pytest" }],
    [["uv.lock"], { file: "uv.lock", ecosystem: "Python (uv)", suggestion: "uv run pytest" }],
    [["poetry.lock"], { file: "poetry.lock", ecosystem: "Python (Poetry)", suggestion: "poetry run pytest" }],
    [["pdm.lock"], { file: "pdm.lock", ecosystem: "Python (PDM)", suggestion: "pdm run pytest" }],
    [["Pipfile"], { file: "Pipfile", ecosystem: "Python (Pipenv)", suggestion: "pipenv run pytest" }],
    [["tox.ini"], { file: "tox.ini", ecosystem: "Python (tox)", suggestion: "tox" }],
    [["noxfile.py"], { file: "noxfile.py", ecosystem: "Python (nox)", suggestion: "nox" }],
    [["pants.toml"], { file: "pants.toml", ecosystem: "Pants", suggestion: "pants test ::" }],
    [["Rakefile"], { file: "Rakefile", ecosystem: "Ruby (Rake)", suggestion: "rake" }],
    [["rebar.config"], { file: "rebar.config", ecosystem: "Erlang (rebar3)", suggestion: "rebar3 eunit" }],
    [["gleam.toml"], { file: "gleam.toml", ecosystem: "Gleam", suggestion: "gleam test" }],
    [["go.work"], { file: "go.work", ecosystem: "Go (workspace)", suggestion: "go test ./..." }],
    [["cabal.project"], { file: "cabal.project", ecosystem: "Haskell (Cabal)", suggestion: "cabal test" }],
    [["lib.cabal"], { file: "lib.cabal", ecosystem: "Haskell (Cabal)", suggestion: "cabal test" }],
    [["shard.yml"], { file: "shard.yml", ecosystem: "Crystal (Shards)", suggestion: "crystal spec" }],
    [["app.nimble"], { file: "app.nimble", ecosystem: "Nim (Nimble)", suggestion: "nimble test" }],
    [
      ["Project.toml"],
      { file: "Project.toml", ecosystem: "Julia", suggestion: "julia --project -e 'using Pkg; Pkg.test()'" },
    ],
    [
      ["Makefile.PL"],
      { file: "Makefile.PL", ecosystem: "Perl", suggestion: "perl Makefile.PL && make test" },
    ],
    [["Build.PL"], { file: "Build.PL", ecosystem: "Perl", suggestion: "perl Build.PL && ./Build test" }],
    [["cpanfile"], { file: "cpanfile", ecosystem: "Perl", suggestion: "prove -lr t" }],
    [["App.slnx"], { file: "App.slnx", ecosystem: ".NET", suggestion: "dotnet test" }],
    [["App.vbproj"], { file: "App.vbproj", ecosystem: ".NET", suggestion: "dotnet test" }],
    [["App.vcxproj"], { file: "App.vcxproj", ecosystem: "MSBuild (C++)", suggestion: "msbuild /t:Build" }],
    [["package.yaml"], { file: "package.yaml", ecosystem: "Haskell (hpack)", suggestion: "stack test" }],
    [
      ["DESCRIPTION"],
      { file: "DESCRIPTION", ecosystem: "R package", suggestion: "R CMD build . && R CMD check *.tar.gz" },
    ],
    [
      ["Makefile.am"],
      {
        file: "Makefile.am",
        ecosystem: "Autotools",
        suggestion: "autoreconf -fi && ./configure && make check",
      },
    ],
    [["WORKSPACE.bazel"], { file: "WORKSPACE.bazel", ecosystem: "Bazel", suggestion: "bazel test //..." }],
    [["BUILD.bazel"], { file: "BUILD.bazel", ecosystem: "Bazel", suggestion: "bazel test //..." }],
    [["BUILD"], { file: "BUILD", ecosystem: "Bazel", suggestion: "bazel test //..." }],
    [
      ["CMakePresets.json"],
      {
        file: "CMakePresets.json",
        ecosystem: "CMake",
        suggestion: "cmake -S . -B build && cmake --build build && ctest --test-dir build",
      },
    ],
    [
      ["vcpkg.json"],
      {
        file: "vcpkg.json",
        ecosystem: "C/C++ (vcpkg)",
        suggestion: "cmake -S . -B build && cmake --build build && ctest --test-dir build",
      },
    ],
    [
      ["conanfile.txt"],
      {
        file: "conanfile.txt",
        ecosystem: "C/C++ (Conan)",
        suggestion: "cmake -S . -B build && cmake --build build && ctest --test-dir build",
      },
    ],
    [
      ["conanfile.py"],
      { file: "conanfile.py", ecosystem: "C/C++ (Conan)", suggestion: "conan build . --build=missing" },
    ],
    [["configure"], { file: "configure", ecosystem: "Autotools", suggestion: "./configure && make check" }],
    [
      ["configure.ac"],
      {
        file: "configure.ac",
        ecosystem: "Autotools",
        suggestion: "autoreconf -fi && ./configure && make check",
      },
    ],
    [["SConstruct"], { file: "SConstruct", ecosystem: "SCons", suggestion: "scons" }],
    [["justfile"], { file: "justfile", ecosystem: "just", suggestion: "just test" }],
    [["Justfile"], { file: "Justfile", ecosystem: "just", suggestion: "just test" }],
    [[".justfile"], { file: ".justfile", ecosystem: "just", suggestion: "just test" }],
    [["Taskfile.yml"], { file: "Taskfile.yml", ecosystem: "Task", suggestion: "task test" }],
    [["Taskfile.yaml"], { file: "Taskfile.yaml", ecosystem: "Task", suggestion: "task test" }],
    [["taskfile.yml"], { file: "taskfile.yml", ecosystem: "Task", suggestion: "task test" }],
    [["taskfile.yaml"], { file: "taskfile.yaml", ecosystem: "Task", suggestion: "task test" }],
    [["GNUmakefile"], { file: "GNUmakefile", ecosystem: "Make", suggestion: "make" }],
    [["makefile"], { file: "makefile", ecosystem: "Make", suggestion: "make" }],
  ];
  for (const [files, signal] of table) {
    it(`${files.join(", ")} → ${signal.ecosystem}, \`${signal.suggestion}\``, async () => {
      const dir = await dirWith(files);
      expect(await scanBuildSignals([dir])).toEqual([signal]);
    });
  }
});

describe("a suggestion follows the names beside the signal", () => {
  const table: ReadonlyArray<readonly [files: readonly string[], file: string, suggestion: string]> = [
    [["package.json", "pnpm-lock.yaml"], "package.json", "pnpm test"],
    [["package.json", "yarn.lock"], "package.json", "yarn test"],
    [["package.json", "package-lock.json"], "package.json", "npm test"],
    [["package.json", "bun.lockb"], "package.json", "bun run test"],
    [["pyproject.toml", "uv.lock"], "pyproject.toml", "uv run pytest"],
    [["pyproject.toml", "poetry.lock"], "pyproject.toml", "poetry run pytest"],
    [["pom.xml", "mvnw"], "pom.xml", "./mvnw -B verify"],
    [["build.gradle.kts", "gradlew"], "build.gradle.kts", "./gradlew build"],
    [["pubspec.yaml", "android/"], "pubspec.yaml", "flutter test"],
    [["pyproject.toml", "pdm.lock"], "pyproject.toml", "pdm run pytest"],
    [["pyproject.toml", "Pipfile"], "pyproject.toml", "pipenv run pytest"],
    [["requirements.txt", "uv.lock"], "requirements.txt", "uv run pytest"],
    [["Rakefile", "Gemfile"], "Rakefile", "bundle exec rake"],
    [["build.mill", "mill"], "build.mill", "./mill __.test"],
    [["build.sc", "mill"], "build.sc", "./mill __.test"],
    [["bun.lock", "package.json"], "package.json", "bun run test"],
  ];
  for (const [files, file, suggestion] of table) {
    it(`${files.join(" + ")} → \`${suggestion}\``, async () => {
      const dir = await dirWith(files);
      const signals = await scanBuildSignals([dir]);
      expect(signals.find((s) => s.file === file)?.suggestion).toBe(suggestion);
    });
  }
});

describe("a lockfile beside its manifest is not a second signal", () => {
  const table: ReadonlyArray<readonly [files: readonly string[], expected: readonly string[]]> = [
    [["Cargo.toml", "Cargo.lock"], ["Cargo.toml"]],
    [["package.json", "yarn.lock"], ["package.json"]],
    [["package.json", "pnpm-lock.yaml"], ["package.json"]],
    [["package.json", "package-lock.json"], ["package.json"]],
    [["package.json", "bun.lockb"], ["package.json"]],
    [["pyproject.toml", "uv.lock"], ["pyproject.toml"]],
    [["pyproject.toml", "poetry.lock"], ["pyproject.toml"]],
  ];
  for (const [files, expected] of table) {
    it(`${files.join(" + ")} → ${expected.join(", ")}`, async () => {
      const dir = await dirWith(files);
      expect((await scanBuildSignals([dir])).map((s) => s.file)).toEqual(expected);
    });
  }

  it("a lockfile whose manifest is only a folder of that name is still a signal", async () => {
    const dir = await dirWith(["Cargo.toml/", "Cargo.lock"]);
    expect((await scanBuildSignals([dir])).map((s) => s.file)).toEqual(["Cargo.lock"]);
  });
});

describe("scanBuildSignals", () => {
  it("matches *.csproj by glob and lists every project file, but not a bare `.csproj` or a folder", async () => {
    const dir = await dirWith(["Api.csproj", "Worker.csproj", ".csproj", "Tools.csproj/"]);
    expect((await scanBuildSignals([dir])).map((s) => s.file)).toEqual(["Api.csproj", "Worker.csproj"]);
  });

  it("a folder named like a signal is not a signal", async () => {
    const dir = await dirWith(["package.json/", "Makefile/"]);
    expect(await scanBuildSignals([dir])).toEqual([]);
  });

  it(`reads ${MAX_DEPTH} levels down and no further (issue 26): src/app/pom.xml and a/b/c/package.json are found, a/b/c/d/package.json is not`, async () => {
    expect(MAX_DEPTH).toBe(3);
    const dir = await dirWith(["src/app/pom.xml", "a/b/c/package.json", "w/x/y/z/package.json", "README.md"]);
    expect(await scanBuildSignals([dir])).toEqual([
      { file: "a/b/c/package.json", ecosystem: "Node.js (npm)", suggestion: "(cd a/b/c && npm test)" },
      { file: "src/app/pom.xml", ecosystem: "Maven", suggestion: "(cd src/app && mvn -B verify)" },
    ]);
  });

  it("never descends into dependencies, build output or hidden folders, at any depth", async () => {
    const dir = await dirWith([
      "node_modules/x/y/package.json",
      "web/node_modules/left-pad/package.json",
      "vendor/a/b/pom.xml",
      "src/vendor/lib/go.mod",
      ".git/a/package.json",
      "src/.cache/Makefile",
    ]);
    expect(await scanBuildSignals([dir])).toEqual([]);
  });

  it("a Python repository with only tests/test_x.py, or only conftest.py, is not none-detected: pytest, run from the project (issue 26)", async () => {
    const tests = await dirWith(["tests/test_sum.py", "sum.py"]);
    expect(await scanBuildSignals([tests])).toEqual([
      { file: "tests/test_sum.py", ecosystem: "Python (pytest)", suggestion: "pytest" },
    ]);
    const conftest = await dirWith(["conftest.py", "sum.py"]);
    expect(await scanBuildSignals([conftest])).toEqual([
      { file: "conftest.py", ecosystem: "Python (pytest)", suggestion: "pytest" },
    ]);
    const nested = await dirWith(["svc/tests/sum_test.py"]);
    expect(await scanBuildSignals([nested])).toEqual([
      { file: "svc/tests/sum_test.py", ecosystem: "Python (pytest)", suggestion: "(cd svc && pytest)" },
    ]);
    // A name that only looks alike is not a test file.
    expect(await scanBuildSignals([await dirWith(["test_.py", "tests/notes.py"])])).toEqual([]);
  });

  it("a tsconfig.json alone is a TypeScript project; beside a package.json it adds nothing (issue 26)", async () => {
    expect(await scanBuildSignals([await dirWith(["tsconfig.json", "src/index.ts"])])).toEqual([
      { file: "tsconfig.json", ecosystem: "TypeScript", suggestion: "npx --yes -p typescript tsc --noEmit" },
    ]);
    expect(
      (await scanBuildSignals([await dirWith(["tsconfig.json", "package.json"])])).map((s) => s.file),
    ).toEqual(["package.json"]);
  });

  it("a missing directory yields no signals rather than an error", async () => {
    const dir = await dirWith([]);
    expect(await scanBuildSignals([join(dir, "nope")])).toEqual([]);
  });

  it("scans the working directory too, naming its files relative to the root, without duplicates", async () => {
    const root = await dirWith(["Makefile", "app/package.json"]);
    const signals = await scanBuildSignals([root, join(root, "app"), root]);
    expect(signals).toEqual([
      { file: "Makefile", ecosystem: "Make", suggestion: "make" },
      // Found by the working directory's own scan (where the command runs), not the root's descent.
      { file: "app/package.json", ecosystem: "Node.js (npm)", suggestion: "npm test" },
    ]);
  });

  it("reads at most 10,000 entries of a 20,000-entry directory and still finds exact-name signals", async () => {
    const dir = await dirWith([]);
    const names = Array.from({ length: 20_000 }, (_, i) => `file-${String(i).padStart(5, "0")}.txt`);
    for (let i = 0; i < names.length; i += 1000) {
      await Promise.all(names.slice(i, i + 1000).map((n) => writeFile(join(dir, n), "")));
    }
    await writeFile(join(dir, "go.mod"), "");

    const listing = await listTopLevelNames(dir);
    expect(MAX_ENTRIES_PER_DIRECTORY).toBe(10_000);
    expect(listing.read).toBe(10_000);
    expect(listing.entries.size).toBe(10_000);
    expect(listing.truncated).toBe(true);

    const signals = await scanBuildSignals([dir]);
    expect(signals).toEqual([{ file: "go.mod", ecosystem: "Go", suggestion: "go test ./..." }]);
  });

  it("a listing under the cap is complete and not marked truncated", async () => {
    const dir = await dirWith(["a", "b", "c"]);
    const listing = await listTopLevelNames(dir, { limit: 3 });
    expect(listing).toMatchObject({ read: 3, truncated: false });
    const capped = await listTopLevelNames(dir, { limit: 2 });
    expect(capped).toMatchObject({ read: 2, truncated: true });
  });
});

describe("suggestVerifyCommand", () => {
  const signal = (file: string, suggestion: string): BuildSignal => ({ file, ecosystem: "x", suggestion });

  it("suggests nothing when there are no signals", () => {
    expect(suggestVerifyCommand([])).toBeNull();
  });

  it("picks the table's first signal and calls the pick a guess when commands differ", () => {
    const pick = suggestVerifyCommand([signal("Makefile", "make"), signal("gradlew", "./gradlew build")]);
    expect(pick).toMatchObject({ command: "./gradlew build", guess: true });
  });

  it("is not a guess when every signal suggests the same command", () => {
    const pick = suggestVerifyCommand([
      signal("gradlew", "./gradlew build"),
      signal("build.gradle", "./gradlew build"),
    ]);
    expect(pick).toMatchObject({ command: "./gradlew build", guess: false });
  });

  it("prefers the working directory's signal, where the command would run, over the root's", () => {
    const pick = suggestVerifyCommand([
      signal("gradlew", "./gradlew build"),
      signal("web/package.json", "npm test"),
    ]);
    expect(pick).toMatchObject({ command: "npm test", nested: null });
  });

  it("prefers a top-level signal over one found a level down, whatever the table order", () => {
    const pick = suggestVerifyCommand([
      signal("Makefile", "make"),
      signal("packages/app/gradlew", "(cd packages/app && ./gradlew build)"),
    ]);
    expect(pick).toMatchObject({ command: "make", guess: true, nested: null });
  });

  it("suggests a nested signal's command run in its folder, and says which folder and command", () => {
    const pick = suggestVerifyCommand([
      signal("packages/lib/Makefile", "(cd packages/lib && make)"),
      signal("packages/app/package.json", "(cd packages/app && npm test)"),
    ]);
    expect(pick).toEqual({
      command: "(cd packages/app && npm test)",
      signal: signal("packages/app/package.json", "(cd packages/app && npm test)"),
      guess: true,
      nested: { folder: "packages/app", command: "npm test" },
    });
  });

  it("reads a quoted folder back", () => {
    const pick = suggestVerifyCommand([signal("it's/go.mod", "(cd 'it'\\''s' && go test ./...)")]);
    expect(pick?.nested).toEqual({ folder: "it's", command: "go test ./..." });
  });

  it("a working directory's nested signal beats the root's own: it is where the command runs", () => {
    const pick = suggestVerifyCommand([
      signal("Makefile", "make"),
      signal("web/site/package.json", "(cd site && npm test)"),
    ]);
    expect(pick).toMatchObject({
      command: "(cd site && npm test)",
      nested: { folder: "web/site", command: "npm test" },
    });
  });

  it("round-trips with the scan: a monorepo package's suggestion and folder", async () => {
    const dir = await dirWith(["apps/web/package.json", "apps/web/pnpm-lock.yaml"]);
    const pick = suggestVerifyCommand(await scanBuildSignals([dir]));
    expect(pick).toMatchObject({
      command: "(cd apps/web && pnpm test)",
      guess: false,
      nested: { folder: "apps/web", command: "pnpm test" },
    });
  });
});

describe("one level down (SPEC §5: bounded, names only)", () => {
  it("a monorepo whose only package.json is in packages/app is not none-detected", async () => {
    const dir = await dirWith(["packages/app/package.json", "packages/app/yarn.lock", "README.md"]);
    expect(await scanBuildSignals([dir])).toEqual([
      {
        file: "packages/app/package.json",
        ecosystem: "Node.js (yarn)",
        suggestion: "(cd packages/app && yarn test)",
      },
    ]);
  });

  it("scans every conventional monorepo folder's children", async () => {
    expect(MONOREPO_FOLDERS).toEqual(["packages", "apps", "services", "libs", "crates", "modules", "cmd"]);
    const dir = await dirWith(MONOREPO_FOLDERS.map((folder) => `${folder}/one/Makefile`));
    const files = (await scanBuildSignals([dir])).map((s) => s.file);
    expect(files).toEqual([...MONOREPO_FOLDERS].sort().map((folder) => `${folder}/one/Makefile`));
  });

  it("scans an immediate subfolder's names and suggests running its command there", async () => {
    const dir = await dirWith(["backend/go.mod", "frontend/package.json", "frontend/pnpm-lock.yaml"]);
    expect(await scanBuildSignals([dir])).toEqual([
      { file: "backend/go.mod", ecosystem: "Go", suggestion: "(cd backend && go test ./...)" },
      {
        file: "frontend/package.json",
        ecosystem: "Node.js (pnpm)",
        suggestion: "(cd frontend && pnpm test)",
      },
    ]);
  });

  it("lists the top level's own signals before the nested ones, the nested ones in path order", async () => {
    const dir = await dirWith(["zeta/Makefile", "alpha/Cargo.toml", "Makefile", "packages/b/go.mod"]);
    expect((await scanBuildSignals([dir])).map((s) => s.file)).toEqual([
      "Makefile",
      "alpha/Cargo.toml",
      "packages/b/go.mod",
      "zeta/Makefile",
    ]);
  });

  it("quotes a folder name the shell would split, and never lets it read as an option", async () => {
    const dir = await dirWith(["my app/package.json", "-x/Makefile", "it's/go.mod"]);
    const bySuggestion = (await scanBuildSignals([dir])).map((s) => s.suggestion).sort();
    expect(bySuggestion).toEqual(
      ["(cd './-x' && make)", "(cd 'it'\\''s' && go test ./...)", "(cd 'my app' && npm test)"].sort(),
    );
  });

  it("skips hidden folders and dependency / build-output folders", async () => {
    expect([...SKIPPED_FOLDERS]).toEqual(
      expect.arrayContaining(["node_modules", "vendor", "target", "dist", "build"]),
    );
    const skipped = [".git", ".github", ".venv", ...SKIPPED_FOLDERS];
    const dir = await dirWith([
      ...skipped.map((folder) => `${folder}/package.json`),
      "packages/node_modules/package.json",
      "packages/.cache/Makefile",
      "apps/dist/Makefile",
    ]);
    expect(await scanBuildSignals([dir])).toEqual([]);
  });

  it("does not follow a symbolic link to a folder", async () => {
    const outside = await dirWith(["package.json"]);
    const dir = await dirWith(["packages/"]);
    await symlink(outside, join(dir, "linked"), "dir");
    await symlink(outside, join(dir, "packages", "linked"), "dir");
    expect(await scanBuildSignals([dir])).toEqual([]);
  });

  it(`scans at most ${MAX_SUBDIRECTORIES} subfolders per scanned directory, in name order`, async () => {
    expect(MAX_SUBDIRECTORIES).toBe(200);
    const names = Array.from({ length: MAX_SUBDIRECTORIES + 5 }, (_, i) => `d${String(i).padStart(3, "0")}`);
    const dir = await dirWith(names.map((n) => `${n}/Makefile`));
    const files = (await scanBuildSignals([dir])).map((s) => s.file);
    expect(files).toHaveLength(MAX_SUBDIRECTORIES);
    expect(files.at(0)).toBe("d000/Makefile");
    expect(files.at(-1)).toBe("d199/Makefile");
  });

  it("counts every level's folders toward the same bound, breadth first, a monorepo folder's children first of their level", async () => {
    const names = Array.from({ length: MAX_SUBDIRECTORIES + 5 }, (_, i) => `p${String(i).padStart(3, "0")}`);
    const dir = await dirWith([
      ...names.map((n) => `packages/${n}/package.json`),
      "zz/Makefile",
      "aa/deep/go.mod",
    ]);
    const files = (await scanBuildSignals([dir])).map((s) => s.file);
    // Level 1 (aa, packages, zz) first, then level 2: packages' children before aa/deep, up to 200 in all.
    expect(files).toHaveLength(MAX_SUBDIRECTORIES - 3 + 1);
    expect(files).toContain("zz/Makefile");
    expect(files).toContain("packages/p196/package.json");
    expect(files).not.toContain("packages/p197/package.json");
    expect(files).not.toContain("aa/deep/go.mod");
  });

  it("phrases a folder the working directory reaches from the working directory, and scans it once", async () => {
    const root = await dirWith(["packages/app/package.json", "packages/lib/Cargo.toml"]);
    const signals = await scanBuildSignals([root, join(root, "packages")]);
    expect(signals).toEqual([
      { file: "packages/app/package.json", ecosystem: "Node.js (npm)", suggestion: "(cd app && npm test)" },
      { file: "packages/lib/Cargo.toml", ecosystem: "Rust (Cargo)", suggestion: "(cd lib && cargo test)" },
    ]);
  });
});
