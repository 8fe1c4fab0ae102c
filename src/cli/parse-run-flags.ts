/**
 * Flags of `evidence-gate run GRAPH`, parsed once into a typed object or refused with every problem
 * named (SPEC §2, §11). `auto`'s flags that mean nothing for a hand-written graph are refused with the
 * reason, not silently ignored.
 */

import { FRESH_RUN, type FreshRunFlags, LEG, REPORT } from "./flag-groups.js";
import type { Parsed } from "./parse-command.js";
import {
  type FlagSpec,
  inputFlags,
  type LegFlags,
  onePositional,
  parseFlags,
  type ReportFlags,
} from "./shared-flags.js";

export interface RunFlags extends FreshRunFlags, LegFlags, ReportFlags {
  /** The graph file, as given (relative to the current directory). */
  readonly graph: string;
  /** `--input NAME=VALUE` values for `{{ inputs.NAME }}`. */
  readonly inputs: Readonly<Record<string, string>>;
}

/** The flags, or every problem (each names the flag and the fix). */
export type ParsedRunFlags = Parsed<RunFlags>;

/** Usage text of `run`. */
export const RUN_USAGE = `usage: evidence-gate run GRAPH [--input NAME=VALUE]... [options]

  GRAPH                        the graph file (YAML or JSON); check it for free first with \`evidence-gate lint\`
  --input NAME=VALUE           a value for {{ inputs.NAME }} (repeatable)
  --concurrency N              nodes running at once (default: the graph's concurrency, else 4; max 10)
  --verify-timeout DURATION    the largest success_check.verify.timeout the graph may declare (default 10m)
${FRESH_RUN.usage}${LEG.usage}${REPORT.usage}
The graph's own verify commands (success_check.verify, a completion.verify command) are its build
evidence (no refusal applies to run). A gate pauses the run (exit 2) and prints the
\`evidence-gate resume\` commands that approve or reject it.

Exit: 0 passed, 1 failed, 2 paused (gate or session limit), 4 passed but action_required (read
CONCLUSION), 64 usage error (bad flags, unreadable or
invalid graph: every problem is printed and nothing runs), 124 timed out (--timeout), 130 interrupted.
`;

/** Flags of `auto` that a hand-written graph has no use for, and why each is refused. */
const NOT_FOR_RUN: Readonly<Record<string, FlagSpec & { readonly why: string }>> = {
  goal: {
    type: "string",
    why: "--goal belongs to auto: run takes a graph file (evidence-gate run GRAPH); auto plans one from a goal",
  },
  "verify-cmd": {
    type: "string",
    why: "--verify-cmd does not apply to run: a hand-written graph declares each node's success_check.verify (auto --verify-cmd attaches one to planned sinks)",
  },
  "accept-no-build-evidence": {
    type: "boolean",
    why: "--accept-no-build-evidence does not apply to run: no build-evidence refusal applies to a hand-written graph, whose own success_check.verify commands are its evidence",
  },
  "accept-loaded-user-config": {
    type: "boolean",
    why: "--accept-loaded-user-config is meaningless on run: hand-written nodes already load your configuration",
  },
};

/** Parses `run`'s argv (after the subcommand). */
export function parseRunFlags(argv: readonly string[]): ParsedRunFlags {
  return parseFlags(
    argv,
    {
      input: { type: "string", multiple: true },
      ...FRESH_RUN.options,
      ...LEG.options,
      ...REPORT.options,
      ...NOT_FOR_RUN,
    },
    true,
    (f, errors) => {
      for (const [name, { why }] of Object.entries(NOT_FOR_RUN)) {
        if (f.given(name)) errors.push(why);
      }
      const graph = onePositional(f, errors, {
        missing: "run needs the graph file to run: evidence-gate run GRAPH",
        extra: (others) =>
          `run takes one graph file; also got ${others}: run them one at a time (a value with spaces needs quotes)`,
      });
      const inputs = inputFlags(f.list("input"), errors);
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return { graph: graph!, inputs, ...fresh, ...leg, ...report };
    },
  );
}
