/**
 * True when the command does nothing: blank, or only shell comments (`# npm test`) — either exits 0 and
 * would pass every time. The one check every verify command meets before it may count as evidence: the
 * inputs and flags of `auto` and `verify` (CLI and action), the policy file's `verify-cmd`, and a graph's
 * `success_check` / `completion` verify.
 */
export function verifyCommandRunsNothing(text: string): boolean {
  return text
    .split("\n")
    .map((line) => line.trim())
    .every((line) => line === "" || line.startsWith("#"));
}
