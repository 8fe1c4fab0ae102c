#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  isWaitingGate
} from "./cli-chunk-NJKI2YPK.js";
import {
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/core/shown-command.ts
var LINE_BREAK_MARK = " \u23CE ";
function shownCommand(command) {
  if (!/[\r\n]/.test(command)) return command;
  return command.split(/\r\n|\r|\n/).map((line) => line.trim()).filter((line) => line !== "").join(LINE_BREAK_MARK);
}

// src/core/github-login.ts
function isGitHubLogin(text) {
  return /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(text);
}
var LOCAL_USER_SUFFIX = " (local user)";
function isLocalAccountName(text) {
  return /^[\p{L}\p{N}_][\p{L}\p{N}._ -]{0,63}$/u.test(text) && text.trimEnd() === text;
}
function localApprover(name) {
  return `${name}${LOCAL_USER_SUFFIX}`;
}
function isRecordedApprover(text) {
  if (isGitHubLogin(text.replace(/\[bot\]$/, ""))) return true;
  return text.endsWith(LOCAL_USER_SUFFIX) && isLocalAccountName(text.slice(0, -LOCAL_USER_SUFFIX.length));
}

// src/core/run-id.ts
import { randomBytes } from "node:crypto";
function mintRunId(now = /* @__PURE__ */ new Date()) {
  const p = (n) => String(n).padStart(2, "0");
  const date = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
  const time = `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(3).toString("hex")}`;
}
function isRunId(value) {
  return /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(value);
}

// src/ledger/cells.ts
function verdictLabel(row) {
  switch (row.verdict) {
    case "PASS":
      return `PASS (${row.qualifier})`;
    case "FAIL":
      return `FAIL ${row.cause}`;
    case "SKIPPED":
      return isWaitingGate(row) ? "WAITING" : "SKIPPED";
    case "PAUSED":
      return `PAUSED session limit${row.resetsAt !== null ? `, resets ${row.resetsAt}` : ""}`;
    default:
      return unreachable(row);
  }
}
function nodeLabel(row) {
  return row.label ?? row.nodeId;
}
function shortSession(sessionId) {
  if (sessionId === null || sessionId === "") return "-";
  return /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(sessionId) ? sessionId.slice(-8) : sessionId.slice(0, 8);
}
function runtimeWords(ledger) {
  if (ledger.mode === "verify") return null;
  return ledger.model === void 0 ? ledger.runtime : `${ledger.runtime} (${ledger.model})`;
}
function formatUsd(usd) {
  return usd === null || !Number.isFinite(usd) ? "unknown" : `$${usd.toFixed(4)}`;
}
function formatUsdTotal(total) {
  if (total.kind === "known") return formatUsd(total.usd);
  const calls = `${total.unknownCalls} ${total.unknownCalls === 1 ? "call" : "calls"} without USD`;
  return `unknown (known subtotal ${formatUsd(total.knownUsd)}; ${calls})`;
}
function formatDuration(ms) {
  if (ms < 1e3) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 6e4) return `${(ms / 1e3).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1e3);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor(totalSeconds % 3600 / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}
function approverWords(login) {
  return isGitHubLogin(login.replace(/\[bot\]$/, "")) ? `@${login}` : login;
}
function rowDetail(row) {
  const parts = [row.detail];
  if (row.verdict === "PASS" && row.approvedBy !== void 0) {
    parts.push(`approved by ${approverWords(row.approvedBy.login)} at ${row.approvedBy.headSha.slice(0, 7)}`);
  }
  if (row.verdict === "FAIL" && row.superseded === true) parts.push("superseded by a later attempt");
  if (row.verdict === "SKIPPED" && row.reason !== "") parts.push(row.reason);
  const ignored = ignoredFilesWords(row.verify);
  if (ignored !== null && !row.detail.includes(ignored)) parts.push(ignored);
  const gaps = evidenceGapWords(row.verify, DETAIL_PATHS);
  if (gaps !== null && !row.detail.includes(gaps)) parts.push(gaps);
  const outside = outsideWritesWords(row.outsideWrites);
  if (outside !== null && !row.detail.includes(outside)) parts.push(outside);
  if (row.worktree !== void 0) parts.push(worktreeWords(row.worktree));
  for (const claim of row.claims ?? []) parts.push(claimWords(claim));
  const receipt = row.verify?.receipt;
  if (receipt !== void 0 && row.verify?.reusedFrom === void 0) {
    const words = receiptWords(receipt);
    if (!row.detail.includes(words)) parts.push(words);
  }
  if (row.verify?.base !== void 0) parts.push(baseWords(row.verify.base));
  return parts.filter((part) => part !== "").join("; ");
}
function baseCommitWords(base) {
  return base.commit === null ? `the base (${base.chosenAs})` : `base ${base.commit.slice(0, 7)} (${base.chosenAs})`;
}
function baseWords(base) {
  const at = baseCommitWords(base);
  const names = (base.fixedTests ?? []).slice(0, RECEIPT_NAMES_SHOWN);
  const more = (base.fixedTests?.length ?? 0) > names.length ? ", \u2026" : "";
  const verdict = (() => {
    switch (base.verdict) {
      case "fixed":
        return `fails on ${at}, passes on head: fixed${names.length > 0 ? ` (now passing: ${names.join(", ")}${more})` : ""}`;
      case "passes_on_both":
        return `passes on ${at} and on head`;
      case "fails_on_both":
        return `fails on ${at} too: pre-existing, still not green`;
      case "introduced":
        return `passes on ${at}, fails on head: introduced by the change`;
      case "not_compared":
        return `not compared with ${at}: ${base.reason ?? "the base did not run"}`;
      default:
        return unreachable(base.verdict);
    }
  })();
  const receipt = base.verify?.receipt;
  const parts = [
    verdict,
    ...receipt !== void 0 ? [`base run: ${receiptWords(receipt)}`] : [],
    ...base.fewerTests !== void 0 ? [
      `the head ran fewer tests than the base (${base.fewerTests.head} against ${base.fewerTests.base}): look at which went`
    ] : []
  ];
  return parts.join("; ");
}
var RECEIPT_NAMES_SHOWN = 5;
function receiptWords(receipt) {
  if (receipt.kind === "none") return `no test receipt: ${receipt.reason}`;
  const from = receipt.source === "reports" ? `${receipt.runners.join(", ")} report${(receipt.files?.length ?? 0) === 1 ? "" : "s"} ${(receipt.files ?? []).join(", ")}` : receipt.runners.join(", ");
  const skipped = receipt.skipped > 0 ? `${receipt.skipped} skipped` : null;
  if (receipt.ran === 0) return `ran no test${skipped !== null ? ` (${skipped})` : ""}, per ${from}`;
  const shown = receipt.failedNames.slice(0, RECEIPT_NAMES_SHOWN).map((name) => name.length > 120 ? `${name.slice(0, 119)}\u2026` : name);
  const more = receipt.failedNames.length > shown.length || !receipt.failedNamesComplete;
  const names = receipt.failed > 0 && shown.length > 0 ? ` (${shown.join(", ")}${more ? ", \u2026" : ""})` : "";
  const parts = [
    `${receipt.passed} passed`,
    ...receipt.failed > 0 ? [`${receipt.failed} failed${names}`] : [],
    ...skipped !== null ? [skipped] : []
  ];
  return `ran ${receipt.ran} ${receipt.ran === 1 ? "test" : "tests"}: ${parts.join(", ")}, per ${from}`;
}
function claimWords(claim) {
  const said = `the node said "${claim.quote}"`;
  return claim.contradiction !== null ? `${said} \u2014 contradicted: ${claim.contradiction}` : `${said} \u2014 agrees with what the engine observed`;
}
function worktreeWords(worktree) {
  return `ran in worktree ${worktree.name}: its changes are on branch ${worktree.branch}, not in the main working tree`;
}
var DETAIL_PATHS = 3;
function ignoredFilesWords(verify) {
  if (verify === void 0) return null;
  switch (verify.ignoredFiles) {
    case void 0:
    case "unchanged":
      return null;
    case "changed":
      return `git-ignored files changed since the run started, on no commit: ${describeIgnoredChanges(verify.ignoredFilesChanges, DETAIL_PATHS)}`;
    case "unknown":
      return `git-ignored files not compared: ${verify.ignoredFilesReason ?? "unknown reason"}`;
    default:
      return unreachable(verify.ignoredFiles);
  }
}
function evidenceGapWords(verify, shown = 10) {
  const parts = evidenceGapParts(verify, shown);
  return parts.length > 0 ? `verify ran on bytes the evidence tree does not hold: ${parts.join("; ")}` : null;
}
function evidenceGapParts(verify, shown = 10) {
  if (verify === void 0) return [];
  const clip = (path) => path.length > 200 ? `\u2026${path.slice(-199)}` : path;
  const parts = [];
  const submodules = verify.dirtySubmodules ?? [];
  if (submodules.length > 0) {
    const named = submodules.slice(0, shown).map(clip);
    const rest = submodules.length - named.length;
    parts.push(
      `submodule content on no commit in ${named.join(", ")}${rest > 0 ? `, ${rest} more` : ""} (modified, untracked or unrecorded commits)`
    );
  }
  const files = verify.unrepresentedFiles;
  if (files !== void 0) {
    const named = files.examples.slice(0, shown).map(clip);
    const rest = files.total !== null ? files.total - named.length : 0;
    const list = [
      ...named,
      ...rest > 0 ? [`${rest} more`] : [],
      ...files.note !== void 0 ? [files.note] : []
    ];
    parts.push(
      `files whose edits a .gitattributes conversion hides from it: ${list.length > 0 ? list.join(", ") : "(no path recorded)"}`
    );
  }
  const changed = verify.changedWhileRunning;
  if (changed !== void 0) {
    const named = changed.examples.slice(0, shown).map(clip);
    const rest = changed.total !== null ? changed.total - named.length : 0;
    const list = [
      ...named,
      ...rest > 0 ? [`${rest} more`] : [],
      ...changed.note !== void 0 ? [changed.note] : []
    ];
    parts.push(
      `files of the tree the command itself changed or removed while it ran: ${list.length > 0 ? list.join(", ") : "(no path recorded)"}`
    );
  }
  return parts;
}
function describeIgnoredChanges(changes, shown = 10) {
  if (changes === void 0) return "(no path recorded)";
  const clip = (path) => path.length > 200 ? `\u2026${path.slice(-199)}` : path;
  const named = changes.examples.slice(0, shown).map((c) => `${clip(c.path)} (${c.change})`);
  const rest = changes.total !== null ? changes.total - named.length : 0;
  const parts = [...named];
  if (rest > 0) parts.push(`${rest} more`);
  if (changes.note !== void 0) parts.push(changes.note);
  return parts.length > 0 ? parts.join(", ") : "(no path recorded)";
}
function outsideWritesWords(writes) {
  if (writes === void 0) return null;
  return `wrote outside the repository (not in the evidence tree): ${describeOutsideWrites(writes, DETAIL_PATHS)}`;
}
function describeOutsideWrites(writes, shown = 10) {
  const clip = (path) => path.length > 200 ? `\u2026${path.slice(-199)}` : path;
  const named = writes.paths.slice(0, shown).map(clip);
  const rest = writes.total - named.length;
  const parts = rest > 0 ? [...named, `${rest} more`] : named;
  return parts.length > 0 ? parts.join(", ") : "(no path recorded)";
}
function verifyExitWords(verify) {
  const words = singleRunWords(verify);
  const repeat = verify.repeat;
  if (repeat === void 0) return words;
  if (repeat.passed === repeat.runs) return `${words} in each of ${repeat.runs} runs on the same tree`;
  if (repeat.passed === 0) return `${words}; it passed none of ${repeat.runs} runs on the same tree`;
  return `flaky: passed ${repeat.passed} of ${repeat.runs} runs on the same tree (a flaky result is not a pass); the first failing run ${words}`;
}
function singleRunWords(verify) {
  const matches = verify.outputMatches;
  const truncated = matches?.truncated === true ? " (only its first and last 8 MiB were searched; the output was longer)" : "";
  switch (verify.outcome) {
    case "passed":
      return matches !== void 0 ? `exited ${verify.exitCode ?? "?"} (expected ${verify.expectExit}) and its output matched /${patternWords(matches.pattern)}/${truncated}` : `exited ${verify.exitCode ?? "?"} (expected ${verify.expectExit})`;
    case "failed":
      if (matches !== void 0 && !matches.matched && verify.exitCode === verify.expectExit) {
        return `exited ${verify.exitCode} but its output did not match /${patternWords(matches.pattern)}/${truncated}`;
      }
      return `exited ${verify.exitCode ?? "without a code"} (expected ${verify.expectExit})`;
    case "timed_out":
      return `timed out after ${formatDuration(verify.durationMs)} (no exit code)`;
    case "spawn_failed":
      return "could not be started (no exit code)";
    default:
      return unreachable(verify.outcome);
  }
}
function patternWords(source) {
  const flat = source.replace(/\r?\n/g, "\\n");
  return flat.length > 120 ? `${flat.slice(0, 119)}\u2026` : flat;
}
function contradictedClaims(rows) {
  return rows.flatMap(
    (row) => (row.claims ?? []).filter((claim) => claim.contradiction !== null).map((claim) => ({ row, claim }))
  );
}
function failedVerifications(rows) {
  const failed = [];
  for (const row of rows) {
    if (row.verify !== void 0 && row.verify.outcome !== "passed") failed.push({ row, verify: row.verify });
  }
  return failed;
}
function conclusionLabel(conclusion) {
  return conclusion === null ? "in progress" : conclusion.conclusion;
}
function tokenWords(tokens) {
  const words = `input ${tokens.inputTokens}, output ${tokens.outputTokens}, cache read ${tokens.cacheReadInputTokens}, cache write ${tokens.cacheCreationInputTokens}`;
  if (tokens.callsWithoutUsage === 0) return words;
  const calls = tokens.callsWithoutUsage === 1 ? "1 call" : `${tokens.callsWithoutUsage} calls`;
  return `${words} (${calls} reported no usage)`;
}
function goalLoopTotal(section) {
  let knownUsd = 0;
  let unknownCalls = 0;
  for (const cycle of section.cycles) {
    if (cycle.total.kind === "known") knownUsd += cycle.total.usd;
    else {
      knownUsd += cycle.total.knownUsd;
      unknownCalls += cycle.total.unknownCalls;
    }
    const { assessment } = cycle;
    if (assessment.kind === "not_assessed") continue;
    if (assessment.costUsd === null || !Number.isFinite(assessment.costUsd)) unknownCalls += 1;
    else knownUsd += assessment.costUsd;
  }
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}
function loopTotalsWords(section) {
  const n = section.cycles.length;
  return `(the whole goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} with their planner, nodes and assessor calls; each cycle's run cost is in its section)`;
}
function assessmentWords(assessment, maxChars) {
  const cut = (text) => oneLineCut(text, maxChars);
  switch (assessment.kind) {
    case "not_assessed":
      return "not assessed";
    case "failed":
      return `no verdict (${cut(assessment.reason)}); assessor cost ${formatUsd(assessment.costUsd)}`;
    case "assessed": {
      const verdict = assessment.goalMet ? "goal met" : "goal not met";
      const remaining = assessment.remaining.trim() === "" ? "" : `; remaining: ${cut(assessment.remaining)}`;
      const retried = assessment.startRetries === void 0 ? "" : `; ${assessment.startRetries}`;
      return `${verdict}${remaining}; evidence: ${cut(assessment.evidence)}; assessor cost ${formatUsd(assessment.costUsd)}${retried}`;
    }
    default:
      return unreachable(assessment);
  }
}
function oneLineCut(text, maxChars) {
  const flat = [...text.replace(/\s+/g, " ").trim()];
  return maxChars === null || flat.length <= maxChars ? flat.join("") : `${flat.slice(0, maxChars - 1).join("")}\u2026`;
}

export {
  mintRunId,
  isRunId,
  shownCommand,
  isGitHubLogin,
  isLocalAccountName,
  localApprover,
  isRecordedApprover,
  verdictLabel,
  nodeLabel,
  shortSession,
  runtimeWords,
  formatUsd,
  formatUsdTotal,
  formatDuration,
  rowDetail,
  baseWords,
  receiptWords,
  ignoredFilesWords,
  evidenceGapParts,
  describeIgnoredChanges,
  outsideWritesWords,
  describeOutsideWrites,
  verifyExitWords,
  contradictedClaims,
  failedVerifications,
  conclusionLabel,
  tokenWords,
  goalLoopTotal,
  loopTotalsWords,
  assessmentWords,
  oneLineCut
};
