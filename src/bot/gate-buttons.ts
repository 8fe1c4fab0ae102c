/**
 * The buttons of a run paused at a gate (SPEC §2.3): "Approve <gate>" and "Reject <gate>" on the App's
 * `action_required` check run. GitHub limits a check run to three `actions`, each `label` ≤ 20 characters,
 * `description` ≤ 40 and `identifier` ≤ 20 (https://docs.github.com/rest/checks/runs#update-a-check-run,
 * "actions"), so the identifier is only the decision; which gate of which run it decides is written by the
 * bot at the end of the check run's summary ({@link gateMarker}) — a check run only the App can write.
 *
 * The gate id and run id come from the (validated, untrusted) ledger: a button is offered only when both
 * have the product's own shapes (a node id, a run id), so what the resume workflow is dispatched with is
 * never free text.
 */
import { isRunId } from "../core/run-id.js";
import type { Ledger } from "../ledger/ledger.js";
import type { CheckRunButton } from "./app-check-runs.js";

export type GateDecision = "approve" | "reject";

/** The button identifiers (≤ 20 characters). */
export const DECISIONS: readonly GateDecision[] = ["approve", "reject"];

/** A node id (SPEC §3), spliced ids included (`/`), at most 100 characters. */
const GATE_ID = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

/** What a paused check run waits for: one gate of one run. */
export interface WaitingGate {
  readonly gate: string;
  readonly runId: string;
}

/**
 * The gate a paused ledger waits at: its conclusion paused the run, and the first gate node of the plan
 * not yet decided (no row, or the engine's SKIPPED "waiting" row), all of whose dependencies last passed. `null` for any other ledger, or when the ids do not
 * have the product's shapes.
 */
export function waitingGate(ledger: Ledger): WaitingGate | null {
  if (ledger.conclusion?.outcome !== "paused" || !isRunId(ledger.runId)) return null;
  const last = new Map<string, string>();
  for (const row of ledger.rows) last.set(row.nodeId, row.verdict);
  // The engine writes the waiting gate as a SKIPPED row ("waiting for a person…"); a decided one is PASS or FAIL.
  const undecided = (id: string) => last.get(id) !== "PASS" && last.get(id) !== "FAIL";
  const gate = ledger.plan.nodes.find(
    (n) => n.type === "gate" && undecided(n.id) && n.dependsOn.every((d) => last.get(d) === "PASS"),
  );
  if (gate === undefined || !GATE_ID.test(gate.id)) return null;
  return { gate: gate.id, runId: ledger.runId };
}

function clamp(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** "Approve <gate>" and "Reject <gate>", each within GitHub's limits. */
export function gateButtons(waiting: WaitingGate): CheckRunButton[] {
  return [
    {
      label: clamp(`Approve ${waiting.gate}`, 20),
      description: clamp(`Resume the run past gate ${waiting.gate}`, 40),
      identifier: "approve",
    },
    {
      label: clamp(`Reject ${waiting.gate}`, 20),
      description: clamp(`Fail the run at gate ${waiting.gate}`, 40),
      identifier: "reject",
    },
  ];
}

const MARKER = /<!-- evidence-gate-bot gate=(\S+) run=(\S+) -->/g;

/** The hidden comment the bot ends a paused check run's summary with. */
export function gateMarker(waiting: WaitingGate): string {
  return `<!-- evidence-gate-bot gate=${waiting.gate} run=${waiting.runId} -->`;
}

/**
 * The gate a check run's summary says it waits at: the **last** marker (the bot writes it after everything
 * else, so a marker quoted inside the ledger's fenced output cannot come after it), and only when its ids
 * have the product's shapes.
 */
export function readGateMarker(summary: string | null): WaitingGate | null {
  if (summary === null) return null;
  const found = [...summary.matchAll(MARKER)].at(-1);
  if (found === undefined) return null;
  const [, gate = "", runId = ""] = found;
  if (!summary.trimEnd().endsWith(found[0])) return null;
  return GATE_ID.test(gate) && isRunId(runId) ? { gate, runId } : null;
}

/** The decision a button identifier names, or `null`. */
export function decisionOf(identifier: string): GateDecision | null {
  return (DECISIONS as readonly string[]).includes(identifier) ? (identifier as GateDecision) : null;
}
