#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  describePolicySource,
  policySummary,
  readWorkingTreePolicy
} from "./cli-chunk-VQL2HO5C.js";
import {
  EXIT
} from "./cli-chunk-O74QMRSQ.js";
import {
  GitError,
  buildChildEnv,
  folderWriteProblem,
  git,
  gitObjectsProblem,
  hiddenPathspecs,
  outputFileProblem
} from "./cli-chunk-SR53E4SO.js";
import {
  createRedactor
} from "./cli-chunk-Q4DFSTE5.js";

// src/run/credentials.ts
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
var CREDENTIAL_VARIABLES = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "CODEX_API_KEY"
];
var MODEL_CREDENTIALS = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"]
};
var present = (s) => typeof s === "string" && s !== "";
function cliSecrets(env) {
  const knownSecrets = CREDENTIAL_VARIABLES.map((name) => env[name]).filter(present);
  const credentialsOf = (runtime) => cliModelCredentials(env, runtime);
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  return {
    knownSecrets,
    redactor: createRedactor(knownSecrets),
    githubToken: token === "" ? void 0 : token,
    modelEnv: (_label, runtime) => buildChildEnv({
      base: env,
      child: { kind: "model", runtime },
      knownSecrets,
      set: credentialsOf(runtime)
    })
  };
}
function codexCredentialProblem(env, runtime, codexConfig) {
  if (runtime !== "codex") return null;
  if (MODEL_CREDENTIALS.codex.some((name) => (env[name] ?? "") !== "")) return null;
  if (codexConfig.some((pair) => /^\s*"?model_provider"?\s*=/.test(pair))) return null;
  const codexHome = env.CODEX_HOME ?? (env.HOME !== void 0 ? join(env.HOME, ".codex") : void 0);
  if (codexHome !== void 0) {
    if (existsSync(join(codexHome, "auth.json"))) return null;
    const config = join(codexHome, "config.toml");
    if (existsSync(config) && /^\s*model_provider\s*=/m.test(readFileSync(config, "utf8"))) return null;
  }
  return "codex has no credential: set OPENAI_API_KEY (or CODEX_API_KEY), run `codex login`, or name a provider with --codex-config model_provider=\u2026; nothing was run";
}
function cliModelCredentials(env, runtime) {
  const set = {};
  for (const name of MODEL_CREDENTIALS[runtime]) {
    const value = env[name];
    if (present(value)) set[name] = value;
  }
  return set;
}

// src/run/local-setup.ts
import { join as join4, resolve as resolve3 } from "node:path";

// src/run/local-repository.ts
import { existsSync as existsSync2, realpathSync as realpathSync2, statSync } from "node:fs";
import { relative as relative2, resolve as resolve2, sep as sep2 } from "node:path";

// src/engine/outside-writes.ts
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join as join2, relative, resolve, sep } from "node:path";
var OUTSIDE_WRITES_KEPT = 10;
function outsideWrites(paths, where) {
  const root = realOrSelf(resolve(where.repoRoot));
  const outside = /* @__PURE__ */ new Set();
  for (const path of paths) {
    const placed = placePath(path, where.cwd);
    if (placed === null) {
      outside.add(path);
      continue;
    }
    if (!inside(root, placed)) outside.add(placed);
  }
  if (outside.size === 0) return void 0;
  return { total: outside.size, paths: [...outside].slice(0, OUTSIDE_WRITES_KEPT) };
}
function liesInRepository(path, where) {
  const placed = placePath(path, where.cwd);
  return placed !== null && inside(realOrSelf(resolve(where.repoRoot)), placed);
}
function placePath(path, cwd) {
  if (path === "~" || path.startsWith("~/") || path.startsWith(`~${sep}`)) return null;
  const absolute = resolve(cwd, path);
  const rest = [];
  let current = absolute;
  for (; ; ) {
    if (exists(current)) {
      try {
        return rest.length === 0 ? realpathSync(current) : join2(realpathSync(current), ...rest);
      } catch {
        return null;
      }
    }
    const parent = dirname(current);
    if (parent === current) return null;
    rest.unshift(basename(current));
    current = parent;
  }
}
function exists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
function realOrSelf(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
function inside(root, path) {
  const rel = relative(root, path);
  return rel === "" || !isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`);
}

// src/evidence/evidence-tree.ts
import { copyFile, mkdtemp, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute as isAbsolute2, join as join3 } from "node:path";
var NotAGitRepositoryError = class extends Error {
  constructor(dir, detail) {
    super(
      `${dir} is not inside a git working tree (${detail}); evidence-gate records the evidence tree and the starting commit with git. Run it in a checkout (actions/checkout, or git clone / git init).`
    );
    this.dir = dir;
    this.detail = detail;
    this.name = "NotAGitRepositoryError";
  }
  dir;
  detail;
};
var NoCommitError = class extends Error {
  constructor(dir) {
    super(`${dir} is a git repository with no commit yet: there is no starting commit to verify against.`);
    this.dir = dir;
    this.name = "NoCommitError";
  }
  dir;
};
var gitOptions = (cwd, context, set) => ({
  cwd,
  ...context.baseEnv !== void 0 ? { baseEnv: context.baseEnv } : {},
  ...context.knownSecrets !== void 0 ? { knownSecrets: context.knownSecrets } : {},
  ...set !== void 0 ? { set } : {}
});
async function workTreeRoot(dir, context = {}) {
  try {
    if (!(await stat(dir)).isDirectory()) throw new NotAGitRepositoryError(dir, "not a directory");
  } catch (error) {
    if (error instanceof NotAGitRepositoryError) throw error;
    throw new NotAGitRepositoryError(dir, "the directory does not exist");
  }
  try {
    return await git(["rev-parse", "--show-toplevel"], gitOptions(dir, context));
  } catch (error) {
    if (error instanceof GitError && /not a git repository|must be run in a work tree/i.test(error.detail)) {
      throw new NotAGitRepositoryError(dir, "git rev-parse --show-toplevel found none");
    }
    throw error;
  }
}
async function headCommit(root, context) {
  try {
    return await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], gitOptions(root, context));
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}
async function seedFromUserIndex(userIndexPath, indexFile) {
  try {
    const original = await stat(userIndexPath);
    await copyFile(userIndexPath, indexFile);
    await utimes(indexFile, original.atime, new Date(original.mtimeMs - 1e3));
    return true;
  } catch {
    await rm(indexFile, { force: true });
    return false;
  }
}
async function withWorkingTreeIndex(repoDir, context, task) {
  const root = await workTreeRoot(repoDir, context);
  const tempDir = await mkdtemp(join3(tmpdir(), "evidence-gate-index-"));
  const indexFile = join3(tempDir, "index");
  try {
    const userIndex = await git(["rev-parse", "--git-path", "index"], gitOptions(root, context));
    const userIndexPath = isAbsolute2(userIndex) ? userIndex : join3(root, userIndex);
    const seeded = await seedFromUserIndex(userIndexPath, indexFile);
    const scoped = (args) => git(args, gitOptions(root, context, { GIT_INDEX_FILE: indexFile }));
    if (!seeded && await headCommit(root, context) !== null) await scoped(["read-tree", "HEAD"]);
    await scoped(["add", "-A", ...hiddenPathspecs(root)]);
    await context.indexOverlay?.apply({ root, git: scoped });
    return await task({ root, git: scoped });
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}
function evidenceTree(repoDir, context = {}) {
  return withWorkingTreeIndex(repoDir, context, (scope) => scope.git(["write-tree"]));
}
var sameSha = (a, b) => a.toLowerCase() === b.toLowerCase();
async function startingCommit(repoDir, options = {}) {
  const root = await workTreeRoot(repoDir, options);
  const sha = await headCommit(root, options);
  if (sha === null) throw new NoCommitError(root);
  const raw = await git(["cat-file", "commit", sha], gitOptions(root, options));
  const header = raw.split("\n\n", 1)[0] ?? "";
  let tree = "";
  const parents = [];
  for (const line of header.split("\n")) {
    if (line.startsWith("tree ")) tree = line.slice(5).trim();
    else if (line.startsWith("parent ")) parents.push(line.slice(7).trim());
  }
  if (tree === "") throw new GitError(["cat-file", "commit", sha], "commit has no tree line");
  const isMergeOfHead = options.prHead !== void 0 && parents.length === 2 && parents[1] !== void 0 && sameSha(parents[1], options.prHead);
  return { sha, tree, parents, isMergeOfHead };
}
var short = (sha) => sha.slice(0, 7);
function describeStartingCommit(commit) {
  const [base, head] = commit.parents;
  if (commit.parents.length === 2 && base !== void 0 && head !== void 0 && commit.prHead !== void 0) {
    if (sameSha(head, commit.prHead)) {
      return `the merge of ${short(head)} into ${commit.baseRef ?? short(base)}`;
    }
  }
  return short(commit.sha);
}

// src/run/local-repository.ts
var isDir = (path) => existsSync2(path) && statSync(path).isDirectory();
var realOrSelf2 = (path) => {
  try {
    return realpathSync2(path);
  } catch {
    return path;
  }
};
async function locateRepository(o) {
  const folder = resolve2(o.cwd, o.repo);
  const named = o.repo === "." ? `the current folder ${folder}` : `--repo ${folder}`;
  if (!existsSync2(folder))
    return { ok: false, problems: [`--repo ${folder} does not exist: give the repository's folder`] };
  if (!isDir(folder))
    return { ok: false, problems: [`--repo ${folder} is not a folder: give the repository's folder`] };
  let root;
  try {
    root = await workTreeRoot(folder, { baseEnv: o.env, knownSecrets: o.knownSecrets });
  } catch (error) {
    if (!(error instanceof NotAGitRepositoryError)) throw error;
    return {
      ok: false,
      problems: [
        `${named} is not inside a git working tree: evidence-gate records its evidence with git. Run it in a clone (git clone, or git init and a first commit), or give --repo a clone's folder. Nothing was run.`
      ]
    };
  }
  const workDir = resolve2(folder, o.workingDirectory ?? ".");
  const given = o.workingDirectory !== void 0 ? `--working-directory ${o.workingDirectory}` : named;
  if (!liesInRepository(workDir, { cwd: root, repoRoot: root })) {
    return {
      ok: false,
      problems: [
        `${given} is outside the repository ${root} (the git working tree of --repo): give a folder inside it (--working-directory is relative to --repo)`
      ]
    };
  }
  if (!isDir(workDir)) {
    return {
      ok: false,
      problems: [`${given} is not a folder inside ${root} (--working-directory is relative to --repo)`]
    };
  }
  const down = relative2(realOrSelf2(root), realOrSelf2(workDir)).split(sep2).join("/");
  return { ok: true, repo: { repoDir: root, ...down !== "" ? { workingDirectory: down } : {} } };
}

// src/run/local-setup.ts
function refuseUsage(io, command, problems) {
  if (problems.length === 0) return null;
  io.err.write(`evidence-gate ${command}: ${problems.join(`
evidence-gate ${command}: `)}
`);
  return EXIT.usage;
}
function runsDirFor(repoDir, runsDir, cwd) {
  return runsDir !== void 0 ? resolve3(cwd, runsDir) : join4(repoDir, ".evidence-gate", "runs");
}
async function savedRunsDir(io, repo, runsDir) {
  if (runsDir !== void 0) return resolve3(io.cwd, runsDir);
  const located = await locateRepository({ cwd: io.cwd, repo, env: io.env, knownSecrets: [] });
  return runsDirFor(located.ok ? located.repo.repoDir : resolve3(io.cwd, repo), void 0, io.cwd);
}
function pathProblems(f, cwd) {
  const problems = [];
  for (const [flag, value] of [
    ["--check-run-out", f.checkRunOut],
    ["--summary-out", f.summaryOut]
  ]) {
    if (value === void 0) continue;
    const problem = outputFileProblem(`${flag} ${value}`, resolve3(cwd, value));
    if (problem !== null) problems.push(problem);
  }
  return problems;
}
async function checkedRepository(command, f, io, o) {
  const knownSecrets = cliSecrets(io.env).knownSecrets;
  const located = await locateRepository({
    cwd: io.cwd,
    repo: f.repo,
    ...f.workingDirectory !== void 0 ? { workingDirectory: f.workingDirectory } : {},
    env: io.env,
    knownSecrets
  });
  const codex = f.runtime !== void 0 ? codexCredentialProblem(io.env, f.runtime, f.codexConfig ?? []) : null;
  const problems = [
    ...located.ok ? [] : located.problems,
    ...pathProblems(f, io.cwd),
    ...codex !== null ? [codex] : [],
    ...o.extra ?? []
  ];
  if (located.ok && o.runs) {
    const runsDir = runsDirFor(located.repo.repoDir, f.runsDir, io.cwd);
    const runsProblem = f.runsDir !== void 0 ? folderWriteProblem(
      `--runs-dir ${f.runsDir}`,
      runsDir,
      "give a folder on a writable disk (it is created when missing)"
    ) : folderWriteProblem(
      `the runs folder ${runsDir}`,
      runsDir,
      "give --runs-dir DIR on a writable disk, or run in a writable clone"
    );
    if (runsProblem !== null) problems.push(runsProblem);
    const objects = await gitObjectsProblem(located.repo.repoDir, { env: io.env, knownSecrets });
    if (objects !== null) problems.push(objects);
  }
  const refused = refuseUsage(io, command, problems);
  if (refused !== null || !located.ok) return { exit: refused ?? EXIT.usage };
  return located.repo;
}
async function readCliPolicy(repoDir, say) {
  const policyFile = await readWorkingTreePolicy(repoDir);
  if (!policyFile.ok) {
    for (const error of policyFile.errors) say.error(error);
    return null;
  }
  if (policyFile.source.kind !== "none")
    say.line(`policy: ${describePolicySource(policyFile.source)}: ${policySummary(policyFile.policy)}`);
  return policyFile;
}

// src/cli/shared-flags.ts
import { parseArgs } from "node:util";
function parseCommandLine(argv, options, allowPositionals) {
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      strict: true,
      allowPositionals,
      tokens: true,
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          { type: spec.type, ...spec.multiple === true ? { multiple: true } : {} }
        ])
      )
    });
    const seen = /* @__PURE__ */ new Map();
    for (const token of parsed.tokens) {
      if (token.kind === "option" && options[token.name]?.multiple !== true)
        seen.set(token.name, (seen.get(token.name) ?? 0) + 1);
    }
    const repeated = [...seen].filter(([, count]) => count > 1).map(([name]) => name);
    if (repeated.length > 0)
      return {
        ok: false,
        errors: repeated.map((name) => `--${name} was given more than once: give it once`)
      };
    return { ok: true, line: { values: parsed.values, positionals: parsed.positionals } };
  } catch (error) {
    return { ok: false, errors: [parserProblem(error)] };
  }
}
function parserProblem(error) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error?.code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== void 0)
    return `unknown flag ${quoted}: check its spelling against the flags --help lists`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted !== void 0) {
    const flag = quoted.split(" ")[0];
    if (message.includes("ambiguous"))
      return `${flag} needs a value, and the word after it starts with "-": give it as ${flag}=VALUE`;
    return message.includes("argument missing") ? `${flag} needs a value: ${flag} VALUE` : `${flag} takes no value: give ${flag} alone`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted !== void 0)
    return `unexpected argument ${JSON.stringify(quoted)}: this command takes only flags (a flag's value goes right after it)`;
  return message;
}
function joinNegativeValues(argv, options) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith("--") && options[arg.slice(2)]?.type === "string" && next !== void 0 && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
function flagReader(line) {
  return {
    str: (name) => {
      const v = line.values[name];
      return typeof v === "string" ? v : void 0;
    },
    bool: (name) => line.values[name] === true,
    list: (name) => {
      const v = line.values[name];
      return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
    },
    given: (name) => line.values[name] !== void 0,
    positionals: line.positionals
  };
}
function parseFlags(argv, options, allowPositionals, read) {
  const parsed = parseCommandLine(argv, options, allowPositionals);
  if (!parsed.ok) return parsed;
  const errors = [];
  const flags = read(flagReader(parsed.line), errors);
  return errors.length > 0 || flags === void 0 ? { ok: false, errors } : { ok: true, flags };
}
function onePositional(f, errors, problems) {
  const [first, ...extra] = f.positionals;
  if (first === void 0 || first.trim() === "") errors.push(problems.missing);
  if (extra.length > 0) errors.push(problems.extra(extra.map((arg) => JSON.stringify(arg)).join(", ")));
  return first;
}
function opt(key, value) {
  return value === void 0 ? {} : { [key]: value };
}
var INPUT_NAME = /^[A-Za-z0-9._/-]+$/;
function inputFlags(pairs, errors) {
  const inputs = /* @__PURE__ */ Object.create(null);
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || name === "") {
      errors.push(`--input ${JSON.stringify(pair)}: give NAME=VALUE, e.g. --input task="fix the login bug"`);
    } else if (!INPUT_NAME.test(name)) {
      errors.push(
        `--input ${JSON.stringify(pair)}: NAME may hold only letters, digits, ".", "_", "-" or "/" (it is what {{ inputs.NAME }} names)`
      );
    } else if (Object.hasOwn(inputs, name)) {
      errors.push(`--input ${name} was given more than once: give each input once`);
    } else {
      inputs[name] = pair.slice(at + 1);
    }
  }
  return inputs;
}

// src/cli/parse-command.ts
function parseOrExit(argv, io, command, usage, parse) {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(usage);
    return { exit: EXIT.passed };
  }
  const parsed = parse(argv);
  if (parsed.ok) return { flags: parsed.flags };
  io.err.write(
    `evidence-gate ${command}: ${parsed.errors.join(`
evidence-gate ${command}: `)}
${helpHint(command)}
`
  );
  return { exit: EXIT.usage };
}
function helpHint(command) {
  return `run \`evidence-gate ${command} --help\` for its flags`;
}

export {
  cliSecrets,
  cliModelCredentials,
  outsideWrites,
  liesInRepository,
  NotAGitRepositoryError,
  NoCommitError,
  workTreeRoot,
  withWorkingTreeIndex,
  evidenceTree,
  startingCommit,
  describeStartingCommit,
  refuseUsage,
  runsDirFor,
  savedRunsDir,
  checkedRepository,
  readCliPolicy,
  parseFlags,
  onePositional,
  opt,
  inputFlags,
  parseOrExit
};
