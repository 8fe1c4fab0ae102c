/**
 * The goal loop's assessor (`max-cycles`, SPEC §7; issue 13 item 7): after each `auto` cycle one isolated,
 * tool-less model call reads the goal and the run's ledger (fenced as DATA: it holds model-written text)
 * and answers `{goal_met, remaining, evidence}`. {@link buildAssessorPrompt} writes the prompt;
 * {@link parseAssessment} reads the reply, which is untrusted input like a planner reply: anything but that
 * exact shape is refused with a reason, and the loop then stops (it never guesses a verdict).
 */
import { extractPlanJson } from "./parse-plan.js";
import { GOAL_MAX_CHARS } from "./planner-prompt.js";
import { quoteUntrusted, sanitiseUntrusted } from "./untrusted-text.js";

/** The ledger text quoted to the assessor is cut to this many characters (head and tail kept). */
const LEDGER_MAX_CHARS = 12_000;
/** `remaining` and `evidence` are cut to this many characters once read. */
const FIELD_MAX_CHARS = 4_000;

/** The assessor's verdict on one cycle. */
export interface Assessment {
  /** The assessor's opinion only: it never turns a failed run into a pass (the run's conclusion stands). */
  readonly goal_met: boolean;
  /** What is still to do, in the assessor's words; quoted fenced into the next cycle's planner prompt. */
  readonly remaining: string;
  /** Why the assessor thinks so, naming rows or verify results of the ledger. */
  readonly evidence: string;
}

/** The assessor prompt for one finished cycle. `ledgerText` is the run's plain-text ledger. */
export function buildAssessorPrompt(o: { readonly goal: string; readonly ledgerText: string }): string {
  // The whole goal, as the planner read it: a goal over the planner's bound never got this far.
  const goal = sanitiseUntrusted(o.goal.trim(), { maxChars: GOAL_MAX_CHARS }).text.trim();
  const ledger = quoteUntrusted("run-ledger", o.ledgerText, { maxChars: LEDGER_MAX_CHARS });
  return [
    "You are the assessor of an automated run. You have no tools: answer from the text below only.",
    "",
    "## Goal (the operator's instruction to the run)",
    "",
    goal,
    "",
    "## The run's ledger (what ran, what its checks said, and how the run concluded)",
    "",
    ledger.block,
    "",
    "## Your reply",
    "",
    "Decide whether the goal is met by what the ledger shows. Reply with one JSON object and nothing else:",
    '{"goal_met": true|false, "remaining": "what is still to do (empty when met)", "evidence": "why, naming the rows or checks"}',
    "",
  ].join("\n");
}

/**
 * Reads an assessor reply: the first JSON object in it (a fenced block or the bare object) with a boolean
 * `goal_met` and string `remaining` and `evidence`; the strings are sanitised and cut.
 *
 * @returns the assessment, or a reason naming what was wrong with the reply.
 */
export function parseAssessment(
  text: string,
): { readonly ok: true; readonly assessment: Assessment } | { readonly ok: false; readonly reason: string } {
  const json = extractPlanJson(text);
  if (!json.ok) return { ok: false, reason: `the assessor reply held no JSON object: ${json.message}` };
  const v = json.value as Record<string, unknown>;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return { ok: false, reason: "the assessor reply is not a JSON object" };
  }
  if (typeof v.goal_met !== "boolean") {
    return { ok: false, reason: "the assessor reply has no boolean goal_met" };
  }
  for (const key of ["remaining", "evidence"] as const) {
    if (typeof v[key] !== "string") return { ok: false, reason: `the assessor reply has no string ${key}` };
  }
  const clean = (s: string): string => sanitiseUntrusted(s, { maxChars: FIELD_MAX_CHARS }).text.trim();
  return {
    ok: true,
    assessment: {
      goal_met: v.goal_met,
      remaining: clean(v.remaining as string),
      evidence: clean(v.evidence as string),
    },
  };
}
