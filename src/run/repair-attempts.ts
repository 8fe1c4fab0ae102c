/**
 * The `repair-attempts` action input and `--repair-attempts` flag (SPEC §7, §11; issue 13 item 5), read
 * the same way by both surfaces: how many times `auto` feeds a sink's failing build back into its session.
 */

/**
 * `repair-attempts` / `--repair-attempts` (SPEC §7): absent = 0 (off); else an integer from 0 to
 * {@link MAX_REPAIR_ATTEMPTS}, or a problem naming `name` pushed onto `errors` (and 0 returned).
 */
export function readRepairAttempts(text: string | undefined, name: string, errors: string[]): number {
  if (text === undefined || text.trim() === "") return 0;
  const n = Number(text.trim());
  if (/^\d+$/.test(text.trim()) && n <= MAX_REPAIR_ATTEMPTS) return n;
  errors.push(
    `${name} is ${JSON.stringify(text)}: give a whole number from 0 (off) to ${MAX_REPAIR_ATTEMPTS}, the times a failing build is fed back to a sink`,
  );
  return 0;
}

/** The most `repair-attempts` a run may ask for: each one is a paid model turn per sink. */
export const MAX_REPAIR_ATTEMPTS = 10;
