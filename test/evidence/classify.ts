/** Shared by the verify-definition tests: the classifier with `npm test` at the root and nothing else known. */
import type { ChangedFile } from "../../src/core/changed-files-record.js";
import {
  classifyVerifyDefinition,
  type VerifyDefinitionInput,
} from "../../src/evidence/verify-definition.js";

/** `classifyVerifyDefinition` on `fields`, the rest defaulted: no package.json read, `npm test`, no diff lines. */
export function classify(fields: Partial<VerifyDefinitionInput> & { changes: readonly ChangedFile[] }) {
  return classifyVerifyDefinition({
    packageJsons: new Map(),
    verifyCommands: [{ command: "npm test", cwd: "" }],
    addedLines: new Map(),
    ...fields,
  });
}

/** A change of `path` with status `modified`. */
export const modified = (path: string): ChangedFile => ({ path, status: "modified" });
