#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  NO_BUILD_EVIDENCE_WORDS,
  NO_PLAN_LINE,
  answerWords,
  changedFilesText,
  goalLoopText,
  goalWords,
  hasNoBuildEvidence,
  sinkEvidence,
  untrustedTextWords
} from "./cli-chunk-XMBYELVR.js";
import {
  conclusionLabel,
  formatDuration,
  formatUsd,
  formatUsdTotal,
  loopTotalsWords,
  nodeLabel,
  rowDetail,
  runtimeWords,
  shortSession,
  shownCommand,
  tokenWords,
  verdictLabel,
  verifyExitWords
} from "./cli-chunk-UYHXKTBK.js";
import {
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/engine/run-dir.ts
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

// src/graph/file-name.ts
function nodeFileName(id) {
  return id.replaceAll("/", "~");
}

// src/engine/run-dir.ts
function liveLockHolder(runDir) {
  const path = join(runDir, "run.lock");
  if (!existsSync(path)) return null;
  const holder = (() => {
    try {
      return readFileSync(path, "utf8").trim();
    } catch {
      return "";
    }
  })();
  const [pid, host] = holder.split("@");
  if (host !== hostname() || pid === void 0 || !/^\d+$/.test(pid)) return holder || "(unknown)";
  try {
    process.kill(Number(pid), 0);
    return holder;
  } catch (error) {
    return error.code === "EPERM" ? holder : null;
  }
}
var RunDirectory = class {
  /** Creates `<runsDir>/<runId>/` and its `nodes/` and `failed/` folders. */
  constructor(runsDir, runId) {
    this.runId = runId;
    this.path = join(runsDir, runId);
    mkdirSync(join(this.path, "nodes"), { recursive: true });
    const ignore = join(runsDir, ".gitignore");
    if (!existsSync(ignore))
      writeFileSync(ignore, "# written by evidence-gate: run directories stay out of git\n*\n");
    mkdirSync(join(this.path, "failed"), { recursive: true });
  }
  runId;
  path;
  /** sha256 (hex) of the bytes this process last wrote to each JSON file, by file name. */
  #digests = /* @__PURE__ */ new Map();
  /**
   * Takes the run's lock (`run.lock`, created exclusively, holding this process's pid and host), so two
   * legs of one run never run at once (research §7.5). A lock left by a process that is gone (same host,
   * pid not running) is taken over.
   *
   * @returns `null` when taken, else why not (which process holds it).
   */
  lock() {
    const path = join(this.path, "run.lock");
    const mine = `${process.pid}@${hostname()}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${mine}
`, { flag: "wx" });
        return null;
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
      }
      const holder = liveLockHolder(this.path);
      if (holder !== null)
        return `run ${this.runId} is in use by process ${holder} (${path}): one leg at a time`;
      rmSync(path, { force: true });
    }
    return `run ${this.runId}'s lock ${path} could not be taken`;
  }
  /** Releases the lock taken by {@link lock} (only if this process holds it). */
  unlock() {
    const path = join(this.path, "run.lock");
    try {
      if (readFileSync(path, "utf8").trim() === `${process.pid}@${hostname()}`) rmSync(path, { force: true });
    } catch {
    }
  }
  /** Appends one event line with a timestamp. */
  event(event) {
    appendFileSync(
      join(this.path, "events.jsonl"),
      `${JSON.stringify({ at: (/* @__PURE__ */ new Date()).toISOString(), ...event })}
`
    );
  }
  /** Writes a JSON file atomically (temp file + rename), so a crash never leaves half a file. */
  writeJson(name, value) {
    const target = join(this.path, name);
    const temp = `${target}.${process.pid}.tmp`;
    const text = `${JSON.stringify(value, null, 2)}
`;
    writeFileSync(temp, text);
    renameSync(temp, target);
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
    return target;
  }
  /**
   * The sha256 (hex) of what this process last wrote to `name` with {@link writeJson}, or `null`. The
   * action posts the digests of `state.json` and `graph.json` on the check run (out of every node's reach),
   * so a resumed leg can prove the run directory it downloaded is the one the engine wrote.
   */
  digestOf(name) {
    return this.#digests.get(name) ?? null;
  }
  /** Records the digest of a JSON file this process read and checked rather than wrote (resume's graph.json). */
  noteDigest(name, text) {
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
  }
  /** Writes a text file (node output, patch) and returns its path. */
  writeText(name, text) {
    const target = join(this.path, name);
    writeFileSync(target, text);
    return target;
  }
  /** Writes a binary file (a patch need not be UTF-8) and returns its path. */
  writeBytes(name, bytes) {
    const target = join(this.path, name);
    writeFileSync(target, bytes);
    return target;
  }
  /** Path of a node's saved output (the `{{ artifacts.ID }}` target). */
  nodeOutputPath(nodeId) {
    return join(this.path, "nodes", `${nodeFileName(nodeId)}.out`);
  }
  /** Path of a failed node's saved reply. */
  failedOutputPath(nodeId) {
    return join(this.path, "failed", `${nodeFileName(nodeId)}.out`);
  }
};

// src/ledger/render-text.ts
var HEADERS = ["NODE", "VERDICT", "SESSION", "COST", "DURATION", "DENIED", "DETAIL"];
var RIGHT_ALIGNED = /* @__PURE__ */ new Set([3, 4, 5]);
var GAP = "  ";
function renderLedgerText(ledger) {
  const lines = [header(ledger)];
  if (ledger.goal !== void 0) lines.push(`Goal: ${goalWords(ledger.goal)}`);
  const { policy } = ledger.plan;
  if (policy !== void 0)
    lines.push(`Policy: ${oneLine(policy.source)} \u2014 require-evidence: ${policy.requireEvidence}`);
  lines.push(...buildEvidence(ledger));
  for (const line of ledger.plan.fragments ?? []) lines.push(oneLine(line));
  for (const warning of ledger.plan.warnings ?? []) lines.push(`Warning: ${oneLine(warning)}`);
  const removed = untrustedTextWords(ledger.plan.untrustedText);
  if (removed !== null) lines.push(`Untrusted text: ${removed}`);
  if (ledger.goalLoop !== void 0) lines.push("", ...goalLoopText(ledger.goalLoop, ledger.runId));
  lines.push("");
  lines.push(...table(ledger.rows));
  lines.push("");
  const changed = changedFilesText(ledger.changedFiles);
  if (changed.length > 0) lines.push(...changed, "");
  lines.push(...totals(ledger));
  lines.push(...conclusion(ledger));
  return `${lines.join("\n")}
`;
}
function header(ledger) {
  const runtime = runtimeWords(ledger);
  const n = ledger.rows.filter((row) => row.verdict !== "SKIPPED").length;
  return `Run ${ledger.runId} \u2014 ${ledger.mode}${runtime === null ? "" : `, ${runtime}`} \u2014 ${n} ${n === 1 ? "execution" : "executions"}`;
}
function buildEvidence(ledger) {
  const answer = answerWords(ledger.plan.buildEvidence);
  if (ledger.plan.nodes.length > 0 && hasNoBuildEvidence(ledger.plan))
    return [`Build evidence: NONE (${answer.kind}) \u2014 ${answer.words}; ${NO_BUILD_EVIDENCE_WORDS}`];
  const lines = [`Build evidence: ${answer.kind} \u2014 ${answer.words}`];
  if (ledger.plan.nodes.length === 0) return [...lines, NO_PLAN_LINE];
  for (const sink of sinkEvidence(ledger.plan)) {
    switch (sink.kind) {
      case "command":
        lines.push(`  sink ${sink.nodeId}: ${shownCommand(sink.command)}`);
        break;
      case "gate":
        lines.push(`  sink ${sink.nodeId}: a gate (a person's approval, not build evidence)`);
        break;
      case "none":
        lines.push(`  sink ${sink.nodeId}: no verify command \u2014 its PASS is the model's, about its own work`);
        break;
      default:
        unreachable(sink);
    }
  }
  return lines;
}
function table(rows) {
  const cells = rows.map((row) => [
    oneLine(nodeLabel(row)),
    verdictLabel(row),
    shortSession(row.sessionId),
    formatUsd(row.costUsd),
    formatDuration(row.durationMs),
    String(row.deniedToolCalls),
    oneLine(rowDetail(row))
  ]);
  const widths = HEADERS.map((title, col) => Math.max(width(title), ...cells.map((row) => width(row[col]))));
  const format = (row) => row.map((cell, col) => {
    if (col === row.length - 1) return cell;
    const fill = " ".repeat(widths[col] - width(cell));
    return RIGHT_ALIGNED.has(col) ? fill + cell : cell + fill;
  }).join(GAP).trimEnd();
  const out = [format(HEADERS), format(widths.map((w) => "-".repeat(w)))];
  rows.forEach((row, i) => {
    out.push(format(cells[i]));
    if (row.verdict === "FAIL" && row.verify !== void 0 && row.verify.outcome !== "passed") {
      const { verify } = row;
      out.push(`    verify: ${shownCommand(verify.command)}`);
      out.push(`    result: ${verifyExitWords(verify)} in ${formatDuration(verify.durationMs)}`);
      const tail = verify.outputTail.replace(/\r\n|\r/g, "\n").replace(/\n$/, "");
      if (tail === "") {
        out.push("    output: (none)");
      } else {
        out.push("    output (tail):");
        for (const line of tail.split("\n")) out.push(`      ${line}`.trimEnd());
      }
    }
  });
  if (rows.length === 0) out.push("(no node ran)");
  return out;
}
function totals(ledger) {
  const { totals: t } = ledger;
  return [
    // Only `auto` plans: a hand-written run has no planning line to read as "planning cost nothing".
    ...ledger.mode === "auto" ? [`PLANNING COST: ${formatUsdTotal(t.planning)}`] : [],
    `NODE COST:     ${formatUsdTotal(t.nodes)}`,
    `TOTAL COST:    ${formatUsdTotal(t.total)}${ledger.goalLoop === void 0 ? "" : ` ${loopTotalsWords(ledger.goalLoop)}`}`,
    `TOKENS:        ${tokenWords(t.tokens)}`
  ];
}
function conclusion(ledger) {
  if (ledger.conclusion === null) return [`CONCLUSION:    ${conclusionLabel(null)}`];
  return [
    `CONCLUSION:    ${ledger.conclusion.conclusion} (outcome ${ledger.conclusion.outcome}) \u2014 ${oneLine(ledger.conclusion.title)}`,
    `               ${oneLine(ledger.conclusion.reason)}`
  ];
}
function oneLine(text) {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}
function width(text) {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

export {
  liveLockHolder,
  RunDirectory,
  renderLedgerText
};
