/**
 * Flags of `evidence-gate auto`, parsed once into a typed object or refused with every problem named
 * (SPEC §2, §11). Flags mirror the action's inputs.
 */
import { parseArgs } from "node:util";
import { parseDuration } from "../graph/duration.js";
import { verifyEnvProblems } from "../proc/child-env.js";

export interface AutoFlags {
  readonly goal: string;
  readonly verifyCmd?: string;
  readonly verifyTimeoutMs: number;
  readonly verifyEnv: readonly string[];
  readonly acceptNoBuildEvidence: boolean;
  readonly runtime: "claude";
  readonly model?: string;
  readonly repo: string;
  readonly workingDirectory?: string;
  readonly commit: boolean;
  readonly concurrency: number;
  readonly continueOnFail: boolean;
  readonly runsDir?: string;
  readonly claudePath?: string;
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

export type ParsedFlags =
  | { readonly ok: true; readonly flags: AutoFlags }
  | { readonly ok: false; readonly errors: readonly string[] };

/** Usage text of `auto`. */
export const AUTO_USAGE = `usage: evidence-gate auto --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

  --goal TEXT                  what the run should achieve (required)
  --verify-cmd CMD             build/test command the engine runs at every sink, judged by exit code
  --accept-no-build-evidence   run without build evidence (verdicts are the model's own)
  --verify-timeout DURATION    verify command timeout, Go syntax (default 10m)
  --verify-env NAMES           comma-separated variables passed to the verify command
  --runtime claude             model CLI (default claude)
  --model M                    model passed to the CLI (default: the CLI's own)
  --repo DIR                   repository to run in (default .)
  --working-directory DIR      sub-directory of --repo to run in
  --commit                     commit the nodes' changes when the run ends
  --concurrency N              nodes running at once (default 4, max 10)
  --continue-on-fail           prune only a failed node's descendants instead of halting
  --runs-dir DIR               where run directories go (default <repo>/.evidence-gate/runs)
  --claude-path PATH           the claude executable (default: claude on PATH)
  --json                       print the ledger as JSON instead of the table
  --repository OWNER/NAME      post the check run to this repository (token from GITHUB_TOKEN)
  --sha SHA                    head SHA for the check run (default: the posted commit)
  --check-name NAME            check run name (default evidence-gate)
  --check-run-out FILE         write the check-run requests (method, path, body) to FILE instead of sending
  --summary-out FILE           write the Markdown ledger (the job summary) to FILE
`;

/** Parses `auto`'s argv (after the subcommand). */
export function parseAutoFlags(argv: readonly string[]): ParsedFlags {
  let values: Record<string, string | boolean | undefined>;
  let repeated: string[] = [];
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: {
        goal: { type: "string" },
        "verify-cmd": { type: "string" },
        "verify-timeout": { type: "string" },
        "verify-env": { type: "string" },
        "accept-no-build-evidence": { type: "boolean" },
        runtime: { type: "string" },
        model: { type: "string" },
        repo: { type: "string" },
        "working-directory": { type: "string" },
        commit: { type: "boolean" },
        concurrency: { type: "string" },
        "continue-on-fail": { type: "boolean" },
        "runs-dir": { type: "string" },
        "claude-path": { type: "string" },
        json: { type: "boolean" },
        repository: { type: "string" },
        sha: { type: "string" },
        "check-name": { type: "string" },
        "check-run-out": { type: "string" },
        "summary-out": { type: "string" },
      },
    });
    values = parsed.values;
    // parseArgs keeps the last of a repeated flag; a second --goal or --verify-cmd is more likely a
    // mistake than an override, so it is an error naming the flag.
    const seen = new Map<string, number>();
    for (const token of parsed.tokens) {
      if (token.kind === "option") seen.set(token.name, (seen.get(token.name) ?? 0) + 1);
    }
    repeated = [...seen].filter(([, count]) => count > 1).map(([name]) => name);
  } catch (error) {
    return { ok: false, errors: [error instanceof Error ? error.message : String(error)] };
  }
  const errors: string[] = repeated.map((name) => `--${name} was given more than once: give it once`);
  const str = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === "string" ? v : undefined;
  };
  const goal = str("goal");
  if (goal === undefined || goal.trim() === "")
    errors.push("--goal is required: say what the run should achieve");
  const verifyCmd = str("verify-cmd");
  const accept = values["accept-no-build-evidence"] === true;
  if (verifyCmd !== undefined && accept) {
    errors.push("--verify-cmd and --accept-no-build-evidence were both given: pass one or the other");
  }
  const onlyComments = (text: string): boolean =>
    text.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("#"));
  if (verifyCmd !== undefined && onlyComments(verifyCmd)) {
    errors.push(
      "--verify-cmd is empty (blank, or only # comments): it would pass every time; give a build/test command",
    );
  }
  const runtime = str("runtime") ?? "claude";
  if (runtime !== "claude")
    errors.push(`--runtime ${JSON.stringify(runtime)} is not supported yet: use claude`);
  let verifyTimeoutMs = 10 * 60_000;
  const vt = str("verify-timeout");
  if (vt !== undefined) {
    const parsed = parseDuration(vt);
    if (parsed.ok && parsed.ms >= 1000 && parsed.ms <= 24 * 3_600_000) verifyTimeoutMs = parsed.ms;
    else if (parsed.ok) errors.push(`--verify-timeout ${JSON.stringify(vt)}: give a duration from 1s to 24h`);
    else errors.push(`--verify-timeout: ${parsed.message}`);
  }
  let concurrency = 4;
  const c = str("concurrency");
  if (c !== undefined) {
    const n = /^\d+$/.test(c) ? Number(c) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 10)
      errors.push(`--concurrency ${JSON.stringify(c)}: give a whole number from 1 to 10`);
    else concurrency = n;
  }
  const repository = str("repository");
  if (repository !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    errors.push(`--repository ${JSON.stringify(repository)}: give OWNER/NAME`);
  }
  const verifyEnv = (str("verify-env") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  // The model credential and the GitHub token never reach PR code, whatever verify-env says (SPEC §9).
  errors.push(...verifyEnvProblems(verifyEnv, "--verify-env"));
  const sha = str("sha");
  if (sha !== undefined && !/^[0-9a-f]{40}$/i.test(sha)) {
    errors.push(`--sha ${JSON.stringify(sha)}: give the full 40-hex commit SHA`);
  }
  const checkName = str("check-name");
  if (checkName !== undefined && checkName.trim() === "")
    errors.push("--check-name is empty: give the check run's name");
  if (repository !== undefined && str("check-run-out") !== undefined) {
    errors.push(
      "--repository and --check-run-out were both given: post the check run, or record it to a file, not both",
    );
  }
  if (str("check-run-out") !== undefined && str("check-run-out") === str("summary-out")) {
    errors.push("--check-run-out and --summary-out name the same file: give two files");
  }
  if (errors.length > 0) return { ok: false, errors };
  const opt = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  return {
    ok: true,
    flags: {
      goal: goal!,
      ...opt("verifyCmd", verifyCmd),
      verifyTimeoutMs,
      verifyEnv,
      acceptNoBuildEvidence: accept,
      runtime: "claude",
      ...opt("model", str("model")),
      repo: str("repo") ?? ".",
      ...opt("workingDirectory", str("working-directory")),
      commit: values.commit === true,
      concurrency,
      continueOnFail: values["continue-on-fail"] === true,
      ...opt("runsDir", str("runs-dir")),
      ...opt("claudePath", str("claude-path")),
      json: values.json === true,
      ...opt("repository", repository),
      ...opt("sha", str("sha")),
      checkName: str("check-name") ?? "evidence-gate",
      ...opt("checkRunOut", str("check-run-out")),
      ...opt("summaryOut", str("summary-out")),
    },
  };
}
