/**
 * What every run-making CLI command (`auto`, `run`, `verify`, `resume`) takes from its process, found one
 * way: its folder, environment and streams, the settings its flags give for where a leg runs and how it is
 * reported, the paths checked before anything runs, and the maintainers' policy file from the working tree
 * (SPEC §11). The known secrets and the model children's credentials are `credentials.ts`'s.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { liesInRepository } from "../engine/outside-writes.js";
import type { Runtime } from "../engine/runtime-setup.js";
import {
  describePolicySource,
  type PolicyFileResult,
  policySummary,
  readWorkingTreePolicy,
} from "../policy/policy-file.js";
import { codexCredentialProblem } from "./credentials.js";
import { EXIT } from "./exit-codes.js";

/** What a command needs of its process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Aborted on SIGINT/SIGTERM: running nodes are stopped and the run ends cancelled (exit 130). */
  readonly signal?: AbortSignal;
}

/** How the result is reported (flags `--json`, `--repository`, `--sha`, `--check-*`, `--summary-out`). */
export interface ReportFlags {
  /** Print the ledger as JSON on stdout (progress lines go to stderr). */
  readonly json: boolean;
  /** `OWNER/NAME` + token from `GITHUB_TOKEN`: post the check run to GitHub (SPEC §2). */
  readonly repository?: string;
  readonly sha?: string;
  readonly checkName: string;
  /** Record the check-run requests to this JSON file instead of sending them. */
  readonly checkRunOut?: string;
  /** Write the Markdown ledger (the job summary) to this file. */
  readonly summaryOut?: string;
}

/** Where and how a leg runs (flags `--repo`, `--runs-dir`, `--claude-path`, `--codex-*`, `--concurrency`, `--commit`). */
export interface LegFlags {
  /** `--repo DIR` (default `.`): the repository, and where the default runs folder is. */
  readonly repo: string;
  readonly runsDir?: string;
  readonly claudePath?: string;
  /** `--codex-path PATH`: the `codex` executable (default: `codex` on PATH). */
  readonly codexPath?: string;
  /**
   * `--codex-config KEY=VALUE`, repeatable, in order: passed as `-c KEY=VALUE` on every codex call of the
   * leg (SPEC §10). A leg flag, not a fresh-run one: `state.json` does not record the pairs (a provider
   * setting may carry a header secret), so `resume` of a codex run is given them again. Each entry is
   * trimmed around its `=` when it holds exactly one pair; `auto` and `run` check them against the
   * runtime at parse time (`runtimeOptionsProblem`), `resume` once the run's runtime is read.
   */
  readonly codexConfig: readonly string[];
  /** `--concurrency N`, 1..10; absent = the command's default. */
  readonly concurrency?: number;
  readonly commit: boolean;
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

/**
 * Everything a fresh run's flags are checked for before anything runs or is spent ({@link pathProblems}
 * and, on codex, a credential: `codexCredentialProblem`), as usage problems.
 */
export function freshRunProblems(
  repoDir: string,
  f: Parameters<typeof pathProblems>[1] & {
    readonly runtime: Runtime;
    readonly codexConfig: readonly string[];
  },
  io: Pick<CliIo, "cwd" | "env">,
): string[] {
  const codex = codexCredentialProblem(io.env, f.runtime, f.codexConfig);
  return [...pathProblems(repoDir, f, io.cwd), ...(codex !== null ? [codex] : [])];
}
