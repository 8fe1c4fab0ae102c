/**
 * The goal loop's two operator values (SPEC §7; issue 13 item 7), read the same way by every surface:
 * `max-cycles` / `--max-cycles` (how many `auto` runs one goal may take) and `max-cost-usd` /
 * `--max-cost-usd` (the soft ceiling checked between cycles).
 */

/** The most cycles a run may ask for: each one is a full planned run plus an assessor call. */
export const MAX_CYCLES = 5;

/**
 * `max-cycles` / `--max-cycles`: absent = 1 (one run, no assessor: the behaviour without the loop); else an
 * integer from 1 to {@link MAX_CYCLES}, or a problem naming `name` pushed onto `errors` (and 1 returned).
 */
export function readMaxCycles(text: string | undefined, name: string, errors: string[]): number {
  if (text === undefined || text.trim() === "") return 1;
  const t = text.trim();
  const n = Number(t);
  if (/^\d+$/.test(t) && n >= 1 && n <= MAX_CYCLES) return n;
  errors.push(
    `${name} is ${JSON.stringify(text)}: give a whole number from 1 (one run, the default) to ${MAX_CYCLES}, the runs one goal may take`,
  );
  return 1;
}

/**
 * `max-cost-usd` / `--max-cost-usd`: absent = no ceiling; else a positive number of US dollars, or a
 * problem naming `name` pushed onto `errors` (and `undefined` returned). Only meaningful with more than
 * one cycle: the caller refuses it with `max-cycles` 1.
 */
export function readMaxCostUsd(text: string | undefined, name: string, errors: string[]): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const t = text.trim();
  const n = Number(t);
  if (/^\d+(\.\d+)?$/.test(t) && Number.isFinite(n) && n > 0) return n;
  errors.push(`${name} is ${JSON.stringify(text)}: give a positive amount of US dollars, e.g. 2.50`);
  return undefined;
}

/**
 * Both values at once, as each surface reads them: `names` are how the surface spells them in messages
 * (`--max-cycles` / ``input `max-cycles` ``). A ceiling with one cycle is refused (it would never be
 * checked). Problems are pushed onto `errors`.
 */
export function readGoalLoop(
  given: { readonly maxCycles: string | undefined; readonly maxCostUsd: string | undefined },
  names: { readonly maxCycles: string; readonly maxCostUsd: string; readonly refusal: string },
  errors: string[],
): { readonly maxCycles: number; readonly maxCostUsd?: number } {
  const maxCycles = readMaxCycles(given.maxCycles, names.maxCycles, errors);
  const maxCostUsd = readMaxCostUsd(given.maxCostUsd, names.maxCostUsd, errors);
  if (maxCostUsd !== undefined && maxCycles === 1) errors.push(names.refusal);
  return { maxCycles, ...(maxCostUsd !== undefined ? { maxCostUsd } : {}) };
}
