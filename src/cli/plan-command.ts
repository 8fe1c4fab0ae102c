/**
 * `evidence-gate plan --goal TEXT`: `auto` without the run (SPEC §2 "`plan` (= auto --plan-only)", §11).
 * The same planning half as `auto` (`src/engine/auto-plan.ts`): the build-evidence decision before any
 * model call, the planner call repaired once, the trusted mutations — the verify command attached to every
 * sink, each planned node's tool ceiling, with `--accept-loaded-user-config` if given — and the plan printed
 * with its one tool-ceiling disclosure slot (seed 001 §2.6, §3 test 7). No node runs, no run directory is
 * made, no check run is created; the planner call is the only thing spent.
 *
 * Exit codes (SPEC §2): 0 planned, 1 the plan was refused after its repair (or planning failed), 3 refused
 * for build evidence, 64 usage error (claude answering "Not logged in" included: no credential), 130 interrupted.
 */

import { EXIT } from "../local-run/exit-codes.js";
import { withLocalProxy } from "../local-run/local-leg.js";
import { type CliIo, checkedRepository, readCliPolicy } from "../local-run/local-setup.js";
import { planOnly } from "../local-run/plan-only.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { planLines, planTitle, promptLines } from "../progress/progress-lines.js";
import { cliSecrets } from "../run/credentials.js";
import { localModelCli } from "../run/model-cli.js";
import { autoMode } from "../run/request.js";
import { claudeNotLoggedInMessage } from "../runtime/claude-runtime.js";
import { PLAN_USAGE, parsePlanFlags } from "./parse-auto-flags.js";
import { parseOrExit } from "./parse-command.js";

/** Runs `plan` and returns the process exit code. */
export async function runCliPlan(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "plan", PLAN_USAGE, parsePlanFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  // A folder in no git working tree is refused here, before the planner call is paid for (as auto refuses it).
  const where = await checkedRepository("plan", f, io, { runs: false });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const secrets = cliSecrets(io.env);
  const redact = (text: string): string => secrets.redactor.text(text);
  // Under --json stdout is the JSON alone: every other line goes to stderr.
  const say = {
    line: (text: string) => (f.json ? io.err : io.out).write(`${redact(text)}\n`),
    error: (text: string) => io.err.write(`evidence-gate plan: ${redact(text)}\n`),
  };
  const policyFile = await readCliPolicy(repoDir, say);
  if (policyFile === null) return EXIT.usage;
  const policy = autoRunPolicy(policyFile);
  let result: Awaited<ReturnType<typeof planOnly>> | undefined;
  const proxied = await withLocalProxy(
    io,
    { command: "plan", runtime: f.runtime, codexConfig: f.codexConfig, say: say.line },
    async (proxy) => {
      result = await planOnly(
        {
          mode: autoMode({
            goal: f.goal,
            ...(f.verifyCmd !== undefined ? { verifyCmd: f.verifyCmd } : {}),
            acceptNoBuildEvidence: f.acceptNoBuildEvidence,
            acceptLoadedUserConfig: f.acceptLoadedUserConfig,
            runtime: f.runtime,
            concurrency: 4,
            ...(policy !== undefined ? { policy } : {}),
            surface: "cli",
          }),
          repoDir,
          ...(where.workingDirectory !== undefined ? { workingDirectory: where.workingDirectory } : {}),
          ...(f.model !== undefined ? { model: f.model } : {}),
          codexConfig: f.codexConfig,
          verifyTimeoutMs: f.verifyTimeoutMs,
          ...(policy !== undefined ? { policy } : {}),
          surface: "cli",
          knownSecrets: secrets.knownSecrets,
          baseEnv: io.env,
        },
        {
          modelCli: localModelCli({
            modelEnv: secrets.modelEnv,
            ...(f.claudePath !== undefined ? { claudePath: f.claudePath } : {}),
            ...(f.codexPath !== undefined ? { codexPath: f.codexPath } : {}),
            ...(proxy !== undefined ? { proxy } : {}),
            ...(io.modelCalls !== undefined ? { modelCalls: io.modelCalls } : {}),
          }),
          ...(io.signal ? { signal: io.signal } : {}),
        },
      );
      return EXIT.passed; // the exit comes from the result below
    },
  );
  // No result: the proxy settings were refused (a usage error already printed).
  if (result === undefined) return proxied;
  if (result.kind === "usage_error" || result.kind === "refused") {
    say.error(result.message);
    return result.kind === "refused" ? EXIT.refused : EXIT.usage;
  }
  const plan = secrets.redactor.deep(result.plan);
  if (f.json) {
    const graph = result.kind === "planned" ? secrets.redactor.deep(result.spec) : null;
    io.out.write(`${JSON.stringify({ plan, graph }, null, 2)}\n`);
  }
  if (result.kind === "rejected") {
    const rejected = result.planned;
    // Only a plan refused again after its repair is "refused"; an interrupted or failed planner call is not.
    const title = io.signal?.aborted ? "plan: interrupted, nothing to run" : planTitle(plan);
    if (!f.json) for (const l of planLines(plan, title)) say.line(l);
    // claude without a credential: the operator's setup, named with the fix (exit 64), not a planning failure.
    if (rejected.notLoggedIn === true) {
      say.error(claudeNotLoggedInMessage("cli"));
      return EXIT.usage;
    }
    if (rejected.repairAttempted) {
      for (const refusal of rejected.refusals) say.error(`the plan was refused after its repair: ${refusal}`);
    } else {
      say.error(`planning failed: ${rejected.reason}`);
    }
    return io.signal?.aborted ? EXIT.interrupted : EXIT.failed;
  }
  if (!f.json) {
    for (const l of planLines(plan, planTitle(plan))) say.line(l);
    for (const l of promptLines(result.spec.nodes)) say.line(l);
  }
  say.line("plan only: no node ran and no run directory was made");
  return EXIT.passed;
}
