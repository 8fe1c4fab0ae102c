/**
 * The conclusion of a run that completed (SPEC §6's table, the rows decided by the ledger): failures first,
 * then whether every node passed, then how many non-gate sinks carry engine-run evidence. When every one
 * does, what that evidence covers is judged in `judge-verified-sinks.ts`.
 */

import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import type { Conclusion, ConclusionInput } from "./conclusion-types.js";
import { countNodes, quoteList } from "./conclusion-words.js";
import { judgeFailures, lastRowByNode } from "./judge-failures.js";
import { judgeVerifiedSinks } from "./judge-verified-sinks.js";
import { neutralOrFailure } from "./require-evidence.js";

/**
 * Judges `input.rows` against `input.sinks`: `failure` for any counted FAIL (or failed verification) and for
 * any node or sink without a PASS; `neutral` (or `failure` under `require-evidence`) when every sink is a
 * gate, or some non-gate sink passed without an engine-run verify; otherwise the verified sinks' judgement.
 */
export function judgeCompletedRun(input: ConclusionInput): Conclusion {
  const failed = judgeFailures(input.rows);
  if (failed !== null) return failed;

  const last = lastRowByNode(input.rows);
  const notPassed = [...new Set([...last.keys(), ...input.sinks])].filter(
    (id) => last.get(id)?.verdict !== "PASS",
  );
  if (notPassed.length > 0) {
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "node-did-not-run",
      title: `Failed: ${countNodes(notPassed.length)} did not run`,
      reason: `The run ended without a PASS for ${quoteList(notPassed)}; a run that did not finish its graph cannot pass.`,
    };
  }

  const gates = new Set(input.gateSinks);
  const checkedSinks = input.sinks.filter((id) => !gates.has(id));
  if (checkedSinks.length === 0) {
    return neutralOrFailure(input.requireEvidence, {
      rule: "only-gate-sinks",
      title: `Unverified: every sink is a gate (${countNodes(last.size)} passed)`,
      reason:
        "Every sink of the graph is a gate: a person's approval, not build evidence. Nothing was verified.",
    });
  }

  const verified = checkedSinks.filter((id) => {
    const row = last.get(id);
    return row?.verdict === "PASS" && row.qualifier === "verified";
  });
  if (verified.length === 0) {
    return neutralOrFailure(input.requireEvidence, {
      rule: "no-engine-evidence",
      title: `Unverified: ${countNodes(last.size)} passed with no build evidence`,
      reason: `${noEvidenceReason(input.buildEvidence)} Every PASS below is the model's, about its own work.`,
    });
  }
  if (verified.length < checkedSinks.length) {
    const unverified = checkedSinks.filter((id) => !verified.includes(id));
    return neutralOrFailure(input.requireEvidence, {
      rule: "partially-verified",
      title: `Partly verified: ${verified.length} of ${checkedSinks.length} sinks verified`,
      reason: `Sinks ${quoteList(unverified)} passed without an engine-run verify command; success needs every non-gate sink verified.`,
    });
  }
  return judgeVerifiedSinks({ input, last, verified });
}

/** Why no sink carries engine-run evidence, from the run's build-evidence answer (SPEC §5). */
function noEvidenceReason(answer: BuildEvidenceAnswer): string {
  switch (answer.kind) {
    case "declared":
      return `The operator declared no build evidence (accept-no-build-evidence) although ${answer.signals.map((s) => s.file).join(", ")} ${answer.signals.length === 1 ? "says" : "say"} this repository builds.`;
    case "none-detected":
      return "No build signal was detected and no verify command was given.";
    case "attached":
      return `A verify command ("${shownCommand(answer.command)}") was attached, but no sink was verified with it.`;
    case "graph":
      return answer.verifiedSinks.length === 0
        ? "No sink of the hand-written graph has a success_check.verify or completion.verify command, so the engine ran no build."
        : "The hand-written graph's verify commands did not verify any sink.";
    default:
      return unreachable(answer);
  }
}
