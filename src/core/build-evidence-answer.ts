/**
 * The build-evidence answer of one run (SPEC §5 table), recorded in `state.json` and named in the plan
 * section of the ledger.
 *
 * - `attached`: a verify command was given (workflow/CLI, or the base-branch policy file) and trusted code
 *   attached it to every non-gate sink.
 * - `declared`: build signals were found and the operator said `accept-no-build-evidence`.
 * - `none-detected`: no build signal and no verify command.
 * - `graph`: a hand-written `run` — no refusal applies; the graph's own verify commands
 *   (`success_check.verify`, or a `completion.verify` command) are the evidence (SPEC §5: "`run` trusts
 *   the graph's own `verify` fields"). Lists which non-gate sinks carry one and which do not.
 */
export type BuildEvidenceAnswer =
  | { readonly kind: "attached"; readonly command: string; readonly declaredBy: "input" | "policy" }
  | { readonly kind: "declared"; readonly signals: readonly BuildSignal[] }
  | { readonly kind: "none-detected" }
  | {
      readonly kind: "graph";
      readonly verifiedSinks: readonly string[];
      readonly unverifiedSinks: readonly string[];
    };

/** One file at the checked-out root that says "this repository builds" (SPEC §5). */
export interface BuildSignal {
  /** Path relative to the scanned directory, e.g. `package.json` or `app/App.csproj`. */
  readonly file: string;
  /** Ecosystem name shown to users, e.g. `Node.js (npm)`, `Gradle`, `Cargo`. */
  readonly ecosystem: string;
  /** Suggested verify command, e.g. `npm test`. */
  readonly suggestion: string;
}
