/**
 * The action's policy: `.github/evidence-gate.yml` read from the pull request's **base** ref through the
 * contents API (SPEC §9: policy comes from the base branch, code from the head), so a pull request cannot
 * loosen its own gate. 404 means there is no policy file; any other failure is an error the caller must
 * not run past (a run without the policy it could not read is not the run the maintainers configured).
 */
import {
  DEFAULT_POLICY,
  describePolicySource,
  POLICY_FILE,
  POLICY_FILE_MAX_BYTES,
  type PolicyFileResult,
  type PolicySource,
  parsePolicyFile,
  readBounded,
  workingTreePolicyPath,
} from "../policy/policy-file.js";
import {
  type BaseRefFile,
  BaseRefReadError,
  type BaseRefTarget,
  readBaseRefFile,
  unusableReason,
} from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

/** The policy file could not be read from the base ref (not a 404). */
export class PolicyReadError extends Error {
  override readonly name = "PolicyReadError";
  constructor(
    message: string,
    /** The HTTP status, `null` when there was no answer. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface BaseRefPolicy {
  readonly result: PolicyFileResult;
  /** The file's bytes at the base ref, `null` when it has none (compared with the PR's copy). */
  readonly bytes: Buffer | null;
}

/** Where the policy is read: the repository and its base ref (see {@link BaseRefTarget}). */
export type BaseRefPolicyTarget = BaseRefTarget;

/** Reads and parses the policy file at the base ref. Throws {@link PolicyReadError} for anything but 404. */
export async function readBaseRefPolicy(
  octokit: GateOctokit,
  target: BaseRefPolicyTarget,
): Promise<BaseRefPolicy> {
  const sha = target.sha !== undefined && target.sha !== "" ? target.sha : undefined;
  const source: PolicySource = { kind: "base-ref", ref: target.ref, ...(sha !== undefined ? { sha } : {}) };
  const where = describePolicySource(source);
  let file: BaseRefFile;
  try {
    file = await readBaseRefFile(octokit, target, POLICY_FILE, { maxBytes: POLICY_FILE_MAX_BYTES });
  } catch (error) {
    if (!(error instanceof BaseRefReadError)) throw error;
    const { status } = error;
    const permission =
      status === 401 || status === 403
        ? " The workflow's token needs `contents: read` to read the maintainers' policy file."
        : "";
    throw new PolicyReadError(
      `could not read ${where} through the API (${status === null ? "no answer" : `HTTP ${status}`}: ${error.message}).${permission} The run does not start without the policy it could not read.`,
      status,
    );
  }
  if (file.kind === "missing")
    return { result: { ok: true, policy: DEFAULT_POLICY, source: { kind: "none" } }, bytes: null };
  if (file.kind !== "file") {
    const reason = unusableReason(file, { maxBytes: POLICY_FILE_MAX_BYTES, noun: "a policy file" });
    return { result: { ok: false, errors: [`${where}: ${reason}`], source }, bytes: null };
  }
  return { result: parsePolicyFile(file.bytes, source), bytes: file.bytes };
}

/**
 * What to tell the pull request when its checkout's copy of the policy file differs from the base ref's:
 * that copy is never read for its values, only compared byte for byte. `null` when they agree.
 */
export async function prCopyNote(workspace: string, base: BaseRefPolicy): Promise<string | null> {
  let prCopy: Buffer | null;
  try {
    prCopy = await readBounded(workingTreePolicyPath(workspace));
  } catch {
    // Something other than a file sits there (a folder, say): it differs, and it is ignored either way.
    prCopy = Buffer.from([0]);
  }
  if (prCopy === null && base.bytes === null) return null;
  if (prCopy !== null && base.bytes !== null && prCopy.equals(base.bytes)) return null;
  const baseWords =
    base.result.source.kind === "base-ref" ? describePolicySource(base.result.source) : undefined;
  if (prCopy === null) {
    return `This pull request's checkout has no ${POLICY_FILE}; the policy still comes from ${baseWords ?? "the base ref"}.`;
  }
  if (base.bytes === null) {
    return `This pull request's copy of ${POLICY_FILE} was ignored: the policy comes from the base ref, which has no policy file, so the defaults apply. A change to the policy takes effect once it is merged.`;
  }
  return `This pull request's copy of ${POLICY_FILE} differs from the base ref's and was ignored: the policy comes from ${baseWords ?? "the base ref"}. A change to the policy takes effect once it is merged.`;
}
