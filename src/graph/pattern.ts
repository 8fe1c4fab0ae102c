/**
 * RE2 patterns for `result_matches` and `verify.output_matches` (SPEC §3 "Patterns").
 *
 * Compiled once at load with `re2js` (a pure-JS RE2 port that bundles into `dist/`), so a bad pattern is a
 * load error and matching is linear-time on untrusted model output. Matching is Go's `MatchString`: a
 * search anywhere in the raw text, no trimming, and — without flags — `^`/`$` anchor the whole text
 * (so `^PASS$` does not match `"PASS\n"`), and `.` does not match a newline.
 */
import { RE2JS } from "re2js";

/** A pattern compiled at load. `source` is the text as written in the graph. */
export interface Pattern {
  readonly source: string;
  readonly re2: RE2JS;
}

/** Outcome of {@link compilePattern}: the compiled pattern, or RE2's reason for refusing it. */
export type PatternResult =
  | { readonly ok: true; readonly pattern: Pattern }
  | { readonly ok: false; readonly message: string };

/**
 * Compiles `source` as an RE2 pattern with no flags (Go's `regexp.Compile`).
 *
 * @returns `{ok: false, message}` for syntax RE2 refuses — including constructs it never supports, such
 *   as backreferences (`(a)\1`) and lookaround (`(?=x)`) — e.g.
 *   `invalid regex "(a)\\1": error parsing regexp: invalid escape sequence: \`\\1\``.
 */
export function compilePattern(source: string): PatternResult {
  try {
    return { ok: true, pattern: { source, re2: RE2JS.compile(source) } };
  } catch (error: unknown) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `invalid regex ${JSON.stringify(source)}: ${why}` };
  }
}

/**
 * Go `MatchString` semantics: true when the pattern matches anywhere in `text`, judged on the raw text
 * (no trimming, no normalisation of line endings).
 */
export function searchPattern(pattern: Pattern, text: string): boolean {
  return pattern.re2.test(text);
}
