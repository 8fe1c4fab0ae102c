/**
 * The graph of the completion-gate tests (SPEC §7), shared by the port tier (./completion-gate.test.ts)
 * and the real-CLI tier (./completion-gate.real-cli.test.ts).
 */

/** The one-line reason of a failed check of {@link gatedGraph}. */
export const REASON = "`cat step.txt; grep -qx three step.txt` exited 1 (expected 0)";

/** A node whose completion command passes once `step.txt` says `three`; its output is the file. */
export function gatedGraph(o: { readonly maxAttempts: number; readonly extra?: string }): string {
  return [
    "nodes:",
    "  - id: work",
    "    prompt: CG-TASK write the step file",
    "    allowed_tools: [Bash]",
    ...(o.extra !== undefined ? [`    ${o.extra}`] : []),
    "    completion:",
    `      verify: { command: "cat step.txt; grep -qx three step.txt" }`,
    `      max_attempts: ${o.maxAttempts}`,
    "",
  ].join("\n");
}
