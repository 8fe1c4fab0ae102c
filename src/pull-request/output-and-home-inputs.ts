/**
 * Two inputs of the separate user's surroundings (issue 21 items 3 and 5), read here because their rules
 * belong to `proc/` (which the action's entry may not import): `pr-user-cache` names shared caches
 * (`proc/run-home.ts`), `output-log-limit` bounds each child's output in the step log
 * (`proc/echo-budget.ts`). Each problem is pushed onto `errors`, naming the input and the fix.
 */
import { DEFAULT_LOG_LIMIT_BYTES, LOG_LIMIT_RANGE } from "../proc/echo-budget.js";
import { SHARED_CACHES, type SharedCache } from "../proc/run-home.js";

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  byte: 1,
  bytes: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * Input `output-log-limit`: a whole number of bytes, or of KiB / MiB / GiB (`512KiB`, `2M`, `1 GiB`; binary
 * units, case-insensitive), from 1 KiB to 1 GiB; empty: {@link DEFAULT_LOG_LIMIT_BYTES} (2 MiB).
 */
export function readOutputLogLimit(text: string | undefined, errors: string[]): number {
  if (text === undefined) return DEFAULT_LOG_LIMIT_BYTES;
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match !== null ? UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match !== null && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (Number.isSafeInteger(bytes) && bytes >= LOG_LIMIT_RANGE.min && bytes <= LOG_LIMIT_RANGE.max)
    return bytes;
  errors.push(
    `input \`output-log-limit\` is ${JSON.stringify(text)}: give a size from 1KiB to 1GiB, e.g. 2MiB (the default), 512KiB or 1048576 (bytes)`,
  );
  return DEFAULT_LOG_LIMIT_BYTES;
}

/**
 * Input `pr-user-cache`: names of shared caches (`npm`, `pip`), separated by spaces, commas or lines;
 * empty (the default): none, every cache is fresh per run.
 */
export function readPrUserCache(text: string | undefined, errors: string[]): SharedCache[] {
  const names = (text ?? "").split(/[\s,]+/).filter((name) => name !== "");
  const known = Object.keys(SHARED_CACHES) as SharedCache[];
  const caches: SharedCache[] = [];
  for (const name of names) {
    const found = known.find((k) => k === name.toLowerCase());
    if (found === undefined)
      errors.push(
        `input \`pr-user-cache\` names ${JSON.stringify(name)}: give ${known.join(" or ")} (a cache kept between runs for the separate user), or leave it empty`,
      );
    else if (!caches.includes(found)) caches.push(found);
  }
  return caches;
}
