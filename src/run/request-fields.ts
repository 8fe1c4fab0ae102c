/**
 * Values that the CLI's flags and the action's inputs both carry, read one way (SPEC §9, §11) so the two
 * surfaces cannot drift: each reader takes the raw text and the name to quote in messages (`--verify-env`,
 * ``input `verify-env` ``), and pushes every problem onto `errors`.
 */
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
