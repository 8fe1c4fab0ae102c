/**
 * The CLI's live progress (issue: "a line per node event — started, passed with qualifier and cost,
 * failed with cause, retried, verifying"; research/oh-my-graph.md §7.1): the plan, one line per engine
 * event (worded by src/progress/node-lines.ts, as in the action's log), and — when the run paused — the
 * exact `resume` commands that continue it. Pure text; the caller decides where lines go (stdout, or
 * stderr under `--json`).
 */

import { resolve } from "node:path";
import type { LedgerRow } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import type { RetryInfo } from "../engine/leg-hooks.js";
import { formatUsd } from "../ledger/cells.js";
import type { RunOutcome } from "../ledger/conclusion.js";
import type { PlanSection } from "../ledger/ledger.js";
import { NodeLines, nodeLine, type Pause, pauseLine } from "./node-lines.js";

export { nodeLine, type Pause, retryLine } from "./node-lines.js";

export interface ProgressLinesOptions {
  /** Prints one line. */
  readonly line: (text: string) => void;
  /** Where the run is, for the `evidence-gate resume …` commands that continue it. */
  readonly run: ResumeTarget;
}

/** Turns engine events into progress lines and remembers where the run paused. */
export class ProgressLines {
  readonly #o: { readonly line: (text: string) => void; readonly resumeCommand: (args: string) => string };
  readonly #lines = new NodeLines();
  #pause: Pause | null = null;

  constructor(options: ProgressLinesOptions) {
    this.#o = { line: options.line, resumeCommand: resumeCommandFor(options.run) };
  }

  /** Where the run paused during this leg, if it did. */
  get pause(): Pause | null {
    return this.#pause;
  }

  /** The engine hooks printing the lines (`auto`, `run` and `resume` take the same ones). */
  readonly hooks = {
    onNodeStarted: (nodeId: string, info?: { readonly attempt: number; readonly round: number }): void => {
      this.#o.line(this.#lines.started(nodeId, info));
    },
    onNodeVerifying: (nodeId: string, command: string): void => {
      this.#o.line(this.#lines.verifying(nodeId, command));
    },
    onNodeRetried: (nodeId: string, info: RetryInfo): void => {
      this.#o.line(this.#lines.retried(nodeId, info));
    },
    onNodeFinished: (row: LedgerRow): void => {
      this.#o.line(nodeLine(row));
    },
    onGatePaused: (gate: string): void => {
      // The gate is reached, but the run may still fail (a running sibling fails under halt): how to
      // resume it is printed after the ledger, and only when the run did pause (resumeLines).
      this.#pause = { kind: "gate", gate };
      this.#o.line(gateReachedLine(gate));
    },
    onSessionLimit: (nodeId: string, resetsAt: string | null): void => {
      this.#pause = { kind: "session-limit", nodeId, resetsAt };
      this.#o.line(
        pauseLine(this.#pause, `resume after the reset with: ${this.#o.resumeCommand("--retry-failed")}`),
      );
    },
  };

  /**
   * After the ledger of a paused or interrupted run: what continues it, one copy-pasteable command per
   * line. An interrupted run (`cancelled`: Ctrl-C, SIGTERM) is saved and continues with `--retry-failed`
   * (issue 17 item 7). Otherwise nothing unless the run's `outcome` is `paused`: a run that failed while a
   * gate waited is not resumed by deciding the gate.
   */
  resumeLines(outcome: RunOutcome | undefined): string[] {
    if (outcome === "cancelled") {
      return [
        "interrupted: the run is saved — continue it (the stopped nodes run again, the passed ones are kept) with",
        `  ${this.#o.resumeCommand("--retry-failed")}`,
      ];
    }
    const pause = this.#pause;
    if (pause === null || outcome !== "paused") return [];
    switch (pause.kind) {
      case "gate":
        return [
          `paused at gate "${pause.gate}": a person decides — continue the run with one of`,
          `  ${this.#o.resumeCommand(`--approve ${shellWord(pause.gate)}`)}`,
          `  ${this.#o.resumeCommand(`--reject ${shellWord(pause.gate)}`)}`,
        ];
      case "session-limit":
        return [
          `paused at the model's session limit${pause.resetsAt !== null ? ` (resets ${pause.resetsAt})` : ""}: once it resets, finish the work that never ran with`,
          `  ${this.#o.resumeCommand("--retry-failed")}`,
        ];
      default:
        return unreachable(pause);
    }
  }
}

/** `⏸ review  gate reached — waiting for a person's decision (…)`: no resume command, the run may still fail. */
export function gateReachedLine(gate: string): string {
  return `⏸ ${gate}  gate reached — waiting for a person's decision (if the run pauses, the resume commands follow the ledger)`;
}

/**
 * The plan's title line for `auto` and `plan` (`plan: 2 nodes (re-planned once after a refusal), planner
 * $0.0008`); for a plan with no node — refused again after its repair, or a planner reply that could not be
 * used — `plan: refused, nothing to run` / `plan: planning failed, nothing to run`, with the planner's cost
 * too (it was spent). `interrupted` (Ctrl-C or SIGTERM came while planning) makes an empty plan's title
 * `plan: interrupted while planning, nothing to run`.
 */
export function planTitle(plan: PlanSection, o: { readonly interrupted?: boolean } = {}): string {
  const cost = `planner ${formatUsd(plan.planningCostUsd)}`;
  const n = plan.nodes.length;
  if (n === 0 && o.interrupted === true) return `plan: interrupted while planning, nothing to run (${cost})`;
  if (n === 0)
    return `plan: ${plan.repaired !== undefined ? "refused" : "planning failed"}, nothing to run (${cost})`;
  return `plan: ${n} node${n === 1 ? "" : "s"}${plan.repaired ? " (re-planned once after a refusal)" : ""}, ${cost}`;
}

/**
 * The plan before anything runs: a title, one line per node (dependencies, tools, the sink's verify
 * command), what the build evidence is, the tool disclosure, and one `warning:` line per thing the graph
 * asks that the runtime will not enforce (`runtimeWarnings`, e.g. a `budget_usd` on codex), so it is read
 * before anything is spent, not only in the ledger.
 */
export function planLines(plan: PlanSection, title: string): string[] {
  const lines = [title];
  // A refused or failed plan runs nothing: what would bound its nodes (the build evidence, the tool
  // ceiling) describes no node, so only the title (which says why) and the warnings are printed.
  if (plan.nodes.length === 0) {
    for (const warning of plan.warnings ?? []) lines.push(`warning: ${warning}`);
    return lines;
  }
  for (const node of plan.nodes) {
    const deps = node.dependsOn.length > 0 ? ` ← ${node.dependsOn.join(", ")}` : "";
    const verify = plan.sinkCommands.find((s) => s.nodeId === node.id);
    const what = node.type === "gate" ? "gate (a person approves)" : `[${node.allowedTools.join(", ")}]`;
    lines.push(`  ${node.id}${deps}  ${what}${verify ? `  verify: ${shownCommand(verify.command)}` : ""}`);
  }
  lines.push(...(plan.fragments ?? []));
  lines.push(`build evidence: ${buildEvidenceWords(plan.buildEvidence)}`);
  lines.push(
    plan.disclosure
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n"),
  );
  for (const warning of plan.warnings ?? []) lines.push(`warning: ${warning}`);
  return lines;
}

/** Characters of one prompt {@link promptLines} shows. */
export const SHOWN_PROMPT_CHARS = 300;

/**
 * What each planned node will be asked, for `plan` without `--json` (issue 26): a heading, then one line per
 * node with a prompt — `  ID: PROMPT`, line breaks shown as `⏎`, cut after {@link SHOWN_PROMPT_CHARS}
 * characters with the rest counted (`--json` prints every prompt whole). `[]` when no node has a prompt.
 */
export function promptLines(nodes: readonly { readonly id: string; readonly prompt?: string }[]): string[] {
  const shown = nodes.filter((n) => n.prompt !== undefined && n.prompt.trim() !== "");
  if (shown.length === 0) return [];
  return [
    `prompts (one line each, cut at ${SHOWN_PROMPT_CHARS} characters; --json prints them whole):`,
    ...shown.map((node) => {
      const one = node.prompt!.trim().replace(/\s*\n\s*/g, " ⏎ ");
      const chars = [...one];
      const cut =
        chars.length > SHOWN_PROMPT_CHARS
          ? `${chars.slice(0, SHOWN_PROMPT_CHARS).join("")}… (${chars.length - SHOWN_PROMPT_CHARS} more characters)`
          : one;
      return `  ${node.id}: ${cut}`;
    }),
  ];
}

const NO_EVIDENCE = "NONE — every verdict below is the model's, about its own work";

function buildEvidenceWords(answer: PlanSection["buildEvidence"]): string {
  switch (answer.kind) {
    case "attached":
      return `${shownCommand(answer.command)} (engine-run at every sink)`;
    case "declared":
    case "none-detected":
      return NO_EVIDENCE;
    case "graph":
      if (answer.verifiedSinks.length === 0)
        return `${NO_EVIDENCE} (no sink declares success_check.verify or a completion.verify command)`;
      return `the graph's own verify commands, engine-run at ${answer.verifiedSinks.join(", ")}${answer.unverifiedSinks.length > 0 ? `; none at ${answer.unverifiedSinks.join(", ")} (their verdicts are the model's)` : ""}`;
    default:
      return unreachable(answer);
  }
}

/** `word` as one shell word: as is when it needs no quoting, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A run as `resume` finds it. */
export interface ResumeTarget {
  readonly runId: string;
  /** The repository (absolute). */
  readonly repoDir: string;
  /** `--runs-dir` as given, or `undefined` (the default folder under the repository). */
  readonly runsDir: string | undefined;
  /** The command's directory: `--repo` and `--runs-dir` are named as they resolve from it. */
  readonly cwd: string;
  /**
   * `--claude-path` / `--codex-path` as given, when they were: the resumed leg needs the same executable
   * (a printed command without it fails with "the claude CLI was not found").
   */
  readonly claudePath?: string;
  readonly codexPath?: string;
}

/**
 * `evidence-gate resume RUN_ID [--repo DIR] [--runs-dir DIR] [--claude-path EXE] [--codex-path EXE] ARGS`:
 * the command that continues a run from `cwd`, naming `--repo` when the repository is not `cwd`, and
 * `--runs-dir` (absolute), `--claude-path` and `--codex-path` (a path absolute, a bare name as given, looked
 * up on `PATH`) when they were given.
 */
export function resumeCommandFor(o: ResumeTarget): (args: string) => string {
  const where = [
    ...(o.repoDir !== o.cwd ? [`--repo ${shellWord(o.repoDir)}`] : []),
    ...(o.runsDir !== undefined ? [`--runs-dir ${shellWord(resolve(o.cwd, o.runsDir))}`] : []),
    ...(o.claudePath !== undefined ? [`--claude-path ${shellWord(cliPathFrom(o.cwd, o.claudePath))}`] : []),
    ...(o.codexPath !== undefined ? [`--codex-path ${shellWord(cliPathFrom(o.cwd, o.codexPath))}`] : []),
  ];
  return (args) => ["evidence-gate resume", o.runId, ...where, args].join(" ");
}

/**
 * A `--claude-path` / `--codex-path` value as the resume command must give it from anywhere: a path (it
 * holds a `/`) made absolute against `cwd`; a bare name as given, since it is looked up on `PATH`
 * (`proc/which.ts`), not in the current folder.
 */
function cliPathFrom(cwd: string, given: string): string {
  return given.includes("/") ? resolve(cwd, given) : given;
}
