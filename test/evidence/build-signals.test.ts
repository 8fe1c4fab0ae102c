import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BuildSignal } from "../../src/evidence/answer.js";
import {
  listTopLevelNames,
  MAX_ENTRIES_PER_DIRECTORY,
  scanBuildSignals,
  suggestVerifyCommand,
} from "../../src/evidence/build-signals.js";

const made: string[] = [];

/** A temp directory holding the given names (a trailing `/` makes a directory). Contents are never read. */
async function dirWith(names: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "evidence-gate-signals-"));
  made.push(dir);
  for (const name of names) {
    if (name.endsWith("/")) await mkdir(join(dir, name), { recursive: true });
    else {
      await mkdir(join(dir, name, ".."), { recursive: true });
      await writeFile(join(dir, name), "");
    }
  }
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

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
  ];
  for (const [files, file, suggestion] of table) {
    it(`${files.join(" + ")} → \`${suggestion}\``, async () => {
      const dir = await dirWith(files);
      const signals = await scanBuildSignals([dir]);
      expect(signals.find((s) => s.file === file)?.suggestion).toBe(suggestion);
    });
  }
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

  it("reads only the top level: a signal in a subfolder is not detected", async () => {
    const dir = await dirWith(["docs/package.json", "README.md"]);
    expect(await scanBuildSignals([dir])).toEqual([]);
  });

  it("a missing directory yields no signals rather than an error", async () => {
    const dir = await dirWith([]);
    expect(await scanBuildSignals([join(dir, "nope")])).toEqual([]);
  });

  it("scans the working directory too, naming its files relative to the root, without duplicates", async () => {
    const root = await dirWith(["Makefile", "app/package.json"]);
    const signals = await scanBuildSignals([root, join(root, "app"), root]);
    expect(signals.map((s) => s.file)).toEqual(["Makefile", "app/package.json"]);
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
    expect(pick?.command).toBe("npm test");
  });
});
