/**
 * Flags of `evidence-gate auto`, parsed once into a typed object or refused with every problem named
 * (SPEC §2, §11). Flags mirror the action's inputs; the groups `auto` shares with `run` and `resume` are
 * parsed by `shared-flags.ts`.
 */
import type { Parsed } from "./cli-context.js";
import {
  FRESH_RUN,
  type FreshRunFlags,
  LEG,
  type LegFlags,
  opt,
  parseFlags,
  REPORT,
  type ReportFlags,
} from "./shared-flags.js";

export interface AutoFlags
  extends Omit<LegFlags, "concurrency">,
    Omit<FreshRunFlags, "verifyTimeoutMs">,
    ReportFlags {
  readonly goal: string;
  readonly verifyCmd?: string;
  /** `--verify-timeout`: the verify command's timeout (default 10 min). */
  readonly verifyTimeoutMs: number;
  readonly acceptNoBuildEvidence: boolean;
  /** `--concurrency` (default 4). */
  readonly concurrency: number;
}

/** The flags, or every problem (each names the flag and the fix). */
export type ParsedFlags = Parsed<AutoFlags>;

/** Usage text of `auto`. */
export const AUTO_USAGE = `usage: evidence-gate auto --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

  --goal TEXT                  what the run should achieve (required)
  --verify-cmd CMD             build/test command the engine runs at every sink, judged by exit code
  --accept-no-build-evidence   run without build evidence (verdicts are the model's own)
  --verify-timeout DURATION    verify command timeout, Go syntax (default 10m)
${FRESH_RUN.usage}  --concurrency N              nodes running at once (default 4, max 10)
${LEG.usage}${REPORT.usage}`;

/** Parses `auto`'s argv (after the subcommand). */
export function parseAutoFlags(argv: readonly string[]): ParsedFlags {
  return parseFlags(
    argv,
    {
      goal: { type: "string" },
      "verify-cmd": { type: "string" },
      "accept-no-build-evidence": { type: "boolean" },
      ...FRESH_RUN.options,
      ...LEG.options,
      ...REPORT.options,
    },
    false,
    (f, errors) => {
      const goal = f.str("goal");
      if (goal === undefined || goal.trim() === "")
        errors.push("--goal is required: say what the run should achieve");
      const verifyCmd = f.str("verify-cmd");
      const accept = f.bool("accept-no-build-evidence");
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
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return {
        goal: goal!,
        ...opt("verifyCmd", verifyCmd),
        acceptNoBuildEvidence: accept,
        ...fresh,
        verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 60_000,
        ...leg,
        concurrency: leg.concurrency ?? 4,
        ...report,
      };
    },
  );
}
