/**
 * Go `time.ParseDuration` for graph timeouts (SPEC §3: "`timeout` (Go duration syntax `90s`, `45m`,
 * `1h30m`)"), so a graph written for the Go CLI means the same thing here.
 *
 * Grammar (Go's): an optional sign, then one or more `<number><unit>` terms, where a number is decimal
 * digits with an optional fraction (`1.5`, `.5`, `1.`) and a unit is one of `ns`, `us`, `µs`, `μs`, `ms`,
 * `s`, `m`, `h`. The bare string `0` is the only term allowed without a unit. Terms may repeat and come in
 * any order (`1h30m`, `30m1h`). No spaces. Sub-nanosecond fractions are truncated, as in Go.
 */

/** Outcome of {@link parseDuration}: milliseconds (possibly fractional below 1 ms), or why not. */
export type DurationResult =
  | { readonly ok: true; readonly ms: number }
  | { readonly ok: false; readonly message: string };

/** Examples quoted in every error, so the fix needs no trip to the docs. */
export const DURATION_EXAMPLES = "90s, 45m, 1h30m, 1.5h, 500ms";

const NS_PER_UNIT: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["µs", 1_000n], // U+00B5 micro sign
  ["μs", 1_000n], // U+03BC Greek small mu
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

// Go durations are int64 nanoseconds; anything larger is an overflow error there, so it is one here.
const MAX_NS = 2n ** 63n - 1n;

const TERM = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/**
 * Parses a Go duration string into milliseconds.
 *
 * @param text the duration as written, e.g. `"1h30m"` → `{ok: true, ms: 5_400_000}`; `"0"` → `0`;
 *   `"-5m"` → `-300_000` (callers that need a positive bound say so themselves).
 * @returns `{ok: false, message}` naming the bad value and listing valid examples, e.g.
 *   `invalid duration "5 minutes": unknown unit " minutes" (want a Go duration like 90s, …)`.
 */
export function parseDuration(text: string): DurationResult {
  const fail = (why: string): DurationResult => ({
    ok: false,
    message: `invalid duration ${JSON.stringify(text)}: ${why} (want a Go duration like ${DURATION_EXAMPLES})`,
  });

  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return { ok: true, ms: 0 };
  if (rest === "") return fail("empty");

  let totalNs = 0n;
  while (rest !== "") {
    const term = TERM.exec(rest);
    if (term === null) {
      return fail(/^[\d.]+$/.test(rest) ? `missing unit after "${rest}"` : `cannot read "${rest}"`);
    }
    // The unit runs to the next digit or dot, exactly the span Go's parser consumes.
    const [whole, intDigits = "", fracDigits, unit = ""] = term;
    if (intDigits === "" && (fracDigits === undefined || fracDigits === "")) {
      return fail(`"${whole}" has no number`);
    }
    const unitNs = NS_PER_UNIT.get(unit);
    if (unitNs === undefined) return fail(`unknown unit "${unit}"`);

    let termNs = BigInt(intDigits === "" ? "0" : intDigits) * unitNs;
    if (fracDigits !== undefined && fracDigits !== "") {
      termNs += (BigInt(fracDigits) * unitNs) / 10n ** BigInt(fracDigits.length);
    }
    totalNs += termNs;
    if (totalNs > MAX_NS) return fail("too large (over about 292 years)");
    rest = rest.slice(whole.length);
  }

  const ms = Number(totalNs) / 1_000_000;
  return { ok: true, ms: negative ? -ms : ms };
}

/**
 * Renders milliseconds as a Go duration that {@link parseDuration} reads back to the same value, for
 * messages: `600_000` → `"10m"`, `5_400_000` → `"1h30m"`, `1_500` → `"1s500ms"`, `0` → `"0"`.
 * Sub-millisecond remainders are dropped.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? "-" : "";
  let rest = Math.floor(Math.abs(ms));
  if (rest === 0) return "0";
  const parts: string[] = [];
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
    ["ms", 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return sign + parts.join("");
}
