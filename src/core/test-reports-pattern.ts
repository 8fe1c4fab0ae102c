/**
 * The rule for a `test-reports` entry (policy key and CLI flag, issue 25): the glob patterns of the test
 * report files a verify command writes, matched in `evidence/test-report-files.ts`. In `core` because the
 * policy file checks it when it is read and the evidence folder applies it.
 */

/**
 * Why `pattern` cannot be a `test-reports` entry, or `null` when it can: it must be relative, stay
 * inside the command's directory (no `..` segment) and not be blank. Wildcards: `*`, `?` and `**`.
 */
export function testReportsPatternProblem(pattern: string): string | null {
  const trimmed = pattern.trim();
  if (trimmed === "") return "a test-reports entry is blank";
  if (trimmed.startsWith("/") || /^[A-Za-z]:[\\/]/.test(trimmed)) {
    return `test-reports entry ${JSON.stringify(pattern)} is absolute: give a path relative to the verify command's directory (e.g. reports/*.xml)`;
  }
  if (trimmed.split("/").includes("..")) {
    return `test-reports entry ${JSON.stringify(pattern)} leaves the verify command's directory (..): name a folder inside it`;
  }
  return null;
}
