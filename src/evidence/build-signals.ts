/**
 * Build-signal detection (SPEC §5; seed 003; oh-my-graph ADR 0030 via research/oh-my-graph.md §6.7).
 *
 * A build signal is a file at a scanned directory's top level that says "this repository builds". The
 * scan reads names only — it never opens a file and never runs anything — and it is bounded however large
 * the directory is: exact names are looked up one by one (a fixed number of `lstat` calls, so a
 * `package.json` is never missed because the directory is huge), and only the glob rules (`*.csproj`,
 * `*.sln`, …) and the name-based hints (lockfiles, wrappers) read the listing, which stops after
 * {@link MAX_ENTRIES_PER_DIRECTORY} entries.
 *
 * The table is prose, not policy: a repository file may make the tool STOP (refuse), never run a command.
 * The suggestion is only ever printed for the operator to copy.
 */
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { BuildSignal } from "./answer.js";

/** Most directory entries read per scanned directory (SPEC §5: "bounded however large the repository is"). */
export const MAX_ENTRIES_PER_DIRECTORY = 10_000;

/** What a directory's top level holds, as far as the scan read it. */
export interface TopLevelNames {
  /** Names seen, with whether each is a directory. */
  readonly entries: ReadonlyMap<string, "file" | "dir">;
  /** Directory entries read (≤ the limit). */
  readonly read: number;
  /** True when the listing stopped at the limit with entries left unread. */
  readonly truncated: boolean;
}

/**
 * Lists a directory's top-level names, reading at most `limit` entries. An unreadable or missing
 * directory yields no names (a scan never fails a run; oh-my-graph §6.7: "unreadable dir = no signals").
 */
export async function listTopLevelNames(
  dir: string,
  options: { readonly limit?: number } = {},
): Promise<TopLevelNames> {
  const limit = options.limit ?? MAX_ENTRIES_PER_DIRECTORY;
  const entries = new Map<string, "file" | "dir">();
  let read = 0;
  let truncated = false;
  let handle: Awaited<ReturnType<typeof opendir>>;
  try {
    handle = await opendir(dir, { bufferSize: 256 });
  } catch {
    return { entries, read, truncated };
  }
  try {
    for (;;) {
      if (read >= limit) {
        truncated = (await handle.read()) !== null;
        break;
      }
      const entry = await handle.read();
      if (entry === null) break;
      read++;
      entries.set(entry.name, entry.isDirectory() ? "dir" : "file");
    }
  } catch {
    // A directory that vanishes mid-listing: keep what was read.
  } finally {
    await handle.close().catch(() => undefined);
  }
  return { entries, read, truncated };
}

/** The names one rule looks at. `has` answers for exact names even beyond the listing's limit. */
interface Names {
  readonly has: (name: string, kind?: "file" | "dir") => boolean;
  readonly matching: (suffix: string) => readonly string[];
}

interface SignalRule {
  /** An exact file name, or `*.ext` for a glob over the (bounded) listing. */
  readonly pattern: string;
  readonly ecosystem: (names: Names) => string;
  readonly suggestion: (names: Names) => string;
}

const fixed =
  (value: string) =>
  (_names: Names): string =>
    value;

/** Which JavaScript package manager a `package.json` directory uses, judged by lockfile name only. */
function nodeManager(names: Names): { readonly ecosystem: string; readonly suggestion: string } {
  if (names.has("pnpm-lock.yaml")) return { ecosystem: "Node.js (pnpm)", suggestion: "pnpm test" };
  if (names.has("yarn.lock")) return { ecosystem: "Node.js (yarn)", suggestion: "yarn test" };
  if (names.has("bun.lockb") || names.has("bun.lock")) {
    return { ecosystem: "Node.js (bun)", suggestion: "bun run test" };
  }
  return { ecosystem: "Node.js (npm)", suggestion: "npm test" };
}

function pythonRunner(names: Names): string {
  if (names.has("uv.lock")) return "uv run pytest";
  if (names.has("poetry.lock")) return "poetry run pytest";
  return "pytest";
}

const gradle = (names: Names): string => (names.has("gradlew") ? "./gradlew build" : "gradle build");
const maven = (names: Names): string => (names.has("mvnw") ? "./mvnw -B verify" : "mvn -B verify");
/** A Flutter app is a Dart package with platform folders or Flutter's `.metadata` beside its pubspec. */
const isFlutter = (names: Names): boolean =>
  names.has(".metadata") || names.has("android", "dir") || names.has("ios", "dir");
const cmake = "cmake -S . -B build && cmake --build build && ctest --test-dir build";

/**
 * The signal table, in priority order: when several match, the first one's command is suggested (and
 * flagged as a guess). Starts from the Go CLI's list and extends it (SPEC §5).
 */
const RULES: readonly SignalRule[] = [
  { pattern: "gradlew", ecosystem: fixed("Gradle"), suggestion: fixed("./gradlew build") },
  { pattern: "build.gradle.kts", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "build.gradle", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "settings.gradle.kts", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "settings.gradle", ecosystem: fixed("Gradle"), suggestion: gradle },
  { pattern: "mvnw", ecosystem: fixed("Maven"), suggestion: fixed("./mvnw -B verify") },
  { pattern: "pom.xml", ecosystem: fixed("Maven"), suggestion: maven },
  { pattern: "build.sbt", ecosystem: fixed("sbt (Scala)"), suggestion: fixed("sbt test") },
  { pattern: "Cargo.toml", ecosystem: fixed("Rust (Cargo)"), suggestion: fixed("cargo test") },
  {
    pattern: "package.json",
    ecosystem: (n) => nodeManager(n).ecosystem,
    suggestion: (n) => nodeManager(n).suggestion,
  },
  { pattern: "deno.json", ecosystem: fixed("Deno"), suggestion: fixed("deno test") },
  { pattern: "deno.jsonc", ecosystem: fixed("Deno"), suggestion: fixed("deno test") },
  { pattern: "pyproject.toml", ecosystem: fixed("Python"), suggestion: pythonRunner },
  { pattern: "setup.py", ecosystem: fixed("Python"), suggestion: pythonRunner },
  { pattern: "Gemfile", ecosystem: fixed("Ruby (Bundler)"), suggestion: fixed("bundle exec rake") },
  { pattern: "mix.exs", ecosystem: fixed("Elixir (Mix)"), suggestion: fixed("mix test") },
  { pattern: "go.mod", ecosystem: fixed("Go"), suggestion: fixed("go test ./...") },
  { pattern: "composer.json", ecosystem: fixed("PHP (Composer)"), suggestion: fixed("composer test") },
  { pattern: "Package.swift", ecosystem: fixed("Swift (SwiftPM)"), suggestion: fixed("swift test") },
  {
    pattern: "pubspec.yaml",
    ecosystem: (n) => (isFlutter(n) ? "Flutter" : "Dart"),
    suggestion: (n) => (isFlutter(n) ? "flutter test" : "dart test"),
  },
  { pattern: "build.zig", ecosystem: fixed("Zig"), suggestion: fixed("zig build test") },
  { pattern: "stack.yaml", ecosystem: fixed("Haskell (Stack)"), suggestion: fixed("stack test") },
  { pattern: "*.cabal", ecosystem: fixed("Haskell (Cabal)"), suggestion: fixed("cabal test") },
  { pattern: "dune-project", ecosystem: fixed("OCaml (dune)"), suggestion: fixed("dune test") },
  { pattern: "rebar.config", ecosystem: fixed("Erlang (rebar3)"), suggestion: fixed("rebar3 eunit") },
  { pattern: "project.clj", ecosystem: fixed("Clojure (Leiningen)"), suggestion: fixed("lein test") },
  { pattern: "*.sln", ecosystem: fixed(".NET"), suggestion: fixed("dotnet test") },
  { pattern: "*.csproj", ecosystem: fixed(".NET"), suggestion: fixed("dotnet test") },
  { pattern: "*.fsproj", ecosystem: fixed(".NET"), suggestion: fixed("dotnet test") },
  { pattern: "*.vbproj", ecosystem: fixed(".NET"), suggestion: fixed("dotnet test") },
  { pattern: "MODULE.bazel", ecosystem: fixed("Bazel"), suggestion: fixed("bazel test //...") },
  { pattern: "WORKSPACE", ecosystem: fixed("Bazel"), suggestion: fixed("bazel test //...") },
  { pattern: "WORKSPACE.bazel", ecosystem: fixed("Bazel"), suggestion: fixed("bazel test //...") },
  { pattern: "flake.nix", ecosystem: fixed("Nix (flake)"), suggestion: fixed("nix flake check") },
  { pattern: "CMakeLists.txt", ecosystem: fixed("CMake"), suggestion: fixed(cmake) },
  {
    pattern: "meson.build",
    ecosystem: fixed("Meson"),
    suggestion: fixed("meson setup build && meson test -C build"),
  },
  { pattern: "Makefile", ecosystem: fixed("Make"), suggestion: fixed("make") },
  { pattern: "GNUmakefile", ecosystem: fixed("Make"), suggestion: fixed("make") },
  { pattern: "makefile", ecosystem: fixed("Make"), suggestion: fixed("make") },
];

/** Exact names any rule or hint may ask about; each is looked up with `lstat`, never opened. */
const EXACT_NAMES = [
  ...new Set([
    ...RULES.map((r) => r.pattern).filter((p) => !p.startsWith("*")),
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lockb",
    "bun.lock",
    "uv.lock",
    "poetry.lock",
    ".metadata",
    "android",
    "ios",
  ]),
];

async function kindOf(path: string): Promise<"file" | "dir" | null> {
  try {
    const stats = await lstat(path);
    return stats.isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

async function namesIn(dir: string): Promise<Names> {
  const listing = await listTopLevelNames(dir);
  const exact = new Map<string, "file" | "dir">();
  await Promise.all(
    EXACT_NAMES.map(async (name) => {
      const kind = listing.entries.get(name) ?? (listing.truncated ? await kindOf(join(dir, name)) : null);
      if (kind !== null) exact.set(name, kind);
    }),
  );
  return {
    has: (name, kind = "file") => exact.get(name) === kind,
    matching: (suffix) =>
      [...listing.entries]
        .filter(([name, kind]) => kind === "file" && name.endsWith(suffix) && name.length > suffix.length)
        .map(([name]) => name)
        .sort(),
  };
}

/** A signal's file, relative to the first scanned directory (the checked-out root) when inside it. */
function displayPath(root: string, dir: string, name: string): string {
  const rel = relative(root, join(dir, name));
  const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== "..";
  return (inside ? rel : join(dir, name)).split(sep).join("/");
}

/**
 * Scans each directory's top level (no recursion) for build signals.
 *
 * @param dirs the checked-out root first, then `working-directory` if set. Duplicates are scanned once.
 * @returns signals in directory order, then table priority; `file` is relative to `dirs[0]`. An
 *   unreadable or missing directory contributes none.
 */
export async function scanBuildSignals(dirs: readonly string[]): Promise<BuildSignal[]> {
  const unique = [...new Set(dirs.map((d) => resolve(d)))];
  const root = unique[0];
  if (root === undefined) return [];
  const signals: BuildSignal[] = [];
  for (const dir of unique) {
    const names = await namesIn(dir);
    for (const rule of RULES) {
      const files = rule.pattern.startsWith("*")
        ? names.matching(rule.pattern.slice(1))
        : names.has(rule.pattern)
          ? [rule.pattern]
          : [];
      for (const name of files) {
        signals.push({
          file: displayPath(root, dir, name),
          ecosystem: rule.ecosystem(names),
          suggestion: rule.suggestion(names),
        });
      }
    }
  }
  return signals;
}

/** The command suggested for a set of signals, and whether it is a guess among several. */
export interface VerifySuggestion {
  readonly command: string;
  /** The signal the command was taken from. */
  readonly signal: BuildSignal;
  /** True when the signals suggest more than one distinct command. */
  readonly guess: boolean;
}

/**
 * Picks one verify command to suggest: the highest-priority signal of the deepest scanned directory
 * (the `working-directory`, where the command would run, before the root).
 *
 * @returns `null` when there are no signals.
 */
export function suggestVerifyCommand(signals: readonly BuildSignal[]): VerifySuggestion | null {
  const depth = (s: BuildSignal): number => {
    const dir = dirname(s.file);
    return dir === "." ? 0 : dir.split("/").length;
  };
  const rank = (s: BuildSignal): number => {
    const name = basename(s.file);
    const index = RULES.findIndex((r) =>
      r.pattern.startsWith("*") ? name.endsWith(r.pattern.slice(1)) : r.pattern === name,
    );
    return index === -1 ? RULES.length : index;
  };
  const ordered = [...signals].sort((a, b) => depth(b) - depth(a) || rank(a) - rank(b));
  const first = ordered[0];
  if (first === undefined) return null;
  const distinct = new Set(signals.map((s) => s.suggestion));
  return { command: first.suggestion, signal: first, guess: distinct.size > 1 };
}
