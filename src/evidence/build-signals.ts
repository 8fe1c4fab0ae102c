/**
 * Build-signal detection (SPEC §5; seed 003; oh-my-graph ADR 0030 via research/oh-my-graph.md §6.7).
 *
 * A build signal is a file that says "this repository builds". The scan reads names only — it never
 * opens a file and never runs anything — and it is bounded however large the repository is:
 *
 * - Each scanned directory's top level (the checked-out root, then `working-directory`): exact names are
 *   looked up one by one (a fixed number of `lstat` calls, so a `package.json` is never missed because the
 *   directory is huge), and only the glob rules (`*.csproj`, `*.sln`, …) and the name-based hints
 *   (lockfiles, wrappers) read the listing, which stops after {@link MAX_ENTRIES_PER_DIRECTORY} entries.
 * - One level down: the same scan over each scanned directory's immediate subdirectories, and over the
 *   children of the conventional monorepo folders ({@link MONOREPO_FOLDERS}: `packages/app`, `apps/web`,
 *   …), skipping hidden folders and {@link SKIPPED_FOLDERS} and stopping after
 *   {@link MAX_SUBDIRECTORIES} of them per scanned directory. Symbolic links are never followed. A signal
 *   found there is still a reason to refuse; its suggestion runs the command in that folder,
 *   `(cd packages/app && npm test)`.
 *
 * The table is prose, not policy: a repository file may make the tool STOP (refuse), never run a command.
 * The suggestion is only ever printed for the operator to copy.
 */
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { BuildSignal } from "../core/build-evidence-answer.js";

/** Most directory entries read per scanned directory (SPEC §5: "bounded however large the repository is"). */
export const MAX_ENTRIES_PER_DIRECTORY = 10_000;

/** Most subdirectories scanned one level below each scanned directory (monorepo children included). */
export const MAX_SUBDIRECTORIES = 200;

/** Folders whose children are scanned too: where monorepos keep their projects (`packages/app`). */
export const MONOREPO_FOLDERS: readonly string[] = [
  "packages",
  "apps",
  "services",
  "libs",
  "crates",
  "modules",
  "cmd",
];

/**
 * Folders never descended into: dependencies and build output, whose build files are someone else's.
 * Hidden folders (`.git`, `.venv`, …) are skipped too.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  "vendor",
  "target",
  "dist",
  "build",
  "venv",
  "__pycache__",
]);

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
  /** Subdirectory names from the (bounded) listing, sorted. */
  readonly folders: () => readonly string[];
}

interface SignalRule {
  /** An exact file name, or `*.ext` for a glob over the (bounded) listing. */
  readonly pattern: string;
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

/** Exact names any rule, hint or descent may ask about; each is looked up with `lstat`, never opened. */
const EXACT_NAMES = [
  ...new Set([
    ...RULES.map((r) => r.pattern).filter((p) => !p.startsWith("*")),
    ...RULES.flatMap((r) => r.unlessBeside ?? []),
    "mill",
    ".metadata",
    "android",
    "ios",
    ...MONOREPO_FOLDERS,
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
  const named = (kind: "file" | "dir"): string[] =>
    [...listing.entries].filter(([, k]) => k === kind).map(([name]) => name);
  return {
    has: (name, kind = "file") => exact.get(name) === kind,
    matching: (suffix) =>
      named("file")
        .filter((name) => name.endsWith(suffix) && name.length > suffix.length)
        .sort(),
    folders: () => named("dir").sort(),
  };
}

/** The signals one directory's names carry, by table priority. `suggest` shapes each command. */
function signalsIn(
  names: Names,
  display: (name: string) => string,
  suggest: (command: string) => string,
): BuildSignal[] {
  const signals: BuildSignal[] = [];
  for (const rule of RULES) {
    if (rule.unlessBeside?.some((name) => names.has(name))) continue;
    const files = rule.pattern.startsWith("*")
      ? names.matching(rule.pattern.slice(1))
      : names.has(rule.pattern)
        ? [rule.pattern]
        : [];
    for (const name of files) {
      signals.push({
        file: display(name),
        ecosystem: rule.ecosystem(names),
        suggestion: suggest(rule.suggestion(names)),
      });
    }
  }
  return signals;
}

/** A signal's file, relative to the first scanned directory (the checked-out root) when inside it. */
function displayPath(root: string, dir: string, name: string): string {
  const rel = relative(root, join(dir, name));
  const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== "..";
  return (inside ? rel : join(dir, name)).split(sep).join("/");
}

/** A folder worth descending into: not hidden, not dependencies or build output. */
const descendable = (name: string): boolean => !name.startsWith(".") && !SKIPPED_FOLDERS.has(name);

/**
 * The folders one level below a scanned directory, as `/`-separated paths relative to it: each immediate
 * subdirectory, followed by the children of a monorepo folder (`packages`, then `packages/app`, …), in
 * name order, at most {@link MAX_SUBDIRECTORIES}. Folders in `exclude` (absolute) are passed over and not
 * counted.
 */
async function subfoldersOf(dir: string, names: Names, exclude: ReadonlySet<string>): Promise<string[]> {
  const picked: string[] = [];
  const take = (rel: string): boolean => {
    if (picked.length >= MAX_SUBDIRECTORIES) return false;
    if (!exclude.has(join(dir, ...rel.split("/")))) picked.push(rel);
    return true;
  };
  const top = new Set(names.folders());
  for (const name of MONOREPO_FOLDERS) if (names.has(name, "dir")) top.add(name);
  for (const name of [...top].sort()) {
    if (!descendable(name)) continue;
    if (!take(name)) break;
    if (!MONOREPO_FOLDERS.includes(name)) continue;
    const children = await listTopLevelNames(join(dir, name));
    const folders = [...children.entries].filter(([, kind]) => kind === "dir").map(([child]) => child);
    for (const child of folders.sort()) {
      if (descendable(child) && !take(`${name}/${child}`)) break;
    }
  }
  return picked;
}

/** Subfolder scans in flight at once. */
const PARALLEL_SCANS = 16;

async function mapInBatches<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL_SCANS) {
    out.push(...(await Promise.all(items.slice(i, i + PARALLEL_SCANS).map(f))));
  }
  return out;
}

/** A path as one shell word: plain when it is safe, else single-quoted; never read as an option. */
function shellWord(path: string): string {
  if (/^[A-Za-z0-9_@%+=:,.][A-Za-z0-9_@%+=:,./-]*$/.test(path)) return path;
  const word = path.startsWith("-") ? `./${path}` : path;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The suggestion for a signal found one level down: run its command in that folder. */
function inFolder(folder: string, command: string): string {
  return `(cd ${shellWord(folder)} && ${command})`;
}

/** Reads {@link inFolder}'s form back: the folder (relative to its scanned directory) and the command. */
function fromFolder(suggestion: string): { readonly folder: string; readonly command: string } | null {
  const match = /^\(cd ('(?:[^']|'\\'')*'|[^\s']+) && ([\s\S]+)\)$/.exec(suggestion);
  if (match === null) return null;
  const word = match[1]!;
  const folder = word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word;
  return { folder: folder.startsWith("./") ? folder.slice(2) : folder, command: match[2]! };
}

/**
 * Scans each directory's top level, and one level below it, for build signals.
 *
 * @param dirs the checked-out root first, then `working-directory` if set. Duplicates are scanned once.
 * @returns for each directory in order: its own signals by table priority, then those of the folders one
 *   level down (in path order, each by table priority). `file` is relative to `dirs[0]`; a signal found
 *   one level down suggests `(cd <folder> && <command>)`, the folder relative to the directory scanned.
 *   A folder is scanned once, from the deepest directory that reaches it (where the command would run).
 *   An unreadable or missing directory contributes none.
 */
export async function scanBuildSignals(dirs: readonly string[]): Promise<BuildSignal[]> {
  const unique = [...new Set(dirs.map((d) => resolve(d)))];
  const root = unique[0];
  if (root === undefined) return [];
  const own = await Promise.all(unique.map((dir) => namesIn(dir)));
  const seen = new Set(unique);
  const nested = new Map<string, BuildSignal[]>();
  // The last directory (the working directory) claims the folders it reaches first, so a nested
  // signal's command is phrased from where it would run.
  for (let i = unique.length - 1; i >= 0; i--) {
    const dir = unique[i]!;
    const folders = await subfoldersOf(dir, own[i]!, seen);
    for (const folder of folders) seen.add(join(dir, ...folder.split("/")));
    const found = await mapInBatches(folders, async (folder) => {
      const abs = join(dir, ...folder.split("/"));
      return signalsIn(
        await namesIn(abs),
        (name) => displayPath(root, abs, name),
        (command) => inFolder(folder, command),
      );
    });
    nested.set(dir, found.flat());
  }
  return unique.flatMap((dir, i) => [
    ...signalsIn(
      own[i]!,
      (name) => displayPath(root, dir, name),
      (command) => command,
    ),
    ...(nested.get(dir) ?? []),
  ]);
}

/** The command suggested for a set of signals, and whether it is a guess among several. */
export interface VerifySuggestion {
  readonly command: string;
  /** The signal the command was taken from. */
  readonly signal: BuildSignal;
  /** True when the signals suggest more than one distinct command. */
  readonly guess: boolean;
  /**
   * For a signal found one level below a scanned directory: the folder holding it, relative to the root
   * (what `working-directory` would be), and the command to run there. `null` for a top-level signal.
   */
  readonly nested: { readonly folder: string; readonly command: string } | null;
}

const segments = (path: string): number => (path === "." || path === "" ? 0 : path.split("/").length);

/**
 * Picks one verify command to suggest: from the deepest scanned directory (the `working-directory`,
 * where the command would run, before the root), its own top-level signals before those found one level
 * down, then by table priority.
 *
 * @returns `null` when there are no signals.
 */
export function suggestVerifyCommand(signals: readonly BuildSignal[]): VerifySuggestion | null {
  const rank = (s: BuildSignal): number => {
    const name = basename(s.file);
    const index = RULES.findIndex((r) =>
      r.pattern.startsWith("*") ? name.endsWith(r.pattern.slice(1)) : r.pattern === name,
    );
    return index === -1 ? RULES.length : index;
  };
  const placed = signals.map((signal) => {
    const inner = fromFolder(signal.suggestion);
    const folderDepth = segments(dirname(signal.file));
    return {
      signal,
      inner,
      /** Depth of the directory that was scanned to find this signal. */
      scanned: folderDepth - (inner === null ? 0 : segments(inner.folder)),
      rank: rank(signal),
    };
  });
  const ordered = placed.sort(
    (a, b) => b.scanned - a.scanned || Number(a.inner !== null) - Number(b.inner !== null) || a.rank - b.rank,
  );
  const first = ordered[0];
  if (first === undefined) return null;
  const distinct = new Set(signals.map((s) => s.suggestion));
  return {
    command: first.signal.suggestion,
    signal: first.signal,
    guess: distinct.size > 1,
    nested:
      first.inner === null ? null : { folder: dirname(first.signal.file), command: first.inner.command },
  };
}
