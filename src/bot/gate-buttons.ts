/**
 * The buttons of a run paused at a gate (SPEC §2.3): "Approve <gate>" and "Reject <gate>" on the App's
 * `action_required` check run. GitHub limits a check run to three `actions`, each `label` ≤ 20 characters,
 * `description` ≤ 40 and `identifier` ≤ 20 (https://docs.github.com/rest/checks/runs#update-a-check-run,
 * "actions"; the same limits are `maxLength` in the OpenAPI description).
 *
 * A click decides one gate of one run, once (issue 22 item 3). The identifier GitHub sends back with a click
 * is the only part of `check_run.requested_action` that says what the clicker saw, so it binds everything the
 * decision is about: `approve-<digest>` / `reject-<digest>`, where the digest is the first 12 hex characters
 * of sha256 over the evidence-gate run id, the **leg** and the gate ({@link buttonDigest}). The leg is the
 * workflow run (id and attempt, GitHub's own numbers, never the ledger's) whose ledger paused at the gate: the
 * pull request's run for the first pause, the resume workflow's run for each later one. The bot writes the
 * same three values at the end of the check run's summary ({@link gateMarker}) — a check run only the App can
 * write — and a click counts only when its identifier is the one that marker gives now: a redelivered click
 * for gate `g1` after the run paused again at `g2` (or at `g1` in another leg, or in another run) names
 * another digest and dispatches nothing.
 *
 * The digest is no secret and needs no key: a click's payload is signed by GitHub with the webhook secret,
 * and only the App can put buttons on its check runs, so nobody can send an identifier the App did not
 * write; the digest only tells the App's own buttons apart. 48 bits make two legs' buttons collide about once
 * in 2^48 pairs.
 *
 * The gate id and run id come from the (validated, untrusted) ledger: a button is offered only when both
 * have the product's own shapes (a node id, a run id), so what the resume workflow is dispatched with is
 * never free text.
 */
import { createHash } from "node:crypto";
import { isRunId } from "../core/run-id.js";
import type { Ledger } from "../ledger/ledger.js";
import type { RunAttempt } from "./check-key.js";

/** A button on the check run (`actions`): label ≤ 20, description ≤ 40, identifier ≤ 20 characters. */
export interface CheckRunButton {
  readonly label: string;
  readonly description: string;
  readonly identifier: string;
}

export type GateDecision = "approve" | "reject";

/** A node id (SPEC §3), spliced ids included (`/`), at most 100 characters. */
const GATE_ID = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

/** A leg as the marker writes it: `<workflow run id>.<attempt>` (the shapes `check-key.ts` accepts). */
const LEG = /^([1-9]\d{0,15})\.([1-9]\d{0,4})$/;

/** What a paused check run waits for: one gate of one leg of one run. */
export interface WaitingGate {
  readonly gate: string;
  readonly runId: string;
  /** The workflow run (id and attempt) whose ledger paused at {@link gate}. */
  readonly leg: RunAttempt;
}

/**
 * The gate a paused ledger waits at, in the leg `leg` (the workflow run that uploaded the ledger): its
 * conclusion paused the run, and the first gate node of the plan not yet decided (no row, or the engine's
 * SKIPPED "waiting" row), all of whose dependencies last passed. `null` for any other ledger, or when the ids
 * do not have the product's shapes.
 */
export function waitingGate(ledger: Ledger, leg: RunAttempt): WaitingGate | null {
  if (ledger.conclusion?.outcome !== "paused" || !isRunId(ledger.runId)) return null;
  const last = new Map<string, string>();
  for (const row of ledger.rows) last.set(row.nodeId, row.verdict);
  // The engine writes the waiting gate as a SKIPPED row ("waiting for a person…"); a decided one is PASS or FAIL.
  const undecided = (id: string) => last.get(id) !== "PASS" && last.get(id) !== "FAIL";
  const gate = ledger.plan.nodes.find(
    (n) => n.type === "gate" && undecided(n.id) && n.dependsOn.every((d) => last.get(d) === "PASS"),
  );
  if (gate === undefined || !GATE_ID.test(gate.id) || !LEG.test(legText(leg))) return null;
  return { gate: gate.id, runId: ledger.runId, leg };
}

function legText(leg: RunAttempt): string {
  return `${leg.id}.${leg.attempt}`;
}

/** How a leg is named to a person: "workflow run 30433642 (attempt 1)". */
export function legWords(leg: RunAttempt): string {
  return `workflow run ${leg.id} (attempt ${leg.attempt})`;
}

/**
 * The digest a button of `waiting` carries: the first 12 hex characters of sha256 over
 * `evidence-gate-bot gate button`, the run id, the leg and the gate, one per line (see the module comment).
 */
export function buttonDigest(waiting: WaitingGate): string {
  return createHash("sha256")
    .update(`evidence-gate-bot gate button\n${waiting.runId}\n${legText(waiting.leg)}\n${waiting.gate}\n`)
    .digest("hex")
    .slice(0, 12);
}

/** The identifier of `decision`'s button on `waiting`: `approve-<digest>` (20 characters), `reject-<digest>` (19). */
export function buttonIdentifier(waiting: WaitingGate, decision: GateDecision): string {
  return `${decision}-${buttonDigest(waiting)}`;
}

function clamp(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** "Approve <gate>" and "Reject <gate>", each within GitHub's limits, identified for this gate of this leg. */
export function gateButtons(waiting: WaitingGate): CheckRunButton[] {
  return [
    {
      label: clamp(`Approve ${waiting.gate}`, 20),
      description: clamp(`Resume the run past gate ${waiting.gate}`, 40),
      identifier: buttonIdentifier(waiting, "approve"),
    },
    {
      label: clamp(`Reject ${waiting.gate}`, 20),
      description: clamp(`Fail the run at gate ${waiting.gate}`, 40),
      identifier: buttonIdentifier(waiting, "reject"),
    },
  ];
}

const MARKER = /<!-- evidence-gate-bot gate=(\S+) run=(\S+) leg=(\S+) -->/g;

/** The hidden comment the bot ends a paused check run's summary with. */
export function gateMarker(waiting: WaitingGate): string {
  return `<!-- evidence-gate-bot gate=${waiting.gate} run=${waiting.runId} leg=${legText(waiting.leg)} -->`;
}

/**
 * The gate a check run's summary says it waits at: the **last** marker (the bot writes it after everything
 * else, so a marker quoted inside the ledger's fenced output cannot come after it), and only when its ids
 * have the product's shapes. A marker without a leg (written before buttons were bound to one) reads as none:
 * its buttons decide nothing.
 */
export function readGateMarker(summary: string | null): WaitingGate | null {
  if (summary === null) return null;
  const found = [...summary.matchAll(MARKER)].at(-1);
  if (found === undefined) return null;
  const [, gate = "", runId = "", leg = ""] = found;
  if (!summary.trimEnd().endsWith(found[0])) return null;
  const legParts = LEG.exec(leg);
  if (legParts === null || !GATE_ID.test(gate) || !isRunId(runId)) return null;
  return { gate, runId, leg: { id: Number(legParts[1]), attempt: Number(legParts[2]) } };
}

/** What a button identifier says: the decision and the digest of what it decides; `null` when it is no button of this App's. */
export interface ClickedButton {
  readonly decision: GateDecision;
  readonly digest: string;
}

const IDENTIFIER = /^(approve|reject)-([0-9a-f]{12})$/;

/** The decision and digest a button identifier names, or `null` (e.g. the bare `approve` of older buttons). */
export function clickedButton(identifier: string): ClickedButton | null {
  const m = IDENTIFIER.exec(identifier);
  return m === null ? null : { decision: m[1] as GateDecision, digest: m[2]! };
}

/** Whether `clicked` is a button of `waiting` (the gate, leg and run the check run waits at now). */
export function decidesWaitingGate(clicked: ClickedButton, waiting: WaitingGate): boolean {
  return clicked.digest === buttonDigest(waiting);
}

/** The Re-verify button's identifier (≤ 20 characters, GitHub's limit). */
export const REVERIFY_IDENTIFIER = "reverify";

/** The button every completed check run of the App carries (`AppCheckRuns.complete`; `reverify.ts`); GitHub's limits hold. */
export const REVERIFY_BUTTON: CheckRunButton = {
  label: "Re-verify",
  description: "Run only the verify command: no model",
  identifier: REVERIFY_IDENTIFIER,
};
