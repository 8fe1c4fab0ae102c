import { randomBytes } from "node:crypto";

/** A run id: `YYYYMMDD-HHMMSS-<6 hex>` in UTC (SPEC §11). */
export type RunId = string & { readonly __brand: "RunId" };

/** Mints a new run id from `now` (default: the current time). */
export function mintRunId(now: Date = new Date()): RunId {
  const p = (n: number): string => String(n).padStart(2, "0");
  const date = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
  const time = `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(3).toString("hex")}` as RunId;
}

/** True when `value` has the run id format. */
export function isRunId(value: string): value is RunId {
  return /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(value);
}
