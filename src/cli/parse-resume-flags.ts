/**
 * Flags of `evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)`, parsed once
 * into a typed object or refused with every problem named (SPEC §2, §11; research/oh-my-graph.md §7.6).
 * A resumed leg takes its graph, inputs, model and verify settings from the run's own state, so the
 * flags that would set them are not accepted here.
 */

import { isGitHubLogin } from "../core/github-login.js";
import { LEG, REPORT } from "./flag-groups.js";
import type { Parsed } from "./parse-command.js";
import { type LegFlags, onePositional, opt, parseFlags, type ReportFlags } from "./shared-flags.js";

/** What the resumed leg does; who decides a gate is settled by the command (`--by`, else the local user). */
export type ResumeFlagAction =
  | { readonly kind: "approve"; readonly gate: string }
  | { readonly kind: "reject"; readonly gate: string }
  | { readonly kind: "retry-failed" };

export interface ResumeFlags extends LegFlags, ReportFlags {
  readonly runId: string;
  readonly action: ResumeFlagAction;
  /** `--by LOGIN`: who approves or rejects, a GitHub login (core/github-login.ts); default: the local user. */
  readonly by?: string;
}

/** The flags, or every problem (each names the flag and the fix). */
export type ParsedResumeFlags = Parsed<ResumeFlags>;

/** Usage text of `resume`. */
export const RESUME_USAGE = `usage: evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed) [options]

  RUN_ID                       the run to continue (the id \`run\` or \`auto\` printed)
  --approve GATE               approve the gate the run is waiting at; its dependents run
  --reject GATE                reject it: its dependents are skipped and the run fails
  --retry-failed               run again exactly the nodes that did not pass (after a failure or a
                               session-limit pause); passed nodes and their outputs are kept
  --by LOGIN                   who approves or rejects: a GitHub login, shown as @LOGIN (default: the
                               local user, $USER, recorded as NAME (local user))
  --concurrency N              nodes running at once (default: the concurrency the run started with; max 10)
${LEG.usage}${REPORT.usage}
The leg continues the run in <runs-dir>/RUN_ID with the graph, inputs, runtime, model and tool policies
recorded there, on the same commit the run started at. A codex run's --codex-config pairs are not
recorded (they may carry a secret): give them again. A run started with --accept-loaded-user-config
keeps it (printed before the leg runs); resume has no flag to set or widen it.

Exit: 0 passed (or nothing to retry), 1 failed (a rejected gate included), 2 paused again, 4 passed but
action_required (read CONCLUSION), 64 usage error, 124 timed out (--timeout), 130 interrupted.
`;

const ACTIONS = "--approve GATE, --reject GATE or --retry-failed";

/** Parses `resume`'s argv (after the subcommand). */
export function parseResumeFlags(argv: readonly string[]): ParsedResumeFlags {
  return parseFlags(
    argv,
    {
      approve: { type: "string" },
      reject: { type: "string" },
      "retry-failed": { type: "boolean" },
      by: { type: "string" },
      ...LEG.options,
      ...REPORT.options,
      // Refused with the reason below, not as an unknown flag.
      input: { type: "string", multiple: true },
      model: { type: "string" },
      "accept-loaded-user-config": { type: "boolean" },
    },
    true,
    (f, errors) => {
      const runId = onePositional(f, errors, {
        missing:
          "resume needs the run id: evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)",
        extra: (others) => `resume continues one run; also got ${others}: give one RUN_ID`,
      });
      for (const name of ["input", "model"]) {
        if (f.given(name))
          errors.push(
            `--${name} does not apply to resume: a resumed leg uses the ${name === "input" ? "inputs" : "model"} the run started with`,
          );
      }
      // SPEC §8: a resumed leg inherits the first leg's choice from its recorded tool policies, and has no
      // flag that could widen them (seed 001 §2.7).
      if (f.given("accept-loaded-user-config"))
        errors.push(
          "--accept-loaded-user-config does not apply to resume: it is inherited from the run's first leg (its recorded tool policies), and a resumed leg cannot widen them",
        );
      const approve = f.str("approve");
      const reject = f.str("reject");
      const retry = f.bool("retry-failed");
      const given = [
        ...(approve !== undefined ? ["--approve"] : []),
        ...(reject !== undefined ? ["--reject"] : []),
        ...(retry ? ["--retry-failed"] : []),
      ];
      let action: ResumeFlagAction | undefined;
      if (given.length === 0) errors.push(`resume needs one of ${ACTIONS}: say what the resumed leg does`);
      else if (given.length > 1)
        errors.push(`${given.join(" and ")} were given together: give one of ${ACTIONS}`);
      else if (approve !== undefined || reject !== undefined) {
        const gate = (approve ?? reject)!;
        if (gate.trim() === "") errors.push(`${given[0]} is empty: give the gate's node id`);
        else action = { kind: approve !== undefined ? "approve" : "reject", gate };
      } else action = { kind: "retry-failed" };
      const by = f.str("by");
      // Validated as the action's `approver` input is (src/action/mode-inputs.ts): a login, shown as @login.
      if (by !== undefined && !isGitHubLogin(by))
        errors.push(
          `--by is ${JSON.stringify(by)}: give a GitHub login (letters, digits and single hyphens, at most 39 characters, no @), e.g. --by octocat; without --by the approver is recorded as the local user`,
        );
      if (by !== undefined && retry)
        errors.push("--by applies to --approve and --reject: --retry-failed decides no gate");
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return action === undefined
        ? undefined
        : { runId: runId!, action, ...opt("by", by), ...leg, ...report };
    },
  );
}
