/**
 * What every run-making command (`auto`, `run`, `resume`) takes from its process, found one way: the
 * known secrets in the environment and the model child's credentials (SPEC §9), the paths checked before
 * anything runs, and the maintainers' policy file from the working tree (SPEC §11).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRedactor, type Redactor } from "../core/redact.js";
import { liesInRepository } from "../engine/outside-writes.js";
import type { ModelEnvBuilder, Runtime } from "../engine/runtime-setup.js";
import {
  describePolicySource,
  type PolicyFileResult,
  policySummary,
  readWorkingTreePolicy,
} from "../policy/policy-file.js";
import { buildChildEnv } from "../proc/child-env.js";
import { EXIT } from "./exit-codes.js";
import type { ReportFlags } from "./shared-flags.js";

/** What a command needs of its process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Aborted on SIGINT/SIGTERM: running nodes are stopped and the run ends cancelled (exit 130). */
  readonly signal?: AbortSignal;
}

/** Flags parsed into a typed object, or every problem. */
export type Parsed<F> =
  | { readonly ok: true; readonly flags: F }
  | { readonly ok: false; readonly errors: readonly string[] };

/**
 * The start of every command: `--help` prints `usage` (exit 0); flags that do not parse print every
 * problem and the usage (exit 64).
 *
 * @returns the flags, or the exit code to return.
 */
export function parseOrExit<F>(
  argv: readonly string[],
  io: Pick<CliIo, "out" | "err">,
  command: string,
  usage: string,
  parse: (argv: readonly string[]) => Parsed<F>,
): { readonly flags: F } | { readonly exit: number } {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(usage);
    return { exit: EXIT.passed };
  }
  const parsed = parse(argv);
  if (parsed.ok) return { flags: parsed.flags };
  io.err.write(`evidence-gate ${command}: ${parsed.errors.join(`\nevidence-gate ${command}: `)}\n\n${usage}`);
  return { exit: EXIT.usage };
}

/** Prints each usage problem prefixed with the command; `null` when there is none, else exit 64. */
export function refuseUsage(
  io: Pick<CliIo, "err">,
  command: string,
  problems: readonly string[],
): number | null {
  if (problems.length === 0) return null;
  io.err.write(`evidence-gate ${command}: ${problems.join(`\nevidence-gate ${command}: `)}\n`);
  return EXIT.usage;
}

/** Credentials the CLI may find in its environment: each value is a known secret (SPEC §9). */
const CREDENTIAL_VARIABLES = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
] as const;
/**
 * Each runtime's own credentials among them, handed to that runtime's model child only: claude's, and
 * codex's (`OPENAI_API_KEY` for the OpenAI provider and providers whose `env_key` names it;
 * `CODEX_API_KEY`, which `codex exec` reads — developers.openai.com/codex/environment-variables).
 */
const MODEL_CREDENTIALS: Readonly<Record<Runtime, readonly string[]>> = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};

/** The secrets of a CLI run and what is built from them. */
export interface CliSecrets {
  /** Every credential value in the environment. */
  readonly knownSecrets: readonly string[];
  readonly redactor: Redactor;
  /** The GitHub token (`GITHUB_TOKEN`, else `GH_TOKEN`), for `--repository`. */
  readonly githubToken: string | undefined;
  /**
   * A model child's environment: scrubbed of every known secret, with its own runtime's credential set
   * back (a codex child never gets the claude key, nor the reverse). `HOME` / `CODEX_HOME` are the user's
   * own: in the CLI the operator's configuration is theirs (SPEC §8).
   */
  readonly modelEnv: ModelEnvBuilder;
}

/**
 * Every credential in the environment is a known secret: dropped by value from every child's environment
 * and redacted from everything the run writes, prints or posts (SPEC §9). A verify command can read this
 * process's initial environment through /proc and print it; redaction keeps that out of the outputs.
 */
export function cliSecrets(env: CliIo["env"]): CliSecrets {
  const knownSecrets = CREDENTIAL_VARIABLES.map((name) => env[name]).filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  // The model child still needs its own credential: value scrubbing would drop it, so it is set explicitly.
  const credentialsOf = (runtime: Runtime): Record<string, string> => {
    const set: Record<string, string> = {};
    for (const name of MODEL_CREDENTIALS[runtime]) {
      const value = env[name];
      if (value !== undefined && value !== "") set[name] = value;
    }
    return set;
  };
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  return {
    knownSecrets,
    redactor: createRedactor(knownSecrets),
    githubToken: token === "" ? undefined : token,
    modelEnv: (_label, runtime) =>
      buildChildEnv({
        base: env,
        child: { kind: "model", runtime },
        knownSecrets,
        set: credentialsOf(runtime),
      }),
  };
}

/**
 * Why a codex run from the CLI would have no model credential, as a usage error; `null` when it has one or
 * may have one. Without this, codex retries an unauthenticated model server for as long as the planner's
 * timeout. A credential is: `OPENAI_API_KEY` or `CODEX_API_KEY` in the environment, a `codex login`
 * (`$CODEX_HOME/auth.json`, `CODEX_HOME` defaulting to `~/.codex`), or a provider of the operator's own — a
 * `model_provider` pair in `--codex-config` or in `$CODEX_HOME/config.toml` (its `env_key` is its business).
 */
export function codexCredentialProblem(
  env: CliIo["env"],
  runtime: Runtime,
  codexConfig: readonly string[],
): string | null {
  if (runtime !== "codex") return null;
  if (MODEL_CREDENTIALS.codex.some((name) => (env[name] ?? "") !== "")) return null;
  if (codexConfig.some((pair) => /^\s*"?model_provider"?\s*=/.test(pair))) return null;
  const codexHome = env.CODEX_HOME ?? (env.HOME !== undefined ? join(env.HOME, ".codex") : undefined);
  if (codexHome !== undefined) {
    if (existsSync(join(codexHome, "auth.json"))) return null;
    const config = join(codexHome, "config.toml");
    if (existsSync(config) && /^\s*model_provider\s*=/m.test(readFileSync(config, "utf8"))) return null;
  }
  return "codex has no credential: set OPENAI_API_KEY (or CODEX_API_KEY), run `codex login`, or name a provider with --codex-config model_provider=…; nothing was run";
}

/** The runs folder: `--runs-dir` (relative to the current directory), else `<repo>/.evidence-gate/runs`. */
export function runsDirFor(repoDir: string, runsDir: string | undefined, cwd: string): string {
  return runsDir !== undefined ? resolve(cwd, runsDir) : join(repoDir, ".evidence-gate", "runs");
}

const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/**
 * Paths the run will need, checked before anything runs or is spent: `--repo` is a folder,
 * `--working-directory` a folder inside it, and each output file's folder exists.
 */
export function pathProblems(
  repoDir: string,
  f: Pick<ReportFlags, "checkRunOut" | "summaryOut"> & { readonly workingDirectory?: string },
  cwd: string,
): string[] {
  const problems: string[] = [];
  if (!existsSync(repoDir)) problems.push(`--repo ${repoDir} does not exist: give the repository's folder`);
  else if (!isDir(repoDir)) problems.push(`--repo ${repoDir} is not a folder: give the repository's folder`);
  if (f.workingDirectory !== undefined) {
    const wd = resolve(repoDir, f.workingDirectory);
    if (!liesInRepository(wd, { cwd: repoDir, repoRoot: repoDir })) {
      problems.push(
        `--working-directory ${f.workingDirectory} is outside --repo ${repoDir}: give a sub-folder of the repository`,
      );
    } else if (!isDir(wd)) {
      problems.push(`--working-directory ${f.workingDirectory} is not a folder inside ${repoDir}`);
    }
  }
  for (const [flag, value] of [
    ["--check-run-out", f.checkRunOut],
    ["--summary-out", f.summaryOut],
  ] as const) {
    if (value === undefined) continue;
    const target = resolve(cwd, value);
    if (isDir(target)) problems.push(`${flag} ${value} is a folder: give a file path`);
    else if (!isDir(dirname(target)))
      problems.push(`${flag} ${value}: the folder ${dirname(target)} does not exist`);
  }
  return problems;
}

/**
 * The maintainers' policy file, read from the working tree in the CLI (SPEC §11): `null` after printing
 * why a malformed or unreadable one stops the command, else the result (source `none` when absent). A
 * policy that applies is announced with a `policy:` line.
 */
export async function readCliPolicy(
  repoDir: string,
  say: { readonly line: (text: string) => void; readonly error: (text: string) => void },
): Promise<Extract<PolicyFileResult, { ok: true }> | null> {
  const policyFile = await readWorkingTreePolicy(repoDir);
  if (!policyFile.ok) {
    for (const error of policyFile.errors) say.error(error);
    return null;
  }
  if (policyFile.source.kind !== "none")
    say.line(`policy: ${describePolicySource(policyFile.source)}: ${policySummary(policyFile.policy)}`);
  return policyFile;
}
