/**
 * The changed-files record of a run (SPEC §6): the files the nodes changed — the starting commit's tree
 * against the working tree the run ended with — and which of those changes touch what defines the verify
 * command (`evidence/verify-definition.ts` decides; the conclusion's rule `verify-definition-changed` reads
 * it). Written by the engine at the end of a run, kept in `ledger.json`, rendered by every ledger renderer.
 */

/** How one path changed between the starting tree and the final tree (git's `A`, `M`/`T`, `D`, `R`). */
export type ChangeStatus = "added" | "modified" | "deleted" | "renamed";

/** One changed path, relative to the repository root, `/`-separated. */
export interface ChangedFile {
  /** The path in the final tree; for `deleted`, the path it had in the starting tree. */
  readonly path: string;
  readonly status: ChangeStatus;
  /** With `renamed`: the path in the starting tree. */
  readonly from?: string;
}

/** Which rule of `evidence/verify-definition.ts` flagged a change. */
export type VerifyDefinitionKind =
  /** A `package.json`'s `scripts`, or its test-runner configuration keys (`jest`, `mocha`, …). */
  | "package-scripts"
  /** A build or test-runner definition file (`Makefile`, `vitest.config.ts`, `tox.ini`, …). */
  | "definition-file"
  /** A file the verify command names (`./scripts/ci.sh`, `bash test.sh`). */
  | "named-by-verify"
  /** A test file deleted, or renamed (the runner may no longer find it). */
  | "test-file-removed"
  /** A skip / only marker (`.skip(`, `.only(`, `@pytest.mark.skip`, …) in a test file's added lines. */
  | "skip-marker"
  /** Lines of a test file of the starting tree changed or removed (an assertion rewritten, a test guarded). */
  | "test-lines-changed"
  /** The maintainers' policy file (`.github/evidence-gate.yml`). */
  | "policy-file"
  /**
   * What the tests compare against: a file of the starting tree under a test-data folder (`fixtures/`,
   * `testdata/`, `__snapshots__/`, …), a snapshot or golden file (`*.snap`, `*.golden`, `*.approved.*`), or
   * a data (non-code) file under a test folder — changed in any way.
   */
  | "test-data"
  /** A data (non-code) file of the starting tree that a test file names in a string literal, changed. */
  | "named-by-test";

/** One change that touches what the verify command runs. */
export interface VerifyDefinitionChange {
  /** The path as in {@link ChangedFile.path}. */
  readonly path: string;
  readonly kind: VerifyDefinitionKind;
  /** What changed, plain text: "scripts.test changed", "a build definition file", "deleted". */
  readonly detail: string;
  /** For `package-scripts`: the keys that differ (`scripts.test`, `jest`); absent otherwise. */
  readonly keys?: readonly string[];
}

/** Most entries kept in {@link ChangedFiles.files} (the rest are counted in `total`). */
export const MAX_CHANGED_FILES_KEPT = 200;
/** Most entries kept in {@link ChangedFiles.verifyDefinition} (the rest are counted in `flaggedTotal`). */
export const MAX_FLAGGED_KEPT = 100;

/** The files the nodes changed, bounded, with the changes that touch the verify command's definition. */
export interface ChangedFiles {
  /** How many paths changed in all (a rename counts once). */
  readonly total: number;
  readonly counts: { readonly [S in ChangeStatus]: number };
  /** The first {@link MAX_CHANGED_FILES_KEPT} changes, in path order. */
  readonly files: readonly ChangedFile[];
  /** The changes that touch what defines the verify command, at most {@link MAX_FLAGGED_KEPT}; `[]`: none. */
  readonly verifyDefinition: readonly VerifyDefinitionChange[];
  /** How many such changes there are in all (≥ `verifyDefinition.length`). */
  readonly flaggedTotal: number;
}
