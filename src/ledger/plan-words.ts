import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import { unreachable } from "../core/unreachable.js";
import type { PlanSection } from "./ledger.js";

/** Printed, exactly, wherever no sink has an engine-run verify command (SPEC §6). */
/**
 * Said once, on the build-evidence line itself, when no sink has an engine-run command: what the verdicts
 * below stand on (the post-mortem behind PASS qualifiers).
 */
export const NO_BUILD_EVIDENCE_WORDS = "every verdict below is the model's, about its own work";

/** What stands behind one sink's verdict. */
export type SinkEvidence =
  | { readonly kind: "command"; readonly nodeId: string; readonly command: string }
  | { readonly kind: "gate"; readonly nodeId: string }
  | { readonly kind: "none"; readonly nodeId: string };

/** `attached`, `declared`, `none-detected`, then what that means, in plain words. */
export function answerWords(answer: BuildEvidenceAnswer): { readonly kind: string; readonly words: string } {
  switch (answer.kind) {
    case "attached":
      return {
        kind: answer.kind,
        words:
          answer.declaredBy === "policy"
            ? "the verify command comes from the maintainers' policy file (.github/evidence-gate.yml)"
            : "the verify command comes from the workflow input / CLI flag",
      };
    case "declared":
      return {
        kind: answer.kind,
        words: `accept-no-build-evidence was given although ${answer.signals
          .map((signal) => `${signal.file} (${signal.ecosystem})`)
          .join(", ")} ${answer.signals.length === 1 ? "says" : "say"} this repository builds`,
      };
    case "none-detected":
      return { kind: answer.kind, words: "no build signal was detected and no verify command was given" };
    case "graph":
      return {
        kind: answer.kind,
        words:
          answer.verifiedSinks.length === 0
            ? "hand-written graph: no sink has a success_check.verify or completion.verify command"
            : `hand-written graph: the engine runs the graph's own verify commands (sinks ${answer.verifiedSinks.map((s) => `"${s}"`).join(", ")})${answer.unverifiedSinks.length > 0 ? `; sinks ${answer.unverifiedSinks.map((s) => `"${s}"`).join(", ")} have none` : ""}`,
      };
    default:
      return unreachable(answer);
  }
}

/**
 * One entry per sink, in plan order: its attached command, or that it is a gate, or that nothing checks
 * it. A command attached to a node the plan does not list as a sink (the engine's own `verify` row) is
 * listed too.
 */
export function sinkEvidence(plan: PlanSection): SinkEvidence[] {
  const commands = new Map(plan.sinkCommands.map((entry) => [entry.nodeId, entry.command]));
  const sinks: SinkEvidence[] = plan.nodes
    .filter((node) => node.sink)
    .map((node): SinkEvidence => {
      const command = commands.get(node.id);
      if (command !== undefined) return { kind: "command", nodeId: node.id, command };
      return node.type === "gate" ? { kind: "gate", nodeId: node.id } : { kind: "none", nodeId: node.id };
    });
  const listed = new Set(sinks.map((sink) => sink.nodeId));
  for (const entry of plan.sinkCommands) {
    if (!listed.has(entry.nodeId))
      sinks.push({ kind: "command", nodeId: entry.nodeId, command: entry.command });
  }
  return sinks;
}

/** Printed instead of the NONE line when no plan ran at all (planning failed or was refused). */
export const NO_PLAN_LINE = "no plan ran: nothing was built, tested or verified";

/** True when no sink carries an engine-run verify command: the NONE line is printed. */
export function hasNoBuildEvidence(plan: PlanSection): boolean {
  return !sinkEvidence(plan).some((sink) => sink.kind === "command");
}

const SOURCE_NAMES: Readonly<Record<string, string>> = {
  goal: "the goal",
  "pr-title": "PR title",
  "pr-body": "PR body",
  comment: "the comment that started the run",
};

const counted = (n: number, one: string, many: string): string[] =>
  n === 0 ? [] : [`${n} ${n === 1 ? one : many}`];

/**
 * What was removed from the pull request's text before the planner read it, as one plain sentence
 * (`PlanSection.untrustedText`), e.g. "PR body: 3 hidden characters, 1 HTML comment; PR title: 1 hidden
 * character — removed before the planner read them (text nobody sees on the page)."; `null` when nothing
 * was removed. Renderers escape it.
 */
export function untrustedTextWords(removals: PlanSection["untrustedText"]): string | null {
  if (removals === undefined || removals.length === 0) return null;
  const parts = removals.map((r) => {
    const what = [
      ...counted(r.hiddenChars, "hidden character", "hidden characters"),
      ...counted(r.htmlComments, "HTML comment", "HTML comments"),
      ...counted(r.hiddenHtml, "hidden HTML element", "hidden HTML elements"),
      ...counted(r.altTexts, "alternative text", "alternative texts"),
      ...counted(r.omittedChars, "visible character cut to fit", "visible characters cut to fit"),
    ];
    return `${SOURCE_NAMES[r.source] ?? r.source}: ${what.join(", ")}`;
  });
  return `${parts.join("; ")} — removed before the planner read them (text nobody sees on the page, and what the prompt's bound left out).`;
}

/** How much of the goal the ledger's text and markdown show, in code points (the ledger JSON keeps it all). */
export const GOAL_SHOWN_CHARS = 500;

/**
 * The goal as the ledger shows it: whitespace runs folded to one space, and a goal longer than
 * `GOAL_SHOWN_CHARS` code points cut there with how much was left out — a 100 KB goal must not fill the
 * job log or the check run. The whole goal stays in the ledger JSON and the run's state.json.
 */
export function goalWords(goal: string): string {
  const points = Array.from(goal.replace(/\s+/g, " ").trim());
  if (points.length <= GOAL_SHOWN_CHARS) return points.join("");
  const left = points.length - GOAL_SHOWN_CHARS;
  return `${points.slice(0, GOAL_SHOWN_CHARS).join("")}… (${left} more characters; the whole goal is in ledger.json)`;
}
