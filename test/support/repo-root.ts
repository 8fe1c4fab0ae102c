/** The repository's root folder (absolute), for tests that read its files (a pure constant; any tier). */
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
