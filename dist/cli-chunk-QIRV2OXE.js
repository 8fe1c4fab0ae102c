#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  assessmentWords,
  baseWords,
  conclusionLabel,
  contradictedClaims,
  failedVerifications,
  formatDuration,
  formatUsd,
  formatUsdTotal,
  goalLoopTotal,
  isRecordedApprover,
  loopTotalsWords,
  nodeLabel,
  oneLineCut,
  rowDetail,
  runtimeWords,
  shortSession,
  shownCommand,
  tokenWords,
  verdictLabel,
  verifyExitWords
} from "./cli-chunk-65TFX77S.js";
import {
  MAX_VERIFY_REPEAT,
  NOTHING_SPENT,
  RECEIPT_MAX_NAMES,
  external_exports
} from "./cli-chunk-NJKI2YPK.js";
import {
  escapeMarkdownChars,
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/ledger/byte-budget.ts
var CHECK_RUN_TEXT_MAX_BYTES = 65535;
var LINE_BREAK_LOOKBACK_BYTES = 4096;
var encoder = new TextEncoder();
var decoder = new TextDecoder("utf-8", { fatal: true });
function utf8Bytes(text2) {
  return encoder.encode(text2).length;
}
function truncateUtf8(text2, maxBytes, notice) {
  const bytes = encoder.encode(text2);
  if (bytes.length <= maxBytes) return text2;
  const tail = `

${notice}`;
  const tailBytes = utf8Bytes(tail);
  if (tailBytes > maxBytes) return decodePrefix(encoder.encode(notice), maxBytes, { preferLineBreak: false });
  let budget = maxBytes - tailBytes;
  for (; ; ) {
    const kept = decodePrefix(bytes, budget, { preferLineBreak: true });
    const closers = closersFor(kept);
    const used = utf8Bytes(kept) + utf8Bytes(closers);
    if (used + tailBytes <= maxBytes) return `${kept}${closers}${tail}`;
    budget -= used + tailBytes - maxBytes;
  }
}
function decodePrefix(bytes, budget, options) {
  let end = Math.max(0, Math.min(budget, bytes.length));
  while (end > 0 && end < bytes.length && (bytes[end] & 192) === 128) end -= 1;
  if (options.preferLineBreak) {
    const floor = Math.max(0, end - LINE_BREAK_LOOKBACK_BYTES);
    for (let i = end - 1; i >= floor; i -= 1) {
      if (bytes[i] === 10) {
        end = i;
        break;
      }
    }
  }
  return decoder.decode(bytes.subarray(0, end));
}
function closersFor(markdown) {
  let fence = null;
  let openDetails = 0;
  for (const line2 of markdown.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line2);
    if (fence !== null) {
      if (marker !== null && marker[1][0] === fence.char && marker[1].length >= fence.length && marker[2].trim() === "") {
        fence = null;
      }
      continue;
    }
    if (marker !== null && !(marker[1][0] === "`" && marker[2].includes("`"))) {
      fence = { char: marker[1][0], length: marker[1].length };
      continue;
    }
    openDetails += (line2.match(/<details\b/gi) ?? []).length;
    openDetails -= (line2.match(/<\/details>/gi) ?? []).length;
  }
  let closers = fence === null ? "" : `
${fence.char.repeat(fence.length)}`;
  for (let i = 0; i < openDetails; i += 1) closers += "\n</details>";
  return closers;
}

// src/ledger/ledger.ts
var PLANNING_WITH_ASSESSOR = " \u2014 the planner and assessor calls";
function computeTotals(rows, planningCalls) {
  const nodeCalls = rows.filter((row) => row.verdict !== "SKIPPED" && !spawnedNothing(row)).map((row) => ({ costUsd: row.costUsd, usage: row.usage }));
  const planning = sumUsd(planningCalls);
  const nodes = sumUsd(nodeCalls);
  return {
    planning,
    nodes,
    total: addUsd(planning, nodes),
    tokens: sumTokens([...planningCalls, ...nodeCalls])
  };
}
function loopTotals(cycles, assessorCalls) {
  const assessors = sumUsd(assessorCalls);
  const planning = cycles.reduce((sum, t) => addUsd(sum, t.planning), assessors);
  const nodes = cycles.reduce((sum, t) => addUsd(sum, t.nodes), sumUsd([]));
  const assessorTokens = sumTokens(assessorCalls);
  const tokens = cycles.reduce(
    (sum, t) => ({
      inputTokens: sum.inputTokens + t.tokens.inputTokens,
      outputTokens: sum.outputTokens + t.tokens.outputTokens,
      cacheReadInputTokens: sum.cacheReadInputTokens + t.tokens.cacheReadInputTokens,
      cacheCreationInputTokens: sum.cacheCreationInputTokens + t.tokens.cacheCreationInputTokens,
      callsWithoutUsage: sum.callsWithoutUsage + t.tokens.callsWithoutUsage
    }),
    assessorTokens
  );
  return { planning, nodes, total: addUsd(planning, nodes), tokens };
}
function spawnedNothing(row) {
  return row.sessionId === NOTHING_SPENT.sessionId && row.costUsd === NOTHING_SPENT.costUsd && row.usage === NOTHING_SPENT.usage;
}
function sumUsd(calls) {
  let knownUsd = 0;
  let unknownCalls = 0;
  for (const call of calls) {
    if (call.costUsd === null || !Number.isFinite(call.costUsd)) unknownCalls += 1;
    else knownUsd += call.costUsd;
  }
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}
function addUsd(a, b) {
  const knownUsd = knownPart(a) + knownPart(b);
  const unknownCalls = unknownPart(a) + unknownPart(b);
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}
function knownPart(total) {
  return total.kind === "known" ? total.usd : total.knownUsd;
}
function unknownPart(total) {
  return total.kind === "known" ? 0 : total.unknownCalls;
}
function sumTokens(calls) {
  const totals = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    callsWithoutUsage: 0
  };
  for (const { usage } of calls) {
    if (usage === null) {
      totals.callsWithoutUsage += 1;
      continue;
    }
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.cacheReadInputTokens += usage.cacheReadInputTokens ?? 0;
    totals.cacheCreationInputTokens += usage.cacheCreationInputTokens ?? 0;
  }
  return totals;
}
function policySettingsWords(policy) {
  const parts = [`require-evidence: ${policy.requireEvidence}`];
  if (policy.requireTests === true) parts.push("require-tests: true");
  if (policy.verifyRepeat !== void 0 && policy.verifyRepeat > 1)
    parts.push(`verify-repeat: ${policy.verifyRepeat}`);
  if (policy.verifyBase === true) parts.push("verify-base: true");
  if (policy.testReports !== void 0 && policy.testReports.length > 0)
    parts.push(`test-reports: ${policy.testReports.join(", ")}`);
  return parts.join(", ");
}

// src/ledger/markdown-syntax.ts
function escapeCell(text2) {
  return escapeMarkdownChars(text2).replace(/\r\n|\r|\n/g, "<br>");
}
function escapeInline(text2) {
  return escapeMarkdownChars(text2).replace(/\r\n|\r|\n/g, " ");
}
function codeSpan(text2, options) {
  const flat2 = text2.replace(/\r\n|\r|\n/g, " ");
  const ticks = "`".repeat(longestRun(flat2, "`") + 1);
  const pad = flat2.startsWith("`") || flat2.endsWith("`") || flat2 === "" ? " " : "";
  const body = options.inTable ? flat2.replace(/\|/g, "\\|") : flat2;
  return `${ticks}${pad}${body}${pad}${ticks}`;
}
function fencedBlock(content, info = "") {
  const fence = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
  const body = content.endsWith("\n") ? content : `${content}
`;
  return `${fence}${info}
${body}${fence}`;
}
function longestRun(text2, ch) {
  let longest = 0;
  let current = 0;
  for (const c of text2) {
    current = c === ch ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}

// src/ledger/plan-words.ts
var NO_BUILD_EVIDENCE_WORDS = "every verdict below is the model's, about its own work";
function answerWords(answer) {
  switch (answer.kind) {
    case "attached":
      return {
        kind: answer.kind,
        words: answer.declaredBy === "policy" ? "the verify command comes from the maintainers' policy file (.github/evidence-gate.yml)" : "the verify command comes from the workflow input / CLI flag"
      };
    case "declared":
      return {
        kind: answer.kind,
        words: `accept-no-build-evidence was given although ${answer.signals.map((signal) => `${signal.file} (${signal.ecosystem})`).join(", ")} ${answer.signals.length === 1 ? "says" : "say"} this repository builds`
      };
    case "none-detected":
      return { kind: answer.kind, words: "no build signal was detected and no verify command was given" };
    case "graph":
      return {
        kind: answer.kind,
        words: answer.verifiedSinks.length === 0 ? "hand-written graph: no sink has a success_check.verify or completion.verify command" : `hand-written graph: the engine runs the graph's own verify commands (sinks ${answer.verifiedSinks.map((s) => `"${s}"`).join(", ")})${answer.unverifiedSinks.length > 0 ? `; sinks ${answer.unverifiedSinks.map((s) => `"${s}"`).join(", ")} have none` : ""}`
      };
    default:
      return unreachable(answer);
  }
}
function sinkEvidence(plan) {
  const commands = new Map(plan.sinkCommands.map((entry) => [entry.nodeId, entry.command]));
  const sinks = plan.nodes.filter((node) => node.sink).map((node) => {
    const command = commands.get(node.id);
    if (command !== void 0) return { kind: "command", nodeId: node.id, command };
    return node.type === "gate" ? { kind: "gate", nodeId: node.id } : { kind: "none", nodeId: node.id };
  });
  const listed = new Set(sinks.map((sink) => sink.nodeId));
  for (const entry of plan.sinkCommands) {
    if (!listed.has(entry.nodeId))
      sinks.push({ kind: "command", nodeId: entry.nodeId, command: entry.command });
  }
  return sinks;
}
var NO_PLAN_LINE = "no plan ran: nothing was built, tested or verified";
function hasNoBuildEvidence(plan) {
  return !sinkEvidence(plan).some((sink) => sink.kind === "command");
}
var SOURCE_NAMES = {
  goal: "the goal",
  "pr-title": "PR title",
  "pr-body": "PR body",
  comment: "the comment that started the run"
};
var counted = (n, one, many) => n === 0 ? [] : [`${n} ${n === 1 ? one : many}`];
function untrustedTextWords(removals) {
  if (removals === void 0 || removals.length === 0) return null;
  const parts = removals.map((r) => {
    const what = [
      ...counted(r.hiddenChars, "hidden character", "hidden characters"),
      ...counted(r.htmlComments, "HTML comment", "HTML comments"),
      ...counted(r.hiddenHtml, "hidden HTML element", "hidden HTML elements"),
      ...counted(r.altTexts, "alternative text", "alternative texts"),
      ...counted(r.omittedChars, "visible character cut to fit", "visible characters cut to fit")
    ];
    return `${SOURCE_NAMES[r.source] ?? r.source}: ${what.join(", ")}`;
  });
  return `${parts.join("; ")} \u2014 removed before the planner read them (text nobody sees on the page, and what the prompt's bound left out).`;
}
var GOAL_SHOWN_CHARS = 500;
function goalWords(goal) {
  const points = Array.from(goal.replace(/\s+/g, " ").trim());
  if (points.length <= GOAL_SHOWN_CHARS) return points.join("");
  const left = points.length - GOAL_SHOWN_CHARS;
  return `${points.slice(0, GOAL_SHOWN_CHARS).join("")}\u2026 (${left} more characters; the whole goal is in ledger.json)`;
}

// src/ledger/render-changed-files.ts
var CHANGED_FILES_SHOWN = 30;
function countWords(record) {
  const parts = ["added", "modified", "deleted", "renamed"].filter((status) => record.counts[status] > 0).map((status) => `${record.counts[status]} ${status}`);
  const files = `${record.total} ${record.total === 1 ? "file" : "files"} changed`;
  return parts.length === 0 ? files : `${files}: ${parts.join(", ")}`;
}
function shownFiles(record) {
  const flags = /* @__PURE__ */ new Map();
  for (const change of record.verifyDefinition) {
    flags.set(change.path, [...flags.get(change.path) ?? [], change.detail]);
  }
  const byPath = new Map(record.files.map((file) => [file.path, file]));
  const shownOf = (path, file, flagged2) => ({
    path,
    ...file !== void 0 ? { status: file.status } : {},
    ...file?.from !== void 0 ? { from: file.from } : {},
    flagged: flagged2
  });
  const flagged = [...flags.keys()].sort().map((path) => shownOf(path, byPath.get(path), flags.get(path).join("; ")));
  const others = record.files.filter((file) => !flags.has(file.path)).map((f) => shownOf(f.path, f, ""));
  const shown = [...flagged, ...others].slice(0, CHANGED_FILES_SHOWN);
  return { shown, more: Math.max(0, record.total - shown.length) };
}
function flaggedWords(record) {
  const n = record.flaggedTotal;
  if (n === 0) return "";
  return `${n} ${n === 1 ? "change touches" : "changes touch"} what the verify command runs`;
}
function changedFilesText(record) {
  if (record === void 0) return [];
  const flagged = flaggedWords(record);
  const lines = [`CHANGED FILES: ${countWords(record)}${flagged === "" ? "" : ` \u2014 ${flagged} (marked !)`}`];
  const { shown, more } = shownFiles(record);
  for (const file of shown) {
    const mark = file.flagged === "" ? " " : "!";
    const from = file.from !== void 0 ? ` (from ${oneLine(file.from)})` : "";
    const what = file.flagged === "" ? "" : ` \u2014 ${oneLine(file.flagged)}`;
    lines.push(`  ${mark} ${(file.status ?? "").padEnd(8)}  ${oneLine(file.path)}${from}${what}`.trimEnd());
  }
  if (more > 0) lines.push(`    \u2026 and ${more} more`);
  return lines;
}
function changedFilesMarkdown(record) {
  if (record === void 0) return "";
  const flagged = flaggedWords(record);
  const lines = [
    "### Changed files",
    "",
    `${escapeInline(countWords(record))}.${flagged === "" ? "" : ` **${escapeInline(flagged)}** (marked \u26A0\uFE0F).`}`,
    ""
  ];
  const { shown, more } = shownFiles(record);
  for (const file of shown) {
    const mark = file.flagged === "" ? "" : "\u26A0\uFE0F ";
    const from = file.from !== void 0 ? ` from ${codeSpan(file.from, { inTable: false })}` : "";
    const change = file.status === void 0 ? "" : ` (${file.status}${from})`;
    const what = file.flagged === "" ? "" : ` \u2014 ${escapeInline(file.flagged)}`;
    lines.push(`- ${mark}${codeSpan(file.path, { inTable: false })}${change}${what}`);
  }
  if (more > 0) lines.push(`- \u2026 and ${more} more`);
  return lines.join("\n");
}
function oneLine(text2) {
  return text2.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}

// src/ledger/render-goal-loop.ts
var CONCLUSION_ICONS = {
  success: "\u2705",
  neutral: "\u26AA",
  action_required: "\u26A0\uFE0F",
  failure: "\u274C",
  cancelled: "\u23F9\uFE0F",
  timed_out: "\u23F1\uFE0F"
};
function goalLoopMarkdown(loop, lastRunId, detail) {
  const n = loop.cycles.length;
  const lines = [
    `### Goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} of at most ${loop.maxCycles}`,
    "",
    `Stopped: ${escapeInline(loop.stoppedBecause)}. The conclusion above is the last run's; the assessor's verdict never turns a failed run into a pass. Whole goal: **${escapeInline(formatUsdTotal(goalLoopTotal(loop)))}**.`
  ];
  for (const cycle of loop.cycles) {
    const icon = cycle.conclusion === null ? "\u23F3" : CONCLUSION_ICONS[cycle.conclusion.conclusion];
    const words = cycle.conclusion === null ? "no conclusion" : `${cycle.conclusion.conclusion} \u2014 ${escapeInline(cycle.conclusion.title)}`;
    const last = cycle.runId === lastRunId ? " (this run, in full below)" : "";
    lines.push(
      "",
      `#### Cycle ${cycle.cycle}/${loop.maxCycles}: ${icon} ${words}`,
      "",
      `Run ${codeSpan(cycle.runId, { inTable: false })}${last}`
    );
    if (cycle.remainingIn !== void 0) {
      lines.push(
        "",
        `**Remaining, fed into this cycle:** ${escapeInline(oneLineCut(cycle.remainingIn, detail.cycleWordsChars))}`
      );
    }
    lines.push("", ...cycleTable(cycle.rows, detail));
    lines.push(
      "",
      `**Assessor:** ${escapeInline(assessmentWords(cycle.assessment, detail.cycleWordsChars))}`,
      "",
      `**Run cost:** ${escapeInline(formatUsdTotal(cycle.total))}`
    );
  }
  return lines.join("\n");
}
function cycleTable(rows, detail) {
  if (rows.length === 0) return ["No node ran."];
  const shown = detail.cycleRows === null ? rows : rows.slice(0, detail.cycleRows);
  const lines = ["| node | verdict | cost | duration | detail |", "| --- | --- | ---: | ---: | --- |"];
  for (const row of shown) {
    const cells = [
      codeSpan(row.node, { inTable: true }),
      row.verdict.startsWith("FAIL") ? `**${escapeCell(row.verdict)}**` : escapeCell(row.verdict),
      formatUsd(row.costUsd),
      formatDuration(row.durationMs),
      escapeCell(oneLineCut(row.detail, detail.cellChars))
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  if (shown.length < rows.length) lines.push("", `\u2026 ${rows.length - shown.length} more rows not shown.`);
  return lines;
}
var CYCLE_WORDS_MAX_CHARS = 300;
function goalLoopText(loop, lastRunId) {
  const n = loop.cycles.length;
  const out = [
    `Goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} of at most ${loop.maxCycles} \u2014 stopped: ${flat(loop.stoppedBecause)}; whole goal ${formatUsdTotal(goalLoopTotal(loop))}; the conclusion is the last run's`
  ];
  for (const cycle of loop.cycles) {
    const c = cycle.conclusion;
    const words = c === null ? "no conclusion" : `${c.conclusion} \u2014 ${flat(c.title)}`;
    const last = cycle.runId === lastRunId ? " (this run, below)" : "";
    out.push(`  Cycle ${cycle.cycle}/${loop.maxCycles}: ${words} \u2014 run ${cycle.runId}${last}`);
    if (cycle.remainingIn !== void 0) {
      out.push(`    remaining fed in: ${oneLineCut(cycle.remainingIn, CYCLE_WORDS_MAX_CHARS)}`);
    }
    for (const row of cycle.rows) {
      out.push(
        `    ${flat(row.node)}  ${row.verdict}  ${formatUsd(row.costUsd)}  ${formatDuration(row.durationMs)}${row.detail === "" ? "" : `  ${flat(row.detail)}`}`
      );
    }
    if (cycle.rows.length === 0) out.push("    (no node ran)");
    out.push(`    assessor: ${assessmentWords(cycle.assessment, CYCLE_WORDS_MAX_CHARS)}`);
    out.push(`    run cost: ${formatUsdTotal(cycle.total)}`);
  }
  return out;
}
function flat(text2) {
  return text2.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}

// src/ledger/render-patch.ts
function patchSection(ledger, detail) {
  const { patch } = ledger;
  if (patch === void 0) return "";
  const where = `${codeSpan(patch.path, { inTable: false })} (${patch.bytes} bytes)`;
  const lines = [
    "### Patch",
    "",
    // `mode: verify` runs no node: the changes were in the working tree before the run (issue 26).
    ledger.mode === "verify" ? `The working tree the verify command ran on holds changes that are not on the posted commit: ${where}.` : `The nodes changed files that are not on the posted commit: ${where}.`
  ];
  if (patch.holdsSecret === true) {
    lines.push(
      "",
      "**The patch holds a known secret value** (the GitHub token or the model credential). The preview shows it as `***`; the patch file in the run directory holds it as the nodes wrote it. Remove it before you apply or share the patch."
    );
  }
  const preview = boundedPreview(patch.preview, detail);
  if (preview.text !== "") {
    const shown = preview.cut ? `Preview (first ${preview.lines} lines)` : "Preview";
    lines.push(
      "",
      `<details><summary>${shown}</summary>`,
      "",
      fencedBlock(preview.text, "diff"),
      "",
      "</details>"
    );
  }
  return lines.join("\n");
}
function boundedPreview(preview, detail) {
  const all = preview.replace(/\r\n|\r/g, "\n").replace(/\n$/, "").split("\n");
  const kept = [];
  let bytes = 0;
  for (const line2 of all.slice(0, detail.patchPreviewLines)) {
    bytes += utf8Bytes(line2) + 1;
    if (bytes > detail.patchPreviewBytes) break;
    kept.push(line2);
  }
  const text2 = kept.join("\n");
  return { text: text2, lines: kept.length, cut: kept.length < all.length };
}

// src/ledger/render-markdown.ts
var CHECK_RUN_TITLE_MAX_CHARS = 255;
var TRIMMED_NOTICE = "\u2026 trimmed; full ledger in the job summary / artifact";
var FULL = {
  cellChars: null,
  tailLines: null,
  patchPreviewLines: 200,
  patchPreviewBytes: 16384,
  cycleRows: null,
  cycleWordsChars: 1e3
};
var COMPACT = {
  cellChars: 160,
  tailLines: 40,
  patchPreviewLines: 40,
  patchPreviewBytes: 4096,
  cycleRows: 10,
  cycleWordsChars: 300
};
function renderLedgerMarkdown(ledger) {
  return joinSections([...summarySections(ledger, FULL), ...textSections(ledger, FULL)]);
}
function renderCheckRunOutput(ledger, options = {}) {
  const notice = trimmedNotice(options);
  const withinLimit = (render) => {
    const full = render(FULL);
    if (utf8Bytes(full) <= CHECK_RUN_TEXT_MAX_BYTES) return full;
    return truncateUtf8(render(COMPACT), CHECK_RUN_TEXT_MAX_BYTES, notice);
  };
  return {
    title: clampTitle(ledger.conclusion?.title ?? `Running: ${ledger.rows.length} executions so far`),
    summary: withinLimit((detail) => joinSections(summarySections(ledger, detail))),
    text: withinLimit((detail) => joinSections(textSections(ledger, detail)))
  };
}
function clampTitle(title) {
  const flat2 = title.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
  if (flat2.length <= CHECK_RUN_TITLE_MAX_CHARS) return flat2;
  let cut = CHECK_RUN_TITLE_MAX_CHARS - 1;
  const last = flat2.charCodeAt(cut - 1);
  if (last >= 55296 && last <= 56319) cut -= 1;
  return `${flat2.slice(0, cut)}\u2026`;
}
function trimmedNotice(links = {}) {
  const href = (url) => url === void 0 || !/^https?:\/\/\S+$/.test(url) ? null : url.replace(/[()<>]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  let notice = `**${TRIMMED_NOTICE}**`;
  const summary = href(links.detailsUrl);
  if (summary !== null) notice += ` \u2014 [open the full ledger](${summary})`;
  const artifact = links.ledgerArtifact;
  if (artifact !== void 0) {
    const name = codeSpan(artifact.name, { inTable: false });
    const url = href(artifact.url);
    notice += url === null ? ` \xB7 artifact ${name}` : ` \xB7 artifact [${name}](${url})`;
  }
  return notice;
}
function summarySections(ledger, detail) {
  return [
    heading(ledger),
    ...ledger.goalLoop !== void 0 ? [goalLoopMarkdown(ledger.goalLoop, ledger.runId, detail)] : [],
    planSection(ledger),
    ledgerTable(ledger.rows, detail),
    ...failedVerifications(ledger.rows).map(({ row, verify }) => failedVerifyBlock(row, verify, detail)),
    ...claimsSection(ledger.rows),
    ...baseSection(ledger.rows),
    ...ledger.changedFiles !== void 0 ? [changedFilesMarkdown(ledger.changedFiles)] : [],
    totalsSection(ledger)
  ];
}
function textSections(ledger, detail) {
  return [nodesSection(ledger), patchSection(ledger, detail)].filter((section) => section !== "");
}
function joinSections(sections) {
  return `${sections.join("\n\n")}
`;
}
function heading(ledger) {
  const { conclusion } = ledger;
  const icon = conclusion === null ? "\u23F3" : CONCLUSION_ICONS[conclusion.conclusion];
  const title = conclusion === null ? "running" : conclusion.title;
  const runtime = runtimeWords(ledger);
  const lines = [
    `## ${icon} evidence-gate: ${conclusionLabel(conclusion)} \u2014 ${escapeInline(title)}`,
    "",
    `Run ${codeSpan(ledger.runId, { inTable: false })} \xB7 ${ledger.mode}${runtime === null ? "" : ` \xB7 ${escapeInline(runtime)}`} \xB7 started ${escapeInline(ledger.startedAt)}${ledger.finishedAt === null ? "" : ` \xB7 finished ${escapeInline(ledger.finishedAt)}`}`
  ];
  if (ledger.goal !== void 0) lines.push("", `**Goal:** ${escapeInline(goalWords(ledger.goal))}`);
  if (conclusion !== null) {
    lines.push(
      "",
      `**${conclusion.conclusion}** (outcome \`${conclusion.outcome}\`): ${escapeInline(conclusion.reason)}`
    );
  }
  return lines.join("\n");
}
function planSection(ledger) {
  const { plan } = ledger;
  const answer = answerWords(plan.buildEvidence);
  const none = plan.nodes.length > 0 && hasNoBuildEvidence(plan);
  const lines = [
    "### Plan",
    "",
    none ? `**Build evidence: NONE** (\`${answer.kind}\`) \u2014 ${escapeInline(answer.words)}; ${NO_BUILD_EVIDENCE_WORDS}.` : `**Build evidence:** \`${answer.kind}\` \u2014 ${escapeInline(answer.words)}.`,
    ""
  ];
  if (plan.policy !== void 0) lines.push(policyLine(plan.policy), "");
  if (plan.nodes.length === 0) {
    lines.push(NO_PLAN_LINE);
  } else if (!none) {
    for (const sink of sinkEvidence(plan)) {
      const id2 = codeSpan(sink.nodeId, { inTable: false });
      switch (sink.kind) {
        case "command":
          lines.push(`- sink ${id2}: ${codeSpan(shownCommand(sink.command), { inTable: false })}`);
          break;
        case "gate":
          lines.push(`- sink ${id2}: a gate (a person's approval, not build evidence)`);
          break;
        case "none":
          lines.push(`- sink ${id2}: no verify command \u2014 its PASS is the model's, about its own work`);
          break;
        default:
          unreachable(sink);
      }
    }
  }
  lines.push("", `**Tool ceiling:** ${escapeInline(plan.disclosure)}`, "", evidenceTreeLine(ledger));
  const removed = untrustedTextWords(plan.untrustedText);
  if (removed !== null) lines.push("", `**Untrusted text:** ${escapeInline(removed)}`);
  if (plan.fragments !== void 0 && plan.fragments.length > 0) {
    lines.push("", "**Fragments spliced:**");
    for (const line2 of plan.fragments) lines.push(`- ${escapeInline(line2)}`);
  }
  if (plan.warnings !== void 0 && plan.warnings.length > 0) {
    lines.push("", "**Warnings:**");
    for (const warning of plan.warnings) lines.push(`- ${escapeInline(warning)}`);
  }
  if (plan.repaired !== void 0) {
    lines.push("", "**Repaired plan:** the planner's first graph was refused, and one repair call fixed it:");
    for (const refusal of plan.repaired.refusals) lines.push(`- ${escapeInline(refusal)}`);
  }
  return lines.join("\n");
}
function policyLine(policy) {
  return `**Policy:** ${escapeInline(policy.source)} \u2014 ${escapeInline(policySettingsWords(policy))}.`;
}
function evidenceTreeLine(ledger) {
  const tree = ledger.evidenceTree;
  const sinkTrees = ledger.rows.flatMap(
    (row) => row.sink && row.verify?.evidenceTree ? [{ nodeId: row.nodeId, tree: row.verify.evidenceTree }] : []
  );
  if (new Set(sinkTrees.map((s) => s.tree)).size > 1) {
    const list = sinkTrees.map(
      (s) => `${codeSpan(s.nodeId, { inTable: false })} ${codeSpan(s.tree.slice(0, 12), { inTable: false })}`
    ).join(", ");
    return `**Evidence trees:** the sinks verified different trees (${list}) \u2014 no single tree passed every sink's verify.`;
  }
  if (tree === null) return "**Evidence tree:** none \u2014 no verify command ran.";
  const treeSpan = codeSpan(tree.slice(0, 12), { inTable: false });
  const commit = ledger.postedCommit ?? ledger.startingCommit;
  if (commit === null) {
    return `**Evidence tree:** ${treeSpan} \u2014 the starting commit is unknown, so this tree is not tied to a commit.`;
  }
  const which = `${escapeInline(commit.description)} (commit ${codeSpan(commit.sha.slice(0, 7), { inTable: false })})`;
  if (commit.tree === tree) return `**Evidence tree:** ${treeSpan} \u2014 the tree of ${which}.`;
  const patch = ledger.patch === void 0 ? "" : ` The patch is ${codeSpan(ledger.patch.path, { inTable: false })} (${ledger.patch.bytes} bytes), previewed below.`;
  return `**Evidence tree:** ${treeSpan} \u2014 **not** the tree of ${which}: the verified files include changes that are not on that commit.${patch}`;
}
function ledgerTable(rows, detail) {
  if (rows.length === 0) return "### Ledger\n\nNo node ran.";
  const lines = [
    "### Ledger",
    "",
    "| node | verdict | session | cost | duration | denied | detail |",
    "| --- | --- | --- | ---: | ---: | ---: | --- |"
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
      escapeCell(clip(rowDetail(row), detail.cellChars))
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
function failedVerifyBlock(row, verify, detail) {
  const lines = [
    `### ${row.verdict === "FAIL" ? "\u274C" : "\u26A0\uFE0F"} Verify failed: ${codeSpan(nodeLabel(row), { inTable: false })}`,
    "",
    `- command: ${codeSpan(shownCommand(verify.command), { inTable: false })}`,
    `- result: ${escapeInline(verifyExitWords(verify))}, ${formatDuration(verify.durationMs)}`,
    `- cwd: ${codeSpan(verify.cwd, { inTable: false })}`
  ];
  if (verify.evidenceTree !== null)
    lines.push(`- evidence tree: ${codeSpan(verify.evidenceTree, { inTable: false })}`);
  if (verify.reusedFrom !== void 0) {
    lines.push(
      `- result reused from ${codeSpan(verify.reusedFrom, { inTable: false })} (same tree, same command)`
    );
  }
  const tail = lastLines(verify.outputTail, detail.tailLines);
  lines.push("", tail === "" ? "The command printed nothing." : `Output (tail):

${fencedBlock(tail)}`);
  return lines.join("\n");
}
function claimsSection(rows) {
  const contradicted = contradictedClaims(rows);
  if (contradicted.length === 0) return [];
  const lines = [
    "### \u26A0\uFE0F What a node claimed, and what the engine observed",
    "",
    "The verdicts above are the engine's observation; these claims in the nodes' replies disagree with it.",
    ""
  ];
  for (const { row, claim } of contradicted) {
    lines.push(
      `- ${codeSpan(nodeLabel(row), { inTable: false })} said \u201C${escapeInline(claim.quote)}\u201D \u2014 ${escapeInline(claim.contradiction ?? "")}`
    );
  }
  return [lines.join("\n")];
}
function baseSection(rows) {
  const compared = rows.flatMap(
    (row) => row.verify?.base !== void 0 ? [{ row, verify: row.verify, base: row.verify.base }] : []
  );
  if (compared.length === 0) return [];
  const lines = [
    "### The base beside the head",
    "",
    "The same verify command, run on the base commit in a worktree of its own. The verdicts above are the head's; the base only labels them.",
    ""
  ];
  for (const { row, verify, base } of compared) {
    const trees = [
      verify.evidenceTree !== null ? `head tree ${codeSpan(verify.evidenceTree, { inTable: false })}` : null,
      base.verify?.evidenceTree != null ? `base tree ${codeSpan(base.verify.evidenceTree, { inTable: false })}` : null
    ].filter((part) => part !== null);
    lines.push(
      `- ${codeSpan(nodeLabel(row), { inTable: false })}: ${escapeInline(baseWords(base))}${trees.length > 0 ? ` (${trees.join(", ")})` : ""}`
    );
  }
  return [lines.join("\n")];
}
function totalsSection(ledger) {
  const { totals } = ledger;
  return [
    "### Totals",
    "",
    ...ledger.mode === "auto" ? [
      `- planning cost: ${formatUsdTotal(totals.planning)}${ledger.goalLoop === void 0 ? "" : PLANNING_WITH_ASSESSOR}`
    ] : [],
    `- node cost: ${formatUsdTotal(totals.nodes)}`,
    `- **total cost: ${formatUsdTotal(totals.total)}**${ledger.goalLoop === void 0 ? "" : ` ${loopTotalsWords(ledger.goalLoop)}`}`,
    `- tokens: ${tokenWords(totals.tokens)}`
  ].join("\n");
}
function nodesSection(ledger) {
  const { nodes } = ledger.plan;
  if (nodes.length === 0) return "";
  const lines = [
    `<details><summary>Plan: ${nodes.length} ${nodes.length === 1 ? "node" : "nodes"}</summary>`,
    "",
    "| node | type | depends on | allowed tools | sink |",
    "| --- | --- | --- | --- | --- |"
  ];
  for (const node of nodes) {
    const list = (items) => items.length === 0 ? "-" : items.map((item) => codeSpan(item, { inTable: true })).join(", ");
    lines.push(
      `| ${codeSpan(node.id, { inTable: true })} | ${node.type ?? "agent"} | ${list(node.dependsOn)} | ${list(node.allowedTools)} | ${node.sink ? "yes" : ""} |`
    );
  }
  lines.push("", "</details>");
  return lines.join("\n");
}
function lastLines(text2, max) {
  const trimmed = text2.replace(/\r\n|\r/g, "\n").replace(/\n$/, "");
  if (max === null || trimmed === "") return trimmed;
  const lines = trimmed.split("\n");
  return lines.length <= max ? trimmed : ["\u2026", ...lines.slice(-max)].join("\n");
}
function clip(text2, max) {
  if (max === null) return text2;
  const chars = [...text2];
  return chars.length <= max ? text2 : `${chars.slice(0, max - 1).join("")}\u2026`;
}

// src/ledger/render-json.ts
function renderLedgerJson(ledger) {
  return `${JSON.stringify(ledger, null, 2)}
`;
}
function parseLedgerJson(text2) {
  let data;
  try {
    data = JSON.parse(text2);
  } catch (error) {
    return { ok: false, issues: [`not JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const parsed = LedgerJsonSchema.safeParse(data);
  if (parsed.success) return { ok: true, ledger: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map(
      (issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`
    )
  };
}
var MAX_ID = 256;
var MAX_LINE = 4096;
var LEDGER_TEXT_MAX_CHARS = 65536;
var MAX_TEXT = LEDGER_TEXT_MAX_CHARS;
function fitLedgerText(text2) {
  if (text2.length <= LEDGER_TEXT_MAX_CHARS) return text2;
  const reserve = ` \u2026 [cut: ${text2.length} more characters]`.length;
  let head = text2.slice(0, LEDGER_TEXT_MAX_CHARS - reserve);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head} \u2026 [cut: ${text2.length - head.length} more characters]`;
}
var MAX_LIST = 1e4;
var id = external_exports.string().min(1).max(MAX_ID);
var line = external_exports.string().max(MAX_LINE);
var text = external_exports.string().max(MAX_TEXT);
var usd = external_exports.number().nonnegative();
var count = external_exports.number().int().nonnegative();
var timestamp = external_exports.string().max(64);
var TokenUsageSchema = external_exports.strictObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadInputTokens: count.optional(),
  cacheCreationInputTokens: count.optional()
});
var TestReceiptSchema = external_exports.discriminatedUnion("kind", [
  external_exports.strictObject({
    kind: external_exports.literal("counts"),
    runners: external_exports.array(line).min(1).max(100),
    source: external_exports.enum(["output", "reports"]),
    files: external_exports.array(line).max(10).optional(),
    ran: count,
    passed: count,
    failed: count,
    skipped: count,
    failedNames: external_exports.array(text).max(RECEIPT_MAX_NAMES),
    failedNamesComplete: external_exports.boolean()
  }),
  external_exports.strictObject({ kind: external_exports.literal("none"), reason: text })
]);
var VerifyRunSchema = external_exports.strictObject({
  command: line,
  cwd: line,
  exitCode: external_exports.number().int().nullable(),
  expectExit: external_exports.number().int(),
  outcome: external_exports.enum(["passed", "failed", "timed_out", "spawn_failed"]),
  durationMs: count,
  outputTail: text,
  evidenceTree: id.nullable(),
  reusedFrom: id.optional(),
  ignoredFiles: external_exports.enum(["unchanged", "changed", "unknown"]).optional(),
  ignoredFilesChanges: external_exports.strictObject({
    total: count.nullable(),
    examples: external_exports.array(external_exports.strictObject({ path: line, change: external_exports.enum(["modified", "added", "removed"]) })).max(MAX_LIST),
    note: line.optional()
  }).optional(),
  ignoredFilesReason: text.optional(),
  dirtySubmodules: external_exports.array(line).max(MAX_LIST).optional(),
  unrepresentedFiles: external_exports.strictObject({ total: count.nullable(), examples: external_exports.array(line).max(MAX_LIST), note: text.optional() }).optional(),
  changedWhileRunning: external_exports.strictObject({ total: count.nullable(), examples: external_exports.array(line).max(MAX_LIST), note: text.optional() }).optional(),
  outputMatches: external_exports.strictObject({ pattern: text, matched: external_exports.boolean(), truncated: external_exports.literal(true).optional() }).optional(),
  repeat: external_exports.strictObject({ runs: count.min(1).max(MAX_VERIFY_REPEAT), passed: count.max(MAX_VERIFY_REPEAT) }).refine((r) => r.passed <= r.runs, { message: "passed cannot exceed runs" }).optional(),
  // Issue 25 item 1: absent in ledgers written before receipts existed (they still load).
  receipt: TestReceiptSchema.optional(),
  testsRequired: external_exports.literal(true).optional()
});
var BaseComparisonSchema = external_exports.strictObject({
  commit: id.nullable(),
  chosenAs: line,
  verdict: external_exports.enum(["fixed", "passes_on_both", "fails_on_both", "introduced", "not_compared"]),
  reason: text.optional(),
  verify: VerifyRunSchema.optional(),
  fixedTests: external_exports.array(text).max(RECEIPT_MAX_NAMES).optional(),
  fewerTests: external_exports.strictObject({ base: count, head: count }).optional()
});
var VerifyEvidenceSchema = VerifyRunSchema.extend({
  // Issue 25 item 3: absent when `verify-base` was off, and in ledgers written before it existed.
  base: BaseComparisonSchema.optional()
});
var rowBase = {
  nodeId: id,
  label: line.optional(),
  sessionId: id.nullable(),
  costUsd: usd.nullable(),
  durationMs: count,
  deniedToolCalls: count,
  usage: TokenUsageSchema.nullable(),
  numTurns: count.nullable(),
  sink: external_exports.boolean(),
  verify: VerifyEvidenceSchema.optional(),
  outsideWrites: external_exports.strictObject({ total: count, paths: external_exports.array(line).max(10) }).optional(),
  completion: external_exports.strictObject({
    attempt: count,
    maxAttempts: count,
    check: external_exports.enum(["passed", "failed", "not_run", "could_not_run"]),
    reason: text.optional()
  }).optional(),
  worktree: external_exports.strictObject({ name: line, branch: line }).optional(),
  claims: external_exports.array(
    external_exports.strictObject({
      kind: external_exports.enum(["tests-pass", "tests-count", "build-succeeds", "fixed"]),
      quote: line,
      passed: count.optional(),
      total: count.nullable().optional(),
      contradiction: line.nullable()
    })
  ).max(4).optional(),
  detail: text
};
var LedgerRowSchema = external_exports.discriminatedUnion("verdict", [
  external_exports.strictObject({
    ...rowBase,
    verdict: external_exports.literal("PASS"),
    qualifier: external_exports.enum(["approved", "verified", "self-reported", "exit-only"]),
    // Who approved is a GitHub login, `name[bot]` or `NAME (local user)` (core/github-login.ts): free text
    // such as "@octocat (GitHub-verified maintainer)" is no approver, and such a ledger is not posted.
    approvedBy: external_exports.strictObject({
      login: id.refine(isRecordedApprover, {
        message: "not an approver the product records: a GitHub login, a bot's name[bot], or NAME (local user)"
      }),
      headSha: id
    }).optional()
  }),
  external_exports.strictObject({
    ...rowBase,
    verdict: external_exports.literal("FAIL"),
    cause: external_exports.enum([
      "verify_failed",
      "result_mismatch",
      "nonzero_exit",
      "timeout",
      "run_error",
      "output_error",
      "budget_exceeded",
      "incomplete",
      "rejected",
      "cancelled"
    ]),
    superseded: external_exports.boolean().optional(),
    stoppedBy: text.optional()
  }),
  external_exports.strictObject({ ...rowBase, verdict: external_exports.literal("SKIPPED"), reason: text }),
  external_exports.strictObject({
    ...rowBase,
    verdict: external_exports.literal("PAUSED"),
    pause: external_exports.literal("session_limit"),
    resetsAt: line.nullable()
  })
]);
var BuildSignalSchema = external_exports.strictObject({ file: line, ecosystem: line, suggestion: line });
var BuildEvidenceSchema = external_exports.discriminatedUnion("kind", [
  external_exports.strictObject({ kind: external_exports.literal("attached"), command: line, declaredBy: external_exports.enum(["input", "policy"]) }),
  external_exports.strictObject({ kind: external_exports.literal("declared"), signals: external_exports.array(BuildSignalSchema).max(MAX_LIST) }),
  external_exports.strictObject({ kind: external_exports.literal("none-detected") }),
  external_exports.strictObject({
    kind: external_exports.literal("graph"),
    verifiedSinks: external_exports.array(line).max(MAX_LIST),
    unverifiedSinks: external_exports.array(line).max(MAX_LIST)
  })
]);
var PlanSectionSchema = external_exports.strictObject({
  buildEvidence: BuildEvidenceSchema,
  sinkCommands: external_exports.array(external_exports.strictObject({ nodeId: id, command: line })).max(MAX_LIST),
  disclosure: text,
  nodes: external_exports.array(
    external_exports.strictObject({
      id,
      type: external_exports.enum(["agent", "gate"]).optional(),
      dependsOn: external_exports.array(id).max(MAX_LIST),
      allowedTools: external_exports.array(line).max(MAX_LIST),
      sink: external_exports.boolean()
    })
  ).max(MAX_LIST),
  planningCostUsd: usd.nullable(),
  repaired: external_exports.strictObject({ refusals: external_exports.array(text).max(MAX_LIST) }).optional(),
  policy: external_exports.strictObject({
    source: line,
    requireEvidence: external_exports.boolean(),
    requireTests: external_exports.boolean().optional(),
    verifyRepeat: external_exports.number().int().min(1).max(MAX_VERIFY_REPEAT).optional(),
    verifyBase: external_exports.boolean().optional(),
    testReports: external_exports.array(line).max(MAX_LIST).optional()
  }).optional(),
  warnings: external_exports.array(text).max(MAX_LIST).optional(),
  fragments: external_exports.array(text).max(MAX_LIST).optional(),
  untrustedText: external_exports.array(
    external_exports.strictObject({
      source: id,
      hiddenChars: count,
      htmlComments: count,
      hiddenHtml: count,
      altTexts: count,
      omittedChars: count
    })
  ).max(MAX_LIST).optional()
});
var UsdTotalSchema = external_exports.discriminatedUnion("kind", [
  external_exports.strictObject({ kind: external_exports.literal("known"), usd }),
  external_exports.strictObject({ kind: external_exports.literal("unknown"), knownUsd: usd, unknownCalls: count })
]);
var TotalsSchema = external_exports.strictObject({
  planning: UsdTotalSchema,
  nodes: UsdTotalSchema,
  total: UsdTotalSchema,
  tokens: external_exports.strictObject({
    inputTokens: count,
    outputTokens: count,
    cacheReadInputTokens: count,
    cacheCreationInputTokens: count,
    callsWithoutUsage: count
  })
});
var ConclusionSchema = external_exports.strictObject({
  conclusion: external_exports.enum(["success", "neutral", "action_required", "failure", "cancelled", "timed_out"]),
  outcome: external_exports.enum(["passed", "failed", "refused", "paused", "cancelled", "timed-out", "usage-error"]),
  rule: external_exports.enum([
    "verified-on-commit",
    "verified-off-commit",
    "verified-different-trees",
    "verified-tree-unknown",
    "verified-ignored-files-changed",
    "verified-ignored-files-unknown",
    "verified-bytes-not-in-tree",
    "verified-outside-writes",
    "verified-in-worktree",
    "verify-definition-changed",
    "verified-no-test",
    "verified-failing-tests",
    "tests-required",
    "no-engine-evidence",
    "partially-verified",
    "only-gate-sinks",
    "node-failed",
    "sink-verify-failed",
    "node-did-not-run",
    "plan-refused",
    "planning-failed",
    "setup-failed",
    "engine-error",
    "push-refused",
    "workflow-run-not-success",
    "refused",
    "usage-error",
    "paused",
    "cancelled",
    "abandoned",
    "timed-out"
  ]),
  title: text,
  reason: text
});
var GoalLoopSchema = external_exports.strictObject({
  maxCycles: count,
  stoppedBecause: text,
  cycles: external_exports.array(
    external_exports.strictObject({
      cycle: count,
      runId: id,
      remainingIn: text.optional(),
      conclusion: ConclusionSchema.pick({ conclusion: true, outcome: true, title: true }).nullable(),
      rows: external_exports.array(
        external_exports.strictObject({
          node: line,
          verdict: line,
          costUsd: usd.nullable(),
          durationMs: count,
          detail: text
        })
      ).max(MAX_LIST),
      total: UsdTotalSchema,
      assessment: external_exports.discriminatedUnion("kind", [
        external_exports.strictObject({
          kind: external_exports.literal("assessed"),
          goalMet: external_exports.boolean(),
          remaining: text,
          evidence: text,
          costUsd: usd.nullable(),
          startRetries: text.optional()
        }),
        external_exports.strictObject({ kind: external_exports.literal("failed"), reason: text, costUsd: usd.nullable() }),
        external_exports.strictObject({ kind: external_exports.literal("not_assessed") })
      ])
    })
  ).max(100)
});
var CommitSchema = external_exports.strictObject({ sha: id, tree: id, description: line });
var changeStatus = external_exports.enum(["added", "modified", "deleted", "renamed"]);
var ChangedFilesSchema = external_exports.strictObject({
  total: count,
  counts: external_exports.strictObject({ added: count, modified: count, deleted: count, renamed: count }),
  files: external_exports.array(external_exports.strictObject({ path: line, status: changeStatus, from: line.optional() })).max(MAX_LIST),
  verifyDefinition: external_exports.array(
    external_exports.strictObject({
      path: line,
      kind: external_exports.enum([
        "package-scripts",
        "definition-file",
        "named-by-verify",
        "test-file-removed",
        "skip-marker",
        "test-lines-changed",
        "policy-file",
        "test-data",
        "named-by-test"
      ]),
      detail: text,
      keys: external_exports.array(line).max(MAX_LIST).optional()
    })
  ).max(MAX_LIST),
  flaggedTotal: count
});
var LedgerJsonSchema = external_exports.strictObject({
  schemaVersion: external_exports.literal(1),
  runId: id,
  mode: external_exports.enum(["auto", "run", "verify"]),
  goal: text.optional(),
  runtime: external_exports.enum(["claude", "codex"]),
  model: line.optional(),
  plan: PlanSectionSchema,
  rows: external_exports.array(LedgerRowSchema).max(MAX_LIST),
  totals: TotalsSchema,
  conclusion: ConclusionSchema.nullable(),
  startedAt: timestamp,
  finishedAt: timestamp.nullable(),
  startingCommit: CommitSchema.nullable(),
  headSha: external_exports.string().regex(/^[0-9a-f]{40}$/, "expected a 40-hex commit SHA").optional(),
  postedCommit: CommitSchema.optional(),
  evidenceTree: id.nullable(),
  changedFiles: ChangedFilesSchema.optional(),
  patch: external_exports.strictObject({
    path: line,
    bytes: count,
    preview: text,
    holdsSecret: external_exports.literal(true).optional(),
    notCommittedBecause: text.optional()
  }).optional(),
  goalLoop: GoalLoopSchema.optional()
});

export {
  CHECK_RUN_TEXT_MAX_BYTES,
  utf8Bytes,
  truncateUtf8,
  PLANNING_WITH_ASSESSOR,
  computeTotals,
  loopTotals,
  policySettingsWords,
  escapeInline,
  codeSpan,
  fencedBlock,
  NO_BUILD_EVIDENCE_WORDS,
  answerWords,
  sinkEvidence,
  NO_PLAN_LINE,
  hasNoBuildEvidence,
  untrustedTextWords,
  goalWords,
  changedFilesText,
  goalLoopText,
  renderLedgerMarkdown,
  renderCheckRunOutput,
  trimmedNotice,
  renderLedgerJson,
  parseLedgerJson,
  fitLedgerText
};
