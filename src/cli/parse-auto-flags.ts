/**
 * Flags of `evidence-gate auto`, parsed once into a typed object or refused with every problem named
 * (SPEC §2, §11). Flags mirror the action's inputs; the groups `auto` shares with `run` and `resume` are
 * parsed by `shared-flags.ts`.
 */
import type { Parsed } from "./cli-context.js";
import {
  FRESH_RUN_OPTIONS,
  FRESH_RUN_USAGE,
  type FreshRunFlags,
  flagReader,
  freshRunFlags,
  LEG_OPTIONS,
  LEG_USAGE,
  type LegFlags,
  legFlags,
  opt,
  parseCommandLine,
  REPORT_OPTIONS,
  REPORT_USAGE,
  type ReportFlags,
  reportFlags,
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
${FRESH_RUN_USAGE}  --concurrency N              nodes running at once (default 4, max 10)
${LEG_USAGE}${REPORT_USAGE}`;

/** Parses `auto`'s argv (after the subcommand). */
export function parseAutoFlags(argv: readonly string[]): ParsedFlags {
  const parsed = parseCommandLine(
    argv,
    {
      goal: { type: "string" },
      "verify-cmd": { type: "string" },
      "accept-no-build-evidence": { type: "boolean" },
      ...FRESH_RUN_OPTIONS,
      ...LEG_OPTIONS,
      ...REPORT_OPTIONS,
    },
    false,
  );
  if (!parsed.ok) return parsed;
  const f = flagReader(parsed.line);
  const errors: string[] = [];
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
  const fresh = freshRunFlags(f, errors);
  const leg = legFlags(f, errors);
  const report = reportFlags(f, errors);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    flags: {
      goal: goal!,
      ...opt("verifyCmd", verifyCmd),
      acceptNoBuildEvidence: accept,
      ...fresh,
      verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 60_000,
      ...leg,
      concurrency: leg.concurrency ?? 4,
      ...report,
    },
  };
}
