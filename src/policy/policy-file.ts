/**
 * The maintainers' policy file `.github/evidence-gate.yml` (SPEC §5, §9, §11). In the action it is read
 * from the **base** ref through the API (a pull request cannot loosen its own gate); in the CLI from the
 * working tree. It is the one repository file that may widen anything: a default verify command, scoped
 * planned-node grants (checked by {@link extendAllowlist}), `require-evidence: true`, `require-tests: true`
 * (ADR 0016: a verify is evidence only when a test runner shows a test ran) and `test-reports` (the report
 * files the verify command writes, read for its test receipt).
 *
 * A policy file that exists is applied whole or not at all: a malformed one is a usage error (fail closed),
 * never silently ignored. Reading is bounded ({@link POLICY_FILE_MAX_BYTES}).
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import { MAX_VERIFY_REPEAT } from "../core/ledger-row.js";
import { testReportsPatternProblem } from "../core/test-reports-pattern.js";
import { unreachable } from "../core/unreachable.js";
import { DEFAULT_PLANNED_ALLOWLIST, extendAllowlist } from "./allowlist.js";

/** Where the maintainers' policy file lives, relative to the repository root (SPEC §11). */
export const POLICY_FILE = ".github/evidence-gate.yml";

/** Files over this size are refused unread (a policy file is a handful of lines). */
export const POLICY_FILE_MAX_BYTES = 64 * 1024;

/** The keys of the policy file, in the order the README documents them. */
export const POLICY_KEYS = [
  "require-evidence",
  "verify-cmd",
  "planned-tools",
  "allowed-bots",
  "comment-commands",
  "verify-repeat",
  "require-tests",
  "test-reports",
  "verify-base",
] as const;

/** The policy's values; defaults filled in. */
export interface Policy {
  /** `true`: every run without engine-run evidence fails, and accepting no evidence is a usage error. */
  readonly requireEvidence: boolean;
  /** The default verify command (used when the workflow gives none and does not accept). */
  readonly verifyCmd?: string;
  /** Extra scoped planned-node grants, already checked by {@link extendAllowlist}. */
  readonly plannedTools: readonly string[];
  /** Bot logins allowed to trigger runs. */
  readonly allowedBots: readonly string[];
  /** Whether `/evidence-gate run` comment commands are accepted (default true). */
  readonly commentCommands: boolean;
  /**
   * `verify-repeat`: every verify command runs this many times (1–{@link MAX_VERIFY_REPEAT}) and mixed
   * results are flaky, not green (issue 25 item 5). A floor: a workflow input or flag may ask for more,
   * never fewer. Absent: once.
   */
  readonly verifyRepeat?: number;
  /**
   * `true`: a sink's verify is evidence only with a test receipt that ran at least one test; without one
   * (a build-only command, an unrecognised runner) or with none run, the run fails (ADR 0016).
   */
  readonly requireTests: boolean;
  /** Glob patterns (relative to the verify command's directory) of the test reports it writes. */
  readonly testReports: readonly string[];
  /**
   * `verify-base: true`: every sink's verify also runs on the base commit and the two results are
   * classified together (issue 25 item 3; ADR 0017). A workflow cannot turn it off. Absent: as the workflow says.
   */
  readonly verifyBase?: boolean;
}

/** The policy when there is no policy file. */
export const DEFAULT_POLICY: Policy = Object.freeze({
  requireEvidence: false,
  plannedTools: Object.freeze([]) as readonly string[],
  allowedBots: Object.freeze([]) as readonly string[],
  commentCommands: true,
  requireTests: false,
  testReports: Object.freeze([]) as readonly string[],
});

/** Where the policy came from. */
export type PolicySource =
  /** Read through the API at the base ref (`ref` = the base branch's name, `sha` = the commit read). */
  | { readonly kind: "base-ref"; readonly ref: string; readonly sha?: string }
  /** Read from `path` in the working tree (the CLI). */
  | { readonly kind: "working-tree"; readonly path: string }
  /** No policy file: the defaults apply. */
  | { readonly kind: "none" };

export type PolicyFileResult =
  | { readonly ok: true; readonly policy: Policy; readonly source: PolicySource }
  | { readonly ok: false; readonly errors: readonly string[]; readonly source: PolicySource };

/**
 * The file and where it was read, for messages: `.github/evidence-gate.yml (base ref main, commit
 * 1a2b3c4)`, `.github/evidence-gate.yml (working tree)`, or `no .github/evidence-gate.yml`.
 */
export function describePolicySource(source: PolicySource): string {
  switch (source.kind) {
    case "base-ref":
      return `${POLICY_FILE} (base ref ${source.ref}${source.sha ? `, commit ${source.sha.slice(0, 7)}` : ""})`;
    case "working-tree":
      return `${POLICY_FILE} (working tree)`;
    case "none":
      return `no ${POLICY_FILE}`;
    default:
      return unreachable(source);
  }
}

const KNOWN_KEYS = `the known keys are ${POLICY_KEYS.join(", ")}`;

/** A short, quoted rendering of a YAML value for an error message. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "nothing (null)";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data";
  if (typeof value === "object") return "a mapping";
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 59)}…` : text}`;
}

const bool = (key: string, hint: string) =>
  z.boolean({ error: (issue) => `${key} must be true or false, got ${shown(issue.input)}${hint}` });

const stringList = (key: string) =>
  z.array(
    z
      .string({ error: (issue) => `every entry of ${key} must be a string, got ${shown(issue.input)}` })
      .refine((entry) => entry.trim().length > 0, { error: `${key} cannot hold an empty entry` }),
    { error: (issue) => `${key} must be a list of strings, got ${shown(issue.input)}` },
  );

const PolicyFileSchema = z.strictObject(
  {
    "require-evidence": bool(
      "require-evidence",
      " (YAML 1.2: yes/no/on/off are strings, not booleans)",
    ).optional(),
    "verify-cmd": z
      .string({ error: (issue) => `verify-cmd must be a command string, got ${shown(issue.input)}` })
      .refine((command) => command.trim().length > 0, {
        error: "verify-cmd is blank: a blank verify command exits 0 and would pass every time",
      })
      .optional(),
    "planned-tools": stringList("planned-tools").optional(),
    "allowed-bots": stringList("allowed-bots").optional(),
    "comment-commands": bool("comment-commands", "").optional(),
    "require-tests": bool("require-tests", " (YAML 1.2: yes/no/on/off are strings, not booleans)").optional(),
    "test-reports": stringList("test-reports")
      .superRefine((patterns, context) => {
        for (const pattern of patterns) {
          const problem = testReportsPatternProblem(pattern);
          if (problem !== null) context.addIssue({ code: "custom", message: problem });
        }
      })
      .optional(),
    "verify-base": bool("verify-base", " (YAML 1.2: yes/no/on/off are strings, not booleans)").optional(),
    "verify-repeat": z
      .number({ error: (issue) => `verify-repeat must be a whole number, got ${shown(issue.input)}` })
      .int({ error: (issue) => `verify-repeat must be a whole number, got ${shown(issue.input)}` })
      .min(1, { error: "verify-repeat must be at least 1 (1 = run once)" })
      .max(MAX_VERIFY_REPEAT, {
        error: `verify-repeat may be at most ${MAX_VERIFY_REPEAT} (each run is a full build)`,
      })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? undefined
        : `the file must hold a mapping of keys (${POLICY_KEYS.join(", ")}), got ${shown(issue.input)}`,
  },
);

/**
 * Parses the text (or bytes) of a policy file. Every problem is collected; each error starts with
 * {@link describePolicySource} so it names the file and where it was read. Pure.
 */
export function parsePolicyFile(content: string | Uint8Array, source: PolicySource): PolicyFileResult {
  const where = describePolicySource(source);
  const fail = (errors: readonly string[]): PolicyFileResult => ({
    ok: false,
    errors: errors.map((error) => `${where}: ${error}`),
    source,
  });
  const bytes = typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
  if (bytes > POLICY_FILE_MAX_BYTES) {
    return fail([`the file is ${bytes} bytes; a policy file may be at most ${POLICY_FILE_MAX_BYTES} bytes`]);
  }
  let text: string;
  if (typeof content === "string") {
    text = content;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      return fail(["the file is not valid UTF-8 text"]);
    }
  }
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (document.errors.length > 0) {
    return fail(document.errors.map((error) => `not valid YAML: ${yamlErrorWords(error)}`));
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return fail([`not valid YAML: ${error instanceof Error ? error.message : String(error)}`]);
  }
  // An empty file (or one holding only comments) is a policy with every default.
  if (data === null || data === undefined) data = {};
  const parsed = PolicyFileSchema.safeParse(data);
  if (!parsed.success) {
    const errors: string[] = [];
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) errors.push(`unknown key ${JSON.stringify(key)}: ${KNOWN_KEYS}`);
      } else {
        errors.push(issue.message);
      }
    }
    return fail(errors);
  }
  const values = parsed.data;
  const plannedTools = values["planned-tools"] ?? [];
  const extended = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, plannedTools);
  if (!extended.ok) {
    return fail(
      extended.refusals.map(
        (refusal) => `planned-tools entry ${JSON.stringify(refusal.entry)}: ${refusal.reason}`,
      ),
    );
  }
  const verifyCmd = values["verify-cmd"];
  return {
    ok: true,
    policy: {
      requireEvidence: values["require-evidence"] ?? false,
      ...(verifyCmd !== undefined ? { verifyCmd } : {}),
      plannedTools: Object.freeze([...plannedTools]),
      allowedBots: Object.freeze([...(values["allowed-bots"] ?? [])]),
      commentCommands: values["comment-commands"] ?? true,
      ...(values["verify-repeat"] !== undefined ? { verifyRepeat: values["verify-repeat"] } : {}),
      requireTests: values["require-tests"] ?? false,
      testReports: Object.freeze([...(values["test-reports"] ?? [])]),
      ...(values["verify-base"] === true ? { verifyBase: true } : {}),
    },
    source,
  };
}

function yamlErrorWords(error: { message: string }): string {
  // Pretty errors end their first line with "at line L, column C:" and then quote the source.
  return (error.message.split("\n")[0] ?? error.message).replace(/:$/, "");
}

/** The path of the policy file in a working tree. */
export function workingTreePolicyPath(repoDir: string): string {
  return join(repoDir, ...POLICY_FILE.split("/"));
}

/**
 * Reads at most `max + 1` bytes of a regular file; `null` when there is no file at `path`. Throws for a
 * path that exists but is not a regular file, and for read errors.
 */
export async function readBounded(path: string, max: number = POLICY_FILE_MAX_BYTES): Promise<Buffer | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return null;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
    const buffer = Buffer.alloc(max + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The CLI's policy: `<repoDir>/.github/evidence-gate.yml` in the working tree (SPEC §11). No file → the
 * defaults, source `none`. A file that cannot be read is an error like a malformed one.
 */
export async function readWorkingTreePolicy(repoDir: string): Promise<PolicyFileResult> {
  const path = workingTreePolicyPath(repoDir);
  const source: PolicySource = { kind: "working-tree", path };
  let bytes: Buffer | null;
  try {
    bytes = await readBounded(path);
  } catch (error) {
    return {
      ok: false,
      errors: [
        `${describePolicySource(source)}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
      ],
      source,
    };
  }
  if (bytes === null) return { ok: true, policy: DEFAULT_POLICY, source: { kind: "none" } };
  if (bytes.length > POLICY_FILE_MAX_BYTES) {
    return {
      ok: false,
      errors: [
        `${describePolicySource(source)}: the file is over ${POLICY_FILE_MAX_BYTES} bytes; a policy file may be at most ${POLICY_FILE_MAX_BYTES} bytes`,
      ],
      source,
    };
  }
  return parsePolicyFile(bytes, source);
}

/** The values `runAuto` takes (`policy` option), with the source words for the ledger. */
export function autoRunPolicy(result: Extract<PolicyFileResult, { ok: true }>):
  | {
      readonly verifyCmd?: string;
      readonly requireEvidence: boolean;
      readonly plannedTools: readonly string[];
      readonly verifyRepeat?: number;
      readonly requireTests: boolean;
      readonly testReports: readonly string[];
      readonly verifyBase?: boolean;
      readonly source: string;
    }
  | undefined {
  if (result.source.kind === "none") return undefined;
  return {
    ...(result.policy.verifyCmd !== undefined ? { verifyCmd: result.policy.verifyCmd } : {}),
    requireEvidence: result.policy.requireEvidence,
    plannedTools: result.policy.plannedTools,
    ...(result.policy.verifyRepeat !== undefined ? { verifyRepeat: result.policy.verifyRepeat } : {}),
    requireTests: result.policy.requireTests,
    testReports: result.policy.testReports,
    ...(result.policy.verifyBase === true ? { verifyBase: true } : {}),
    source: describePolicySource(result.source),
  };
}

/** `require-evidence true, verify-cmd "npm test", 1 planned-tools entry`: the policy in one line. */
export function policySummary(policy: Policy): string {
  const parts = [`require-evidence ${policy.requireEvidence}`];
  if (policy.verifyCmd !== undefined) parts.push(`verify-cmd ${JSON.stringify(policy.verifyCmd)}`);
  if (policy.plannedTools.length > 0) parts.push(`planned-tools ${policy.plannedTools.join(", ")}`);
  if (policy.verifyRepeat !== undefined) parts.push(`verify-repeat ${policy.verifyRepeat}`);
  if (policy.requireTests) parts.push("require-tests true");
  if (policy.testReports.length > 0) parts.push(`test-reports ${policy.testReports.join(", ")}`);
  if (policy.verifyBase === true) parts.push("verify-base true");
  return parts.join(", ");
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
