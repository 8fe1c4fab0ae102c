/**
 * Which verify command a run carries, decided once for every surface and mode (SPEC §5, §10, §11): the
 * operator's (input `verify-cmd`, flag `--verify-cmd`), else the maintainers' policy file's `verify-cmd`
 * (recorded `declared_by: policy`) — unless the operator accepted running without build evidence, when the
 * policy's default is not used. A command that runs nothing (blank, or only `#` comments) would pass every
 * time: it is a usage error naming where it came from, never a command.
 *
 * `auto` (build evidence), `verify` and the verify-only fallback of a pull request without a model
 * credential all take their command from here; nothing else reads `verify-cmd` from a policy file.
 */
import { verifyCommandRunsNothing } from "../graph/verify-runs-nothing.js";
import { POLICY_FILE } from "../policy/policy-file.js";

/** Which surface the messages are for: input spellings differ (`verify-cmd:` vs `--verify-cmd`). */
export type Surface = "action" | "cli";

/** A chosen verify command and who declared it (recorded in `state.json`, SPEC §5 table). */
export interface ChosenVerify {
  readonly command: string;
  readonly declaredBy: "input" | "policy";
}

/**
 * The choice: a command, none at all, or a usage error (an empty command from the input or the policy).
 * The usage error is data, not a throw: a surface reports it where it reports every usage error (the CLI
 * after its check run opened, the action on the pull request's check run).
 */
export type VerifyChoice =
  | ({ readonly kind: "chosen" } & ChosenVerify)
  | { readonly kind: "none" }
  | { readonly kind: "empty"; readonly message: string };

export interface VerifyChoiceInputs {
  /** The operator's command; `undefined` when not given (an unset action input is `undefined`, not `""`). */
  readonly given?: string;
  /** `accept-no-build-evidence`: the policy's default command is then not used (SPEC §5 table). */
  readonly acceptNoBuildEvidence: boolean;
  /** The policy file's `verify-cmd` and where the file was read (`describePolicySource`). */
  readonly policy?: { readonly verifyCmd?: string; readonly source?: string };
  readonly surface: Surface;
}

/** The flag or input that names the operator's command on `surface`. */
export function verifyCmdName(surface: Surface): string {
  return surface === "action" ? "verify-cmd" : "--verify-cmd";
}

/**
 * The usage error for a verify command that runs nothing (`verifyCommandRunsNothing`), naming where it
 * came from — the input / flag, or the policy file — or `null` when it runs something.
 */
export function emptyVerifyCommandProblem(
  command: string,
  o: { readonly surface: Surface; readonly declaredBy: "input" | "policy"; readonly policySource?: string },
): string | null {
  if (!verifyCommandRunsNothing(command)) return null;
  const name = verifyCmdName(o.surface);
  return o.declaredBy === "input"
    ? `${name} is empty (blank, or only # comments): it exits 0 and would pass every time. ` +
        `Give the command that builds and tests this repository, or leave ${name} out.`
    : `The policy file ${o.policySource ?? POLICY_FILE} sets an empty verify-cmd (blank, or only # comments), which would pass every time: ` +
        `fix the policy file, or give ${name}.`;
}

/** Chooses the run's verify command (see the module comment). Pure. */
export function chooseVerifyCommand(o: VerifyChoiceInputs): VerifyChoice {
  if (o.given !== undefined) {
    const empty = emptyVerifyCommandProblem(o.given, { surface: o.surface, declaredBy: "input" });
    return empty !== null
      ? { kind: "empty", message: empty }
      : { kind: "chosen", command: o.given, declaredBy: "input" };
  }
  const fromPolicy = o.policy?.verifyCmd;
  if (fromPolicy === undefined || o.acceptNoBuildEvidence) return { kind: "none" };
  const empty = emptyVerifyCommandProblem(fromPolicy, {
    surface: o.surface,
    declaredBy: "policy",
    ...(o.policy?.source !== undefined ? { policySource: o.policy.source } : {}),
  });
  return empty !== null
    ? { kind: "empty", message: empty }
    : { kind: "chosen", command: fromPolicy, declaredBy: "policy" };
}
