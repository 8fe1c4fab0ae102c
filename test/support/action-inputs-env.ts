/**
 * The action's inputs as the runner hands them over (any tier: no process is started): `action.yml`'s
 * defaults, and `INPUT_<NAME>` variables (upper-cased, spaces to `_`, dashes kept). Shared by the bundled
 * action's harness (`action-harness.ts`) and the in-process tests of the modes, which read them with the
 * product's `readActionInputs`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "./repo-root.js";

/**
 * `action.yml`'s inputs with their defaults, as the runner reads them; `${{ github.token }}` (the default of
 * `github-token`) is evaluated to `token`, the job's token.
 */
export function actionInputDefaults(token: string): Record<string, string> {
  const manifest = parseYaml(readFileSync(join(REPO_ROOT, "action.yml"), "utf8")) as {
    inputs: Record<string, { default?: unknown }>;
  };
  const defaults: Record<string, string> = {};
  for (const [name, spec] of Object.entries(manifest.inputs)) {
    if (spec.default === undefined) continue;
    defaults[name] = String(spec.default).replace(/\$\{\{\s*github\.token\s*\}\}/, token);
  }
  return defaults;
}

/** The runner's variable name for an input: upper-cased, spaces to `_`, dashes kept. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

/** `inputs` over `action.yml`'s defaults, as the `INPUT_<NAME>` variables the runner sets. */
export function inputEnv(token: string, inputs: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...actionInputDefaults(token), ...inputs }).map(([name, value]) => [
      inputVariable(name),
      value,
    ]),
  );
}
