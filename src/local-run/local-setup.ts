/**
 * What every run-making CLI command (`auto`, `run`, `verify`, `resume`) takes from its process, found one
 * way: its folder, environment and streams, the settings its flags give for where a leg runs and how it is
 * reported, the repository and the paths checked before anything runs, and the maintainers' policy file from
 * the working tree (SPEC §11). The known secrets and the model children's credentials are `credentials.ts`'s.
 */

import { join, resolve } from "node:path";
import type { Runtime } from "../engine/runtime-setup.js";
import {
  describePolicySource,
  type PolicyFileResult,
  policySummary,
  readWorkingTreePolicy,
} from "../policy/policy-file.js";
import { git } from "../proc/git.js";
import { cliSecrets, localCredentialProblem } from "../run/credentials.js";
import type { ModelCalls } from "../run/model-cli.js";
import type { RunTimeout } from "../run/request.js";
import { EXIT } from "./exit-codes.js";
import { type LocalRepository, locateRepository } from "./local-repository.js";
import { folderWriteProblem, gitObjectsProblem, outputFileProblem } from "./writable-paths.js";

/** What a command needs of its process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Aborted on SIGINT/SIGTERM: running nodes are stopped and the run ends cancelled (exit 130). */
  readonly signal?: AbortSignal;
  /**
   * The model calls the run makes (`runtime/model-calls.ts`); absent (as `evidence-gate` runs): the real
   * CLIs. The port tier's tests hand the scripted stand-in here (issue 24 item 1).
   */
  readonly modelCalls?: ModelCalls;
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
  /**
   * `--repo DIR` (default `.`): a folder in the repository's git working tree, whose root is the repository
   * and holds the default runs folder (`local-repository.ts`).
   */
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
  /** `--timeout DURATION`: the whole run's time bound (exit 124 when reached); absent = none. */
  readonly timeout?: RunTimeout;
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

/**
 * The runs folder of a saved run's command (`ledger`, `report`): `--runs-dir`, else the `.evidence-gate/runs`
 * of the git working tree's root that `repo` lies in — from a sub-folder too, as the run-making commands
 * put it there. A folder in no working tree keeps `<repo>/.evidence-gate/runs`.
 */
export async function savedRunsDir(
  io: Pick<CliIo, "cwd" | "env">,
  repo: string,
  runsDir: string | undefined,
): Promise<string> {
  if (runsDir !== undefined) return resolve(io.cwd, runsDir);
  const located = await locateRepository({ cwd: io.cwd, repo, env: io.env, knownSecrets: [] });
  return runsDirFor(located.ok ? located.repo.repoDir : resolve(io.cwd, repo), undefined, io.cwd);
}

/**
 * Where the output files go (`--check-run-out`, `--summary-out`): each a file path in a writable folder
 * that exists ({@link outputFileProblem}), checked before anything runs or is spent.
 */
export function pathProblems(f: Pick<ReportFlags, "checkRunOut" | "summaryOut">, cwd: string): string[] {
  const problems: string[] = [];
  for (const [flag, value] of [
    ["--check-run-out", f.checkRunOut],
    ["--summary-out", f.summaryOut],
  ] as const) {
    if (value === undefined) continue;
    const problem = outputFileProblem(`${flag} ${value}`, resolve(cwd, value));
    if (problem !== null) problems.push(problem);
  }
  return problems;
}

/** The flags {@link checkedRepository} reads. */
export type CheckedFlags = Partial<Pick<ReportFlags, "checkRunOut" | "summaryOut">> & {
  readonly repo: string;
  readonly workingDirectory?: string;
  readonly runsDir?: string;
  readonly runtime?: Runtime;
  readonly codexConfig?: readonly string[];
  /** `--base REF` (with `--verify-base`): must name a commit of the repository, else a usage error. */
  readonly baseRef?: string;
};

/**
 * Everything a command's flags are checked for before anything runs or is spent, every problem printed
 * at once (exit 64): the repository (`--repo`, or the current folder, in a git working tree, and
 * `--working-directory` inside it: {@link locateRepository}), the output files ({@link pathProblems}), on
 * codex a credential (`localCredentialProblem`), then — for a command that writes a run (`runs: true`) —
 * the runs folder and the repository's git object store, each writable (`writable-paths.ts`).
 *
 * @param extra problems the command found itself (a graph file that cannot be read).
 * @returns the repository, or the exit code after printing why the command stops.
 */
export async function checkedRepository(
  command: string,
  f: CheckedFlags,
  io: CliIo,
  o: { readonly runs: boolean; readonly extra?: readonly string[] },
): Promise<LocalRepository | { readonly exit: number }> {
  const knownSecrets = cliSecrets(io.env).knownSecrets;
  const located = await locateRepository({
    cwd: io.cwd,
    repo: f.repo,
    ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
    env: io.env,
    knownSecrets,
  });
  const codex =
    f.runtime !== undefined ? localCredentialProblem(io.env, f.runtime, f.codexConfig ?? []) : null;
  const problems = [
    ...(located.ok ? [] : located.problems),
    ...pathProblems(f, io.cwd),
    ...(codex !== null ? [codex] : []),
    ...(o.extra ?? []),
  ];
  if (located.ok && o.runs) {
    const runsDir = runsDirFor(located.repo.repoDir, f.runsDir, io.cwd);
    const runsProblem =
      f.runsDir !== undefined
        ? folderWriteProblem(
            `--runs-dir ${f.runsDir}`,
            runsDir,
            "give a folder on a writable disk (it is created when missing)",
          )
        : folderWriteProblem(
            `the runs folder ${runsDir}`,
            runsDir,
            "give --runs-dir DIR on a writable disk, or run in a writable clone",
          );
    if (runsProblem !== null) problems.push(runsProblem);
    const objects = await gitObjectsProblem(located.repo.repoDir, { env: io.env, knownSecrets });
    if (objects !== null) problems.push(objects);
  }
  if (located.ok && f.baseRef !== undefined) {
    // A mistyped ref is the user's to fix before anything runs, not a row saying "not compared".
    const found = await git(["rev-parse", "--verify", "--quiet", `${f.baseRef}^{commit}`], {
      cwd: located.repo.repoDir,
      baseEnv: io.env,
      knownSecrets,
    }).catch(() => null);
    if (found === null)
      problems.push(
        `--base ${f.baseRef} names no commit in ${located.repo.repoDir}: give a branch, tag or commit it has (git fetch it first, or check the spelling)`,
      );
  }
  const refused = refuseUsage(io, command, problems);
  if (refused !== null || !located.ok) return { exit: refused ?? EXIT.usage };
  return located.repo;
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
