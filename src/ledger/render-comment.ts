/**
 * The ledger's short form for the sticky pull-request comment (SPEC §6 "Renderers", §11 input `comment`):
 * the conclusion and its title, the row counts, the goal loop's cycle count and why it stopped (when the
 * run was the last of one), every row that is not a PASS (node, verdict, cause or
 * reason), the PASS qualifier tally, and a link to the check run that carries the whole ledger. Pure; the
 * caller redacts secrets. Every text the run did not write itself (node ids, titles) is escaped, so PR or
 * model text cannot inject Markdown, HTML or a second marker. Bounded to the API's comment limit.
 */

import type { Qualifier } from "../core/ledger-row.js";
import { truncateUtf8 } from "./byte-budget.js";
import type { Ledger } from "./ledger.js";
import { escapeCell, escapeInline } from "./markdown-syntax.js";
import { CONCLUSION_ICONS } from "./render-goal-loop.js";

/** GitHub refuses an issue comment body over 65536 characters; bytes are a safe upper bound. */
export const COMMENT_BODY_MAX_BYTES = 65_536;
/** Rows listed before "… and N more". */
export const COMMENT_MAX_ROWS = 50;

const QUALIFIERS: readonly Qualifier[] = ["approved", "verified", "self-reported", "exit-only"];

/**
 * The hidden marker that finds this check's comment again: `<!-- evidence-gate:<check-name> -->`. The
 * name is reduced to characters that cannot end the HTML comment early.
 */
export function commentMarker(checkName: string): string {
  return `<!-- evidence-gate:${checkName.replace(/[^\w .:/()-]/g, "_").replace(/--/g, "_-")} -->`;
}

/** The comment body: marker first, then the short form. `checkRunUrl` null: no link. */
export function renderCommentBody(
  ledger: Ledger,
  options: { readonly checkName: string; readonly checkRunUrl: string | null },
): string {
  const c = ledger.conclusion;
  const lines: string[] = [commentMarker(options.checkName)];
  lines.push(
    c === null
      ? `### ${escapeInline(options.checkName)}: in progress`
      : `### ${CONCLUSION_ICONS[c.conclusion]} ${escapeInline(options.checkName)}: \`${c.conclusion}\` — ${escapeInline(c.title)}`,
  );
  const count = (verdict: string) => ledger.rows.filter((r) => r.verdict === verdict).length;
  const paused = count("PAUSED") > 0 ? ` · ${count("PAUSED")} paused` : "";
  lines.push(
    "",
    `**${count("PASS")} passed · ${count("FAIL")} failed · ${count("SKIPPED")} skipped${paused}**`,
  );
  const loop = ledger.goalLoop;
  if (loop !== undefined) {
    const n = loop.cycles.length;
    lines.push(
      "",
      `Goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} of at most ${loop.maxCycles}, stopped: ${escapeInline(loop.stoppedBecause.slice(0, 300))}. The counts are the last run's; every cycle is on the check run.`,
    );
  }
  const tally = QUALIFIERS.flatMap((q) => {
    const n = ledger.rows.filter((r) => r.verdict === "PASS" && r.qualifier === q).length;
    return n > 0 ? [`${n} ${q}`] : [];
  });
  if (tally.length > 0) lines.push("", `PASS: ${tally.join(", ")}`);
  const notPassed = ledger.rows.filter((r) => r.verdict !== "PASS");
  if (notPassed.length > 0) {
    lines.push("", "| node | verdict | why |", "| --- | --- | --- |");
    for (const row of notPassed.slice(0, COMMENT_MAX_ROWS)) {
      const why =
        row.verdict === "FAIL"
          ? `${row.cause}${row.superseded ? " (retried)" : ""}${row.detail ? `: ${row.detail.split("\n")[0]}` : ""}`
          : row.verdict === "SKIPPED"
            ? row.reason
            : row.verdict === "PAUSED"
              ? `session limit${row.resetsAt !== null ? `, resets ${row.resetsAt}` : ""}`
              : "";
      lines.push(
        `| ${escapeCell(row.label ?? row.nodeId)} | ${row.verdict} | ${escapeCell(why.slice(0, 300))} |`,
      );
    }
    if (notPassed.length > COMMENT_MAX_ROWS)
      lines.push("", `… and ${notPassed.length - COMMENT_MAX_ROWS} more rows on the check run.`);
  }
  if (options.checkRunUrl !== null)
    lines.push("", `[The whole ledger is on the check run](${encodeURI(options.checkRunUrl)}).`);
  return truncateUtf8(
    lines.join("\n"),
    COMMENT_BODY_MAX_BYTES,
    "… trimmed; the whole ledger is on the check run",
  );
}
