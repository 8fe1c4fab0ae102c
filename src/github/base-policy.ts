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

export interface BaseRefPolicyTarget {
  readonly owner: string;
  readonly repo: string;
  /** The base branch's name (`pull_request.base.ref`). */
  readonly ref: string;
  /** `pull_request.base.sha`: read at this commit when given, else at `ref`. */
  readonly sha?: string;
}

/** Reads and parses the policy file at the base ref. Throws {@link PolicyReadError} for anything but 404. */
export async function readBaseRefPolicy(
  octokit: GateOctokit,
  target: BaseRefPolicyTarget,
): Promise<BaseRefPolicy> {
  const sha = target.sha !== undefined && target.sha !== "" ? target.sha : undefined;
  const source: PolicySource = { kind: "base-ref", ref: target.ref, ...(sha !== undefined ? { sha } : {}) };
  const where = describePolicySource(source);
  let data: unknown;
  try {
    const response = await octokit.rest.repos.getContent({
      owner: target.owner,
      repo: target.repo,
      path: POLICY_FILE,
      ref: sha ?? target.ref,
    });
    data = response.data;
  } catch (error) {
    const status = statusOf(error);
    if (status === 404)
      return { result: { ok: true, policy: DEFAULT_POLICY, source: { kind: "none" } }, bytes: null };
    const detail = error instanceof Error ? error.message : String(error);
    const permission =
      status === 401 || status === 403
        ? " The workflow's token needs `contents: read` to read the maintainers' policy file."
        : "";
    throw new PolicyReadError(
      `could not read ${where} through the API (${status === null ? "no answer" : `HTTP ${status}`}: ${detail}).${permission} The run does not start without the policy it could not read.`,
      status,
    );
  }
  const fail = (error: string): BaseRefPolicy => ({
    result: { ok: false, errors: [`${where}: ${error}`], source },
    bytes: null,
  });
  if (Array.isArray(data)) return fail("the path is a folder, not a file");
  const file = data as { type?: unknown; size?: unknown; encoding?: unknown; content?: unknown };
  if (file.type !== "file") return fail(`the path is a ${String(file.type)}, not a regular file`);
  if (typeof file.size === "number" && file.size > POLICY_FILE_MAX_BYTES) {
    return fail(
      `the file is ${file.size} bytes; a policy file may be at most ${POLICY_FILE_MAX_BYTES} bytes`,
    );
  }
  if (file.encoding !== "base64" || typeof file.content !== "string") {
    return fail(`the API did not return the file's content (encoding ${String(file.encoding)})`);
  }
  const bytes = Buffer.from(file.content.replace(/\s+/g, ""), "base64");
  return { result: parsePolicyFile(bytes, source), bytes };
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

function statusOf(error: unknown): number | null {
  if (typeof error !== "object" || error === null) return null;
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" ? status : null;
}
