import type { LedgerRow, VerifyEvidence } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import { CHECK_RUN_TEXT_MAX_BYTES, truncateUtf8, utf8Bytes } from "./byte-budget.js";
import {
  baseWords,
  conclusionLabel,
  contradictedClaims,
  failedVerifications,
  formatDuration,
  formatUsd,
  formatUsdTotal,
  loopTotalsWords,
  nodeLabel,
  rowDetail,
  runtimeWords,
  shortSession,
  tokenWords,
  verdictLabel,
  verifyExitWords,
} from "./cells.js";
import { type Ledger, PLANNING_WITH_ASSESSOR, policySettingsWords } from "./ledger.js";
import { codeSpan, escapeCell, escapeInline, fencedBlock } from "./markdown-syntax.js";
import {
  answerWords,
  goalWords,
  hasNoBuildEvidence,
  NO_BUILD_EVIDENCE_WORDS,
  NO_PLAN_LINE,
  sinkEvidence,
  untrustedTextWords,
} from "./plan-words.js";
import { changedFilesMarkdown } from "./render-changed-files.js";
import { CONCLUSION_ICONS, goalLoopMarkdown } from "./render-goal-loop.js";
import { patchSection } from "./render-patch.js";

export { truncateUtf8 } from "./byte-budget.js";

/** GitHub's check run output, each field within its limit. */
export interface CheckRunOutput {
  /** ≤ 255 characters. */
  readonly title: string;
  /** ≤ 65535 UTF-8 bytes. */
  readonly summary: string;
  /** ≤ 65535 UTF-8 bytes; `""` when there is nothing beyond the summary. */
  readonly text: string;
}

export const CHECK_RUN_TITLE_MAX_CHARS = 255;
export const TRIMMED_NOTICE = "… trimmed; full ledger in the job summary / artifact";

/** How much detail a rendering keeps: the whole of it, or less, tried before anything is cut. */
interface Detail {
  /** Longest detail cell, in characters (`null` = whole). */
  readonly cellChars: number | null;
  /** Last lines of a verify output tail kept. */
  readonly tailLines: number | null;
  readonly patchPreviewLines: number;
  readonly patchPreviewBytes: number;
  /** Rows listed per goal-loop cycle (`null` = all). */
  readonly cycleRows: number | null;
  /** Longest assessor field (remaining, evidence, reason) in a cycle section, in characters. */
  readonly cycleWordsChars: number;
}

const FULL: Detail = {
  cellChars: null,
  tailLines: null,
  patchPreviewLines: 200,
  patchPreviewBytes: 16_384,
  cycleRows: null,
  cycleWordsChars: 1000,
};
const COMPACT: Detail = {
  cellChars: 160,
  tailLines: 40,
  patchPreviewLines: 40,
  patchPreviewBytes: 4096,
  cycleRows: 10,
  cycleWordsChars: 300,
};

/**
 * The whole ledger as GitHub-flavoured Markdown (job summary, PR comment): heading and reason, the goal
 * loop's cycles (when the run was a goal loop's last), plan section, ledger table, failed verifications,
 * changed files, totals, the plan's nodes, and the patch of uncommitted changes. Pure; text is escaped.
 */
export function renderLedgerMarkdown(ledger: Ledger): string {
  return joinSections([...summarySections(ledger, FULL), ...textSections(ledger, FULL)]);
}

/** Where the whole ledger is when the check run's copy had to be cut. */
export interface FullLedgerLinks {
  /** The workflow run's page (its job summary holds the whole ledger). */
  readonly detailsUrl?: string;
  /** The ledger artifact (`<check-name>-ledger`): its name, and its page once uploaded. */
  readonly ledgerArtifact?: { readonly name: string; readonly url?: string };
}

/**
 * The check run's `output`: the title, the summary (heading, the goal loop's cycles, plan section, table,
 * failed verifications, changed files, totals) and the text (the plan's nodes and the patch). A field over
 * 65535 UTF-8 bytes is first re-rendered with less detail, then cut with {@link truncateUtf8} and the
 * notice ({@link trimmedNotice}: links to the job summary and the ledger artifact when given).
 */
export function renderCheckRunOutput(ledger: Ledger, options: FullLedgerLinks = {}): CheckRunOutput {
  const notice = trimmedNotice(options);
  const withinLimit = (render: (detail: Detail) => string): string => {
    const full = render(FULL);
    if (utf8Bytes(full) <= CHECK_RUN_TEXT_MAX_BYTES) return full;
    return truncateUtf8(render(COMPACT), CHECK_RUN_TEXT_MAX_BYTES, notice);
  };
  return {
    title: clampTitle(ledger.conclusion?.title ?? `Running: ${ledger.rows.length} executions so far`),
    summary: withinLimit((detail) => joinSections(summarySections(ledger, detail))),
    text: withinLimit((detail) => joinSections(textSections(ledger, detail))),
  };
}

/** `title` cut to 255 characters with `…`, never splitting a surrogate pair. */
export function clampTitle(title: string): string {
  const flat = title.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
  if (flat.length <= CHECK_RUN_TITLE_MAX_CHARS) return flat;
  let cut = CHECK_RUN_TITLE_MAX_CHARS - 1;
  const last = flat.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${flat.slice(0, cut)}…`;
}

/**
 * The bold {@link TRIMMED_NOTICE}, then `— [open the full ledger](detailsUrl)` (the job summary) and
 * `· artifact [name](url)` for whichever links are given; non-http(s) URLs are left out.
 */
export function trimmedNotice(links: FullLedgerLinks = {}): string {
  const href = (url: string | undefined): string | null =>
    url === undefined || !/^https?:\/\/\S+$/.test(url)
      ? null
      : url.replace(/[()<>]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  let notice = `**${TRIMMED_NOTICE}**`;
  const summary = href(links.detailsUrl);
  if (summary !== null) notice += ` — [open the full ledger](${summary})`;
  const artifact = links.ledgerArtifact;
  if (artifact !== undefined) {
    const name = codeSpan(artifact.name, { inTable: false });
    const url = href(artifact.url);
    notice += url === null ? ` · artifact ${name}` : ` · artifact [${name}](${url})`;
  }
  return notice;
}

function summarySections(ledger: Ledger, detail: Detail): string[] {
  return [
    heading(ledger),
    ...(ledger.goalLoop !== undefined ? [goalLoopMarkdown(ledger.goalLoop, ledger.runId, detail)] : []),
    planSection(ledger),
    ledgerTable(ledger.rows, detail),
    ...failedVerifications(ledger.rows).map(({ row, verify }) => failedVerifyBlock(row, verify, detail)),
    ...claimsSection(ledger.rows),
    ...baseSection(ledger.rows),
    ...(ledger.changedFiles !== undefined ? [changedFilesMarkdown(ledger.changedFiles)] : []),
    totalsSection(ledger),
  ];
}

function textSections(ledger: Ledger, detail: Detail): string[] {
  return [nodesSection(ledger), patchSection(ledger, detail)].filter((section) => section !== "");
}

function joinSections(sections: readonly string[]): string {
  return `${sections.join("\n\n")}\n`;
}

function heading(ledger: Ledger): string {
  const { conclusion } = ledger;
  const icon = conclusion === null ? "⏳" : CONCLUSION_ICONS[conclusion.conclusion];
  const title = conclusion === null ? "running" : conclusion.title;
  const runtime = runtimeWords(ledger);
  const lines = [
    `## ${icon} evidence-gate: ${conclusionLabel(conclusion)} — ${escapeInline(title)}`,
    "",
    `Run ${codeSpan(ledger.runId, { inTable: false })} · ${ledger.mode}${runtime === null ? "" : ` · ${escapeInline(runtime)}`} · started ${escapeInline(ledger.startedAt)}${ledger.finishedAt === null ? "" : ` · finished ${escapeInline(ledger.finishedAt)}`}`,
  ];
  if (ledger.goal !== undefined) lines.push("", `**Goal:** ${escapeInline(goalWords(ledger.goal))}`);
  if (conclusion !== null) {
    lines.push(
      "",
      `**${conclusion.conclusion}** (outcome \`${conclusion.outcome}\`): ${escapeInline(conclusion.reason)}`,
    );
  }
  return lines.join("\n");
}

function planSection(ledger: Ledger): string {
  const { plan } = ledger;
  const answer = answerWords(plan.buildEvidence);
  const none = plan.nodes.length > 0 && hasNoBuildEvidence(plan);
  const lines = [
    "### Plan",
    "",
    none
      ? `**Build evidence: NONE** (\`${answer.kind}\`) — ${escapeInline(answer.words)}; ${NO_BUILD_EVIDENCE_WORDS}.`
      : `**Build evidence:** \`${answer.kind}\` — ${escapeInline(answer.words)}.`,
    "",
  ];
  if (plan.policy !== undefined) lines.push(policyLine(plan.policy), "");
  if (plan.nodes.length === 0) {
    lines.push(NO_PLAN_LINE);
  } else if (!none) {
    for (const sink of sinkEvidence(plan)) {
      const id = codeSpan(sink.nodeId, { inTable: false });
      switch (sink.kind) {
        case "command":
          lines.push(`- sink ${id}: ${codeSpan(shownCommand(sink.command), { inTable: false })}`);
          break;
        case "gate":
          lines.push(`- sink ${id}: a gate (a person's approval, not build evidence)`);
          break;
        case "none":
          lines.push(`- sink ${id}: no verify command — its PASS is the model's, about its own work`);
          break;
        default:
          unreachable(sink);
      }
    }
  }
  lines.push("", `**Tool ceiling:** ${escapeInline(plan.disclosure)}`, "", evidenceTreeLine(ledger));
  const removed = untrustedTextWords(plan.untrustedText);
  if (removed !== null) lines.push("", `**Untrusted text:** ${escapeInline(removed)}`);
  if (plan.fragments !== undefined && plan.fragments.length > 0) {
    lines.push("", "**Fragments spliced:**");
    for (const line of plan.fragments) lines.push(`- ${escapeInline(line)}`);
  }
  if (plan.warnings !== undefined && plan.warnings.length > 0) {
    lines.push("", "**Warnings:**");
    for (const warning of plan.warnings) lines.push(`- ${escapeInline(warning)}`);
  }
  if (plan.repaired !== undefined) {
    lines.push("", "**Repaired plan:** the planner's first graph was refused, and one repair call fixed it:");
    for (const refusal of plan.repaired.refusals) lines.push(`- ${escapeInline(refusal)}`);
  }
  return lines.join("\n");
}

/** Where the maintainers' policy file was read, and what it set that judges the run. */
function policyLine(policy: NonNullable<Ledger["plan"]["policy"]>): string {
  return `**Policy:** ${escapeInline(policy.source)} — ${escapeInline(policySettingsWords(policy))}.`;
}

/** Which tree was verified and whether it is the tree of the commit this check is posted on (SPEC §6). */
function evidenceTreeLine(ledger: Ledger): string {
  const tree = ledger.evidenceTree;
  const sinkTrees = ledger.rows.flatMap((row) =>
    row.sink && row.verify?.evidenceTree ? [{ nodeId: row.nodeId, tree: row.verify.evidenceTree }] : [],
  );
  if (new Set(sinkTrees.map((s) => s.tree)).size > 1) {
    const list = sinkTrees
      .map(
        (s) =>
          `${codeSpan(s.nodeId, { inTable: false })} ${codeSpan(s.tree.slice(0, 12), { inTable: false })}`,
      )
      .join(", ");
    return `**Evidence trees:** the sinks verified different trees (${list}) — no single tree passed every sink's verify.`;
  }
  if (tree === null) return "**Evidence tree:** none — no verify command ran.";
  const treeSpan = codeSpan(tree.slice(0, 12), { inTable: false });
  const commit = ledger.postedCommit ?? ledger.startingCommit;
  if (commit === null) {
    return `**Evidence tree:** ${treeSpan} — the starting commit is unknown, so this tree is not tied to a commit.`;
  }
  const which = `${escapeInline(commit.description)} (commit ${codeSpan(commit.sha.slice(0, 7), { inTable: false })})`;
  if (commit.tree === tree) return `**Evidence tree:** ${treeSpan} — the tree of ${which}.`;
  const patch =
    ledger.patch === undefined
      ? ""
      : ` The patch is ${codeSpan(ledger.patch.path, { inTable: false })} (${ledger.patch.bytes} bytes), previewed below.`;
  return `**Evidence tree:** ${treeSpan} — **not** the tree of ${which}: the verified files include changes that are not on that commit.${patch}`;
}

function ledgerTable(rows: readonly LedgerRow[], detail: Detail): string {
  if (rows.length === 0) return "### Ledger\n\nNo node ran.";
  const lines = [
    "### Ledger",
    "",
    "| node | verdict | session | cost | duration | denied | detail |",
    "| --- | --- | --- | ---: | ---: | ---: | --- |",
  ];
  for (const row of rows) {
    const verdict = escapeCell(verdictLabel(row));
    const cells = [
      codeSpan(nodeLabel(row), { inTable: true }),
      row.verdict === "FAIL" ? `**${verdict}**` : verdict,
      row.sessionId === null ? "-" : codeSpan(shortSession(row.sessionId), { inTable: true }),
      formatUsd(row.costUsd),
      formatDuration(row.durationMs),
      String(row.deniedToolCalls),
      escapeCell(clip(rowDetail(row), detail.cellChars)),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

function failedVerifyBlock(row: LedgerRow, verify: VerifyEvidence, detail: Detail): string {
  const lines = [
    `### ${row.verdict === "FAIL" ? "❌" : "⚠️"} Verify failed: ${codeSpan(nodeLabel(row), { inTable: false })}`,
    "",
    `- command: ${codeSpan(shownCommand(verify.command), { inTable: false })}`,
    `- result: ${escapeInline(verifyExitWords(verify))}, ${formatDuration(verify.durationMs)}`,
    `- cwd: ${codeSpan(verify.cwd, { inTable: false })}`,
  ];
  if (verify.evidenceTree !== null)
    lines.push(`- evidence tree: ${codeSpan(verify.evidenceTree, { inTable: false })}`);
  if (verify.reusedFrom !== undefined) {
    lines.push(
      `- result reused from ${codeSpan(verify.reusedFrom, { inTable: false })} (same tree, same command)`,
    );
  }
  const tail = lastLines(verify.outputTail, detail.tailLines);
  lines.push("", tail === "" ? "The command printed nothing." : `Output (tail):\n\n${fencedBlock(tail)}`);
  return lines.join("\n");
}

/**
 * The claims a node made that the engine's observation contradicts (issue 25 item 4): one line each, the
 * quote as escaped data. Empty when none: a truthful node adds nothing to the summary.
 */
function claimsSection(rows: readonly LedgerRow[]): string[] {
  const contradicted = contradictedClaims(rows);
  if (contradicted.length === 0) return [];
  const lines = [
    "### ⚠️ What a node claimed, and what the engine observed",
    "",
    "The verdicts above are the engine's observation; these claims in the nodes' replies disagree with it.",
    "",
  ];
  for (const { row, claim } of contradicted) {
    lines.push(
      `- ${codeSpan(nodeLabel(row), { inTable: false })} said “${escapeInline(claim.quote)}” — ${escapeInline(claim.contradiction ?? "")}`,
    );
  }
  return [lines.join("\n")];
}

/**
 * `verify-base` (issue 25 item 3; ADR 0017): each verified row's result beside the base's, with both
 * evidence trees. Empty when no row was compared. The verdicts above stay the head's: this section labels
 * them (a failure that fails on the base too is pre-existing, and still not green).
 */
function baseSection(rows: readonly LedgerRow[]): string[] {
  const compared = rows.flatMap((row) =>
    row.verify?.base !== undefined ? [{ row, verify: row.verify, base: row.verify.base }] : [],
  );
  if (compared.length === 0) return [];
  const lines = [
    "### The base beside the head",
    "",
    "The same verify command, run on the base commit in a worktree of its own. The verdicts above are the head's; the base only labels them.",
    "",
  ];
  for (const { row, verify, base } of compared) {
    const trees = [
      verify.evidenceTree !== null ? `head tree ${codeSpan(verify.evidenceTree, { inTable: false })}` : null,
      base.verify?.evidenceTree != null
        ? `base tree ${codeSpan(base.verify.evidenceTree, { inTable: false })}`
        : null,
    ].filter((part) => part !== null);
    lines.push(
      `- ${codeSpan(nodeLabel(row), { inTable: false })}: ${escapeInline(baseWords(base))}${trees.length > 0 ? ` (${trees.join(", ")})` : ""}`,
    );
  }
  return [lines.join("\n")];
}

function totalsSection(ledger: Ledger): string {
  const { totals } = ledger;
  return [
    "### Totals",
    "",
    ...(ledger.mode === "auto"
      ? [
          `- planning cost: ${formatUsdTotal(totals.planning)}${ledger.goalLoop === undefined ? "" : PLANNING_WITH_ASSESSOR}`,
        ]
      : []),
    `- node cost: ${formatUsdTotal(totals.nodes)}`,
    `- **total cost: ${formatUsdTotal(totals.total)}**${ledger.goalLoop === undefined ? "" : ` ${loopTotalsWords(ledger.goalLoop)}`}`,
    `- tokens: ${tokenWords(totals.tokens)}`,
  ].join("\n");
}

function nodesSection(ledger: Ledger): string {
  const { nodes } = ledger.plan;
  if (nodes.length === 0) return "";
  const lines = [
    `<details><summary>Plan: ${nodes.length} ${nodes.length === 1 ? "node" : "nodes"}</summary>`,
    "",
    "| node | type | depends on | allowed tools | sink |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const node of nodes) {
    const list = (items: readonly string[]): string =>
      items.length === 0 ? "-" : items.map((item) => codeSpan(item, { inTable: true })).join(", ");
    lines.push(
      `| ${codeSpan(node.id, { inTable: true })} | ${node.type ?? "agent"} | ${list(node.dependsOn)} | ${list(node.allowedTools)} | ${node.sink ? "yes" : ""} |`,
    );
  }
  lines.push("", "</details>");
  return lines.join("\n");
}

function lastLines(text: string, max: number | null): string {
  const trimmed = text.replace(/\r\n|\r/g, "\n").replace(/\n$/, "");
  if (max === null || trimmed === "") return trimmed;
  const lines = trimmed.split("\n");
  return lines.length <= max ? trimmed : ["…", ...lines.slice(-max)].join("\n");
}

function clip(text: string, max: number | null): string {
  if (max === null) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
