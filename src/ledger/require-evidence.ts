/**
 * The base-branch policy's `require-evidence: true` (SPEC §5, §6): every conclusion that would be
 * `neutral` — a run that passed without engine-run evidence on every non-gate sink — becomes `failure`.
 */
import type { Conclusion, ConclusionRule } from "./conclusion-types.js";

/** A `neutral` decision's rule and words, before the policy is applied. */
export interface NeutralDecision {
  readonly rule: ConclusionRule;
  readonly title: string;
  readonly reason: string;
}

/**
 * `decision` as `neutral` (outcome `passed`), or — under `require-evidence: true` — as `failure`
 * (outcome `failed`), its title prefixed `Failed (require-evidence): ` and its reason naming the policy.
 */
export function neutralOrFailure(requireEvidence: boolean, decision: NeutralDecision): Conclusion {
  if (!requireEvidence) return { conclusion: "neutral", outcome: "passed", ...decision };
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: decision.rule,
    title: `Failed (require-evidence): ${decision.title}`,
    reason: `${decision.reason} The maintainers' policy file (.github/evidence-gate.yml) sets require-evidence: true, so a run without engine-run evidence on every non-gate sink fails.`,
  };
}
