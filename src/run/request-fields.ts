/**
 * Values that the CLI's flags and the action's inputs both carry, read one way (SPEC §9, §11) so the two
 * surfaces cannot drift: each reader takes the raw text and the name to quote in messages (`--verify-env`,
 * ``input `verify-env` ``), and pushes every problem onto `errors`.
 */
import { MAX_VERIFY_REPEAT } from "../core/ledger-row.js";
import { verifyEnvProblems } from "../proc/child-env.js";

/**
 * `verify-env`: the variable names a build needs passed through to verify commands. The CLI separates them
 * with commas (`--verify-env A,B`), the action with commas or white space (a YAML block). A name that would
 * hand PR code a credential is refused (SPEC §9: the model credential and the GitHub token never reach it).
 */
export function readVerifyEnv(
  text: string | undefined,
  o: { readonly label: string; readonly separators: RegExp },
  errors: string[],
): string[] {
  const names = (text ?? "")
    .split(o.separators)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  errors.push(...verifyEnvProblems(names, o.label));
  return names;
}

/**
 * `verify-repeat` as the input or flag gives it (issue 25 item 5): a whole number from 1 to
 * {@link MAX_VERIFY_REPEAT}, how many times each verify command runs on the same tree. `undefined` when
 * not given (blank) or wrong — a wrong value pushes one error naming `label` and the fix onto `errors`.
 */
export function readVerifyRepeat(
  text: string | undefined,
  label: string,
  errors: string[],
): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (Number.isInteger(n) && n >= 1 && n <= MAX_VERIFY_REPEAT) return n;
  errors.push(
    `${label} ${JSON.stringify(text)}: give a whole number from 1 to ${MAX_VERIFY_REPEAT} (how many times each verify command runs on the same tree)`,
  );
  return undefined;
}
