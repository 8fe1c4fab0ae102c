/** The CLI's version, kept equal to package.json's by `test/cli/version.test.ts`. */
export const VERSION = "0.1.0";
