/**
 * The lint's verdict detector: which UPPERCASE verdict words a prompt demands as the reply, and the
 * advisory for a node that demands one without checking it (`result_matches`). Split from `lint.ts`.
 */
import type { GraphNode } from "./graph.js";

// Verdict detector. Conservative by design: it fires only when an imperative reply verb ("reply", "answer
// with", "end your reply with", "respond with exactly one word:") is followed — through filler words,
// punctuation and markdown quoting only — by an UPPERCASE word from a fixed verdict vocabulary. So
// "reply PASS or FAIL", "answer with APPROVED", "end with VERDICT:" fire; "if the log says FAIL, fix it"
// (no imperative verb), "reply done" (not uppercase), "write the README" (not a verdict word) and
// "reply SHIPIT" (a custom token, a known miss) do not.
const REPLY_VERBS = [
  "reply",
  "respond",
  "answer",
  "output",
  "print",
  "say",
  "write",
  "end",
  "start",
  "begin",
  "finish",
  "conclude",
  "return",
  "emit",
];
const FILLERS = [
  "with",
  "only",
  "exactly",
  "just",
  "the",
  "a",
  "an",
  "one",
  "of",
  "word",
  "token",
  "line",
  "single",
  "literal",
  "verdict",
  "either",
  "your",
  "reply",
  "response",
  "answer",
  "message",
  "first",
  "last",
  "final",
  "on",
  "its",
  "own",
  "by",
  "saying",
  "bare",
  "uppercase",
];
/** Uppercase words read as verdict tokens. The passing ones are listed first. */
const PASSING_VERDICTS = [
  "PASS",
  "PASSED",
  "APPROVE",
  "APPROVED",
  "LGTM",
  "DONE",
  "OK",
  "YES",
  "ACCEPT",
  "ACCEPTED",
  "GO",
  "SHIP",
  "MERGED",
  "APPLIED",
  "COMPLETE",
  "COMPLETED",
  "SUCCESS",
  "READY",
];
const OTHER_VERDICTS = [
  "FAIL",
  "FAILED",
  "FAILURE",
  "REJECT",
  "REJECTED",
  "NO",
  "BLOCK",
  "BLOCKED",
  "HOLD",
  "WITHHELD",
  "CHANGES_REQUESTED",
  "VERDICT",
];
const VERDICT = `(?:${[...PASSING_VERDICTS, ...OTHER_VERDICTS].join("|")})(?![\\w-])`;
// A verb matches capitalised or not ("Reply", "reply", "REPLY"), never inflected ("says", "printed").
const VERB = REPLY_VERBS.map(
  (verb) => `[${verb[0]?.toUpperCase()}${verb[0]}]${verb.slice(1)}|${verb.toUpperCase()}`,
).join("|");
const QUOTE = "[\"'`*“‘]{0,3}";
// Separators ({0,6}), quote marks ({0,3}), filler words ({0,8}) and alternatives ({0,8}) are bounded, so no prompt can make
// matching quadratic (a prompt is long free text; a verb may occur thousands of times).
const GAP = "[\\s,:]";
const DEMAND = new RegExp(
  `\\b(?:${VERB})\\b(?:${GAP}{1,6}(?:${FILLERS.join("|")})\\b){0,8}${GAP}{0,6}${QUOTE}(${VERDICT})` +
    `(?:${QUOTE}\\s{0,6}(?:or|,|/|\\|)\\s{0,6}${QUOTE}(?:${VERDICT})){0,8}`,
  "g",
);
const VERDICT_WORD = new RegExp(`\\b${VERDICT}`, "g");

/**
 * The verdict tokens `prompt` demands, in order, deduplicated; `[]` when it demands none. See the
 * detector notes above `REPLY_VERBS` for what counts as a demand.
 */
export function verdictTokensIn(prompt: string): string[] {
  const tokens: string[] = [];
  for (const demand of prompt.matchAll(DEMAND)) {
    const tail = demand[0].slice(demand[0].indexOf(demand[1] ?? ""));
    for (const [word] of tail.matchAll(VERDICT_WORD)) if (!tokens.includes(word)) tokens.push(word);
  }
  return tokens;
}

/**
 * The advisory for a node whose prompt demands a verdict word but whose `success_check` has no
 * `result_matches` (so any verdict passes), or `null`.
 */
export function uncheckedVerdict(node: GraphNode): string | null {
  if (node.success_check.result_matches !== null) return null;
  const tokens = verdictTokensIn(node.prompt);
  if (tokens.length === 0) return null;
  const passing = tokens.find((token) => PASSING_VERDICTS.includes(token));
  const fix =
    passing === undefined
      ? "add success_check.result_matches with a pattern only the passing verdict matches, anchored with ^"
      : `add success_check.result_matches: '^[*_\`\\s]*${passing}' — anchored, so "did not ${passing}" does not match`;
  return (
    `the prompt demands a verdict (${tokens.join(", ")}) but success_check has no result_matches, so the ` +
    `node passes whatever verdict it gives; ${fix}`
  );
}
