import { z } from "zod";
import { isRecordedApprover } from "../core/github-login.js";
import { MAX_VERIFY_REPEAT, RECEIPT_MAX_NAMES } from "../core/ledger-row.js";
import type { Ledger } from "./ledger.js";

/**
 * The ledger as JSON (the `<check-name>-ledger` artifact and the `ledger --json` output), and the schema
 * that reads it back. A ledger read back is untrusted data (SPEC §10: `mode: report` posts an artifact
 * a fork's workflow uploaded), so the schema is strict: unknown keys are refused, strings and lists are
 * bounded, and `schemaVersion` must be 1.
 */

/** Pretty-printed, newline-terminated JSON of the ledger. */
export function renderLedgerJson(ledger: Ledger): string {
  return `${JSON.stringify(ledger, null, 2)}\n`;
}

/** The result of reading a ledger back: the ledger, or every issue with its JSON path. */
export type ParsedLedger =
  | { readonly ok: true; readonly ledger: Ledger }
  | { readonly ok: false; readonly issues: readonly string[] };

/** Parses and validates untrusted ledger JSON; never throws. */
export function parseLedgerJson(text: string): ParsedLedger {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, issues: [`not JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const parsed = LedgerJsonSchema.safeParse(data);
  if (parsed.success) return { ok: true, ledger: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map(
      (issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`,
    ),
  };
}

const MAX_ID = 256;
const MAX_LINE = 4096;
/**
 * The longest free text a ledger field holds (the goal, a reply, a detail), in UTF-16 code units: the one
 * limit both {@link parseLedgerJson} checks and the writer cuts to ({@link fitLedgerText}), so a run's
 * own ledger.json always reads back.
 */
export const LEDGER_TEXT_MAX_CHARS = 65_536;
const MAX_TEXT = LEDGER_TEXT_MAX_CHARS;

/**
 * `text` as a ledger field holds it: unchanged when it fits {@link LEDGER_TEXT_MAX_CHARS}, else its head
 * followed by a visible ` … [cut: N more characters]` marker, the whole at most the limit.
 */
export function fitLedgerText(text: string): string {
  if (text.length <= LEDGER_TEXT_MAX_CHARS) return text;
  // The marker's digits depend on how much is cut; reserve the widest it can be.
  const reserve = ` … [cut: ${text.length} more characters]`.length;
  let head = text.slice(0, LEDGER_TEXT_MAX_CHARS - reserve);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head} … [cut: ${text.length - head.length} more characters]`;
}
const MAX_LIST = 10_000;

const id = z.string().min(1).max(MAX_ID);
const line = z.string().max(MAX_LINE);
const text = z.string().max(MAX_TEXT);
const usd = z.number().nonnegative();
const count = z.number().int().nonnegative();
const timestamp = z.string().max(64);

const TokenUsageSchema = z.strictObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadInputTokens: count.optional(),
  cacheCreationInputTokens: count.optional(),
});

/** A verify's test receipt (`TestReceipt`, issue 25 item 1). */
const TestReceiptSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("counts"),
    runners: z.array(line).min(1).max(100),
    source: z.enum(["output", "reports"]),
    files: z.array(line).max(10).optional(),
    ran: count,
    passed: count,
    failed: count,
    skipped: count,
    failedNames: z.array(text).max(RECEIPT_MAX_NAMES),
    failedNamesComplete: z.boolean(),
  }),
  z.strictObject({ kind: z.literal("none"), reason: text }),
]);

/** One run's verify evidence (`VerifyEvidence` without `base`: the base run's own shape). */
const VerifyRunSchema = z.strictObject({
  command: line,
  cwd: line,
  exitCode: z.number().int().nullable(),
  expectExit: z.number().int(),
  outcome: z.enum(["passed", "failed", "timed_out", "spawn_failed"]),
  durationMs: count,
  outputTail: text,
  evidenceTree: id.nullable(),
  reusedFrom: id.optional(),
  ignoredFiles: z.enum(["unchanged", "changed", "unknown"]).optional(),
  ignoredFilesChanges: z
    .strictObject({
      total: count.nullable(),
      examples: z
        .array(z.strictObject({ path: line, change: z.enum(["modified", "added", "removed"]) }))
        .max(MAX_LIST),
      note: line.optional(),
    })
    .optional(),
  ignoredFilesReason: text.optional(),
  dirtySubmodules: z.array(line).max(MAX_LIST).optional(),
  unrepresentedFiles: z
    .strictObject({ total: count.nullable(), examples: z.array(line).max(MAX_LIST), note: text.optional() })
    .optional(),
  changedWhileRunning: z
    .strictObject({ total: count.nullable(), examples: z.array(line).max(MAX_LIST), note: text.optional() })
    .optional(),
  outputMatches: z
    .strictObject({ pattern: text, matched: z.boolean(), truncated: z.literal(true).optional() })
    .optional(),
  repeat: z
    .strictObject({ runs: count.min(1).max(MAX_VERIFY_REPEAT), passed: count.max(MAX_VERIFY_REPEAT) })
    .refine((r) => r.passed <= r.runs, { message: "passed cannot exceed runs" })
    .optional(),
  // Issue 25 item 1: absent in ledgers written before receipts existed (they still load).
  receipt: TestReceiptSchema.optional(),
  testsRequired: z.literal(true).optional(),
});

/** `verify-base` (issue 25 item 3; ADR 0017): the base's run and its classification (`BaseComparison`). */
const BaseComparisonSchema = z.strictObject({
  commit: id.nullable(),
  chosenAs: line,
  verdict: z.enum(["fixed", "passes_on_both", "fails_on_both", "introduced", "not_compared"]),
  reason: text.optional(),
  verify: VerifyRunSchema.optional(),
  fixedTests: z.array(text).max(RECEIPT_MAX_NAMES).optional(),
  fewerTests: z.strictObject({ base: count, head: count }).optional(),
});

const VerifyEvidenceSchema = VerifyRunSchema.extend({
  // Issue 25 item 3: absent when `verify-base` was off, and in ledgers written before it existed.
  base: BaseComparisonSchema.optional(),
});

const rowBase = {
  nodeId: id,
  label: line.optional(),
  sessionId: id.nullable(),
  costUsd: usd.nullable(),
  durationMs: count,
  deniedToolCalls: count,
  usage: TokenUsageSchema.nullable(),
  numTurns: count.nullable(),
  sink: z.boolean(),
  verify: VerifyEvidenceSchema.optional(),
  outsideWrites: z.strictObject({ total: count, paths: z.array(line).max(10) }).optional(),
  completion: z
    .strictObject({
      attempt: count,
      maxAttempts: count,
      check: z.enum(["passed", "failed", "not_run", "could_not_run"]),
      reason: text.optional(),
    })
    .optional(),
  worktree: z.strictObject({ name: line, branch: line }).optional(),
  claims: z
    .array(
      z.strictObject({
        kind: z.enum(["tests-pass", "tests-count", "build-succeeds", "fixed"]),
        quote: line,
        passed: count.optional(),
        total: count.nullable().optional(),
        contradiction: line.nullable(),
      }),
    )
    .max(4)
    .optional(),
  detail: text,
};

const LedgerRowSchema = z.discriminatedUnion("verdict", [
  z.strictObject({
    ...rowBase,
    verdict: z.literal("PASS"),
    qualifier: z.enum(["approved", "verified", "self-reported", "exit-only"]),
    // Who approved is a GitHub login, `name[bot]` or `NAME (local user)` (core/github-login.ts): free text
    // such as "@octocat (GitHub-verified maintainer)" is no approver, and such a ledger is not posted.
    approvedBy: z
      .strictObject({
        login: id.refine(isRecordedApprover, {
          message:
            "not an approver the product records: a GitHub login, a bot's name[bot], or NAME (local user)",
        }),
        headSha: id,
      })
      .optional(),
  }),
  z.strictObject({
    ...rowBase,
    verdict: z.literal("FAIL"),
    cause: z.enum([
      "verify_failed",
      "result_mismatch",
      "nonzero_exit",
      "timeout",
      "run_error",
      "output_error",
      "budget_exceeded",
      "incomplete",
      "rejected",
      "cancelled",
    ]),
    superseded: z.boolean().optional(),
    stoppedBy: text.optional(),
  }),
  z.strictObject({ ...rowBase, verdict: z.literal("SKIPPED"), reason: text }),
  z.strictObject({
    ...rowBase,
    verdict: z.literal("PAUSED"),
    pause: z.literal("session_limit"),
    resetsAt: line.nullable(),
  }),
]);

const BuildSignalSchema = z.strictObject({ file: line, ecosystem: line, suggestion: line });

const BuildEvidenceSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("attached"), command: line, declaredBy: z.enum(["input", "policy"]) }),
  z.strictObject({ kind: z.literal("declared"), signals: z.array(BuildSignalSchema).max(MAX_LIST) }),
  z.strictObject({ kind: z.literal("none-detected") }),
  z.strictObject({
    kind: z.literal("graph"),
    verifiedSinks: z.array(line).max(MAX_LIST),
    unverifiedSinks: z.array(line).max(MAX_LIST),
  }),
]);

const PlanSectionSchema = z.strictObject({
  buildEvidence: BuildEvidenceSchema,
  sinkCommands: z.array(z.strictObject({ nodeId: id, command: line })).max(MAX_LIST),
  disclosure: text,
  nodes: z
    .array(
      z.strictObject({
        id,
        type: z.enum(["agent", "gate"]).optional(),
        dependsOn: z.array(id).max(MAX_LIST),
        allowedTools: z.array(line).max(MAX_LIST),
        sink: z.boolean(),
      }),
    )
    .max(MAX_LIST),
  planningCostUsd: usd.nullable(),
  repaired: z.strictObject({ refusals: z.array(text).max(MAX_LIST) }).optional(),
  policy: z
    .strictObject({
      source: line,
      requireEvidence: z.boolean(),
      requireTests: z.boolean().optional(),
      verifyRepeat: z.number().int().min(1).max(MAX_VERIFY_REPEAT).optional(),
      verifyBase: z.boolean().optional(),
      testReports: z.array(line).max(MAX_LIST).optional(),
    })
    .optional(),
  warnings: z.array(text).max(MAX_LIST).optional(),
  fragments: z.array(text).max(MAX_LIST).optional(),
  untrustedText: z
    .array(
      z.strictObject({
        source: id,
        hiddenChars: count,
        htmlComments: count,
        hiddenHtml: count,
        altTexts: count,
        omittedChars: count,
      }),
    )
    .max(MAX_LIST)
    .optional(),
});

const UsdTotalSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("known"), usd }),
  z.strictObject({ kind: z.literal("unknown"), knownUsd: usd, unknownCalls: count }),
]);

const TotalsSchema = z.strictObject({
  planning: UsdTotalSchema,
  nodes: UsdTotalSchema,
  total: UsdTotalSchema,
  tokens: z.strictObject({
    inputTokens: count,
    outputTokens: count,
    cacheReadInputTokens: count,
    cacheCreationInputTokens: count,
    callsWithoutUsage: count,
  }),
});

const ConclusionSchema = z.strictObject({
  conclusion: z.enum(["success", "neutral", "action_required", "failure", "cancelled", "timed_out"]),
  outcome: z.enum(["passed", "failed", "refused", "paused", "cancelled", "timed-out", "usage-error"]),
  rule: z.enum([
    "verified-on-commit",
    "verified-off-commit",
    "verified-different-trees",
    "verified-tree-unknown",
    "verified-ignored-files-changed",
    "verified-ignored-files-unknown",
    "verified-bytes-not-in-tree",
    "verified-outside-writes",
    "verified-in-worktree",
    "verify-definition-changed",
    "verified-no-test",
    "verified-failing-tests",
    "tests-required",
    "no-engine-evidence",
    "partially-verified",
    "only-gate-sinks",
    "node-failed",
    "sink-verify-failed",
    "node-did-not-run",
    "plan-refused",
    "planning-failed",
    "setup-failed",
    "engine-error",
    "push-refused",
    "workflow-run-not-success",
    "refused",
    "usage-error",
    "paused",
    "cancelled",
    "abandoned",
    "timed-out",
  ]),
  title: text,
  reason: text,
});

const GoalLoopSchema = z.strictObject({
  maxCycles: count,
  stoppedBecause: text,
  cycles: z
    .array(
      z.strictObject({
        cycle: count,
        runId: id,
        remainingIn: text.optional(),
        conclusion: ConclusionSchema.pick({ conclusion: true, outcome: true, title: true }).nullable(),
        rows: z
          .array(
            z.strictObject({
              node: line,
              verdict: line,
              costUsd: usd.nullable(),
              durationMs: count,
              detail: text,
            }),
          )
          .max(MAX_LIST),
        total: UsdTotalSchema,
        assessment: z.discriminatedUnion("kind", [
          z.strictObject({
            kind: z.literal("assessed"),
            goalMet: z.boolean(),
            remaining: text,
            evidence: text,
            costUsd: usd.nullable(),
            startRetries: text.optional(),
          }),
          z.strictObject({ kind: z.literal("failed"), reason: text, costUsd: usd.nullable() }),
          z.strictObject({ kind: z.literal("not_assessed") }),
        ]),
      }),
    )
    .max(100),
});

const CommitSchema = z.strictObject({ sha: id, tree: id, description: line });

const changeStatus = z.enum(["added", "modified", "deleted", "renamed"]);
const ChangedFilesSchema = z.strictObject({
  total: count,
  counts: z.strictObject({ added: count, modified: count, deleted: count, renamed: count }),
  files: z.array(z.strictObject({ path: line, status: changeStatus, from: line.optional() })).max(MAX_LIST),
  verifyDefinition: z
    .array(
      z.strictObject({
        path: line,
        kind: z.enum([
          "package-scripts",
          "definition-file",
          "named-by-verify",
          "test-file-removed",
          "skip-marker",
          "test-lines-changed",
          "policy-file",
          "test-data",
          "named-by-test",
        ]),
        detail: text,
        keys: z.array(line).max(MAX_LIST).optional(),
      }),
    )
    .max(MAX_LIST),
  flaggedTotal: count,
});

/** The schema of {@link renderLedgerJson}'s output; `z.infer` of it is assignable to {@link Ledger}. */
export const LedgerJsonSchema = z.strictObject({
  schemaVersion: z.literal(1),
  runId: id,
  mode: z.enum(["auto", "run", "verify"]),
  goal: text.optional(),
  runtime: z.enum(["claude", "codex"]),
  model: line.optional(),
  plan: PlanSectionSchema,
  rows: z.array(LedgerRowSchema).max(MAX_LIST),
  totals: TotalsSchema,
  conclusion: ConclusionSchema.nullable(),
  startedAt: timestamp,
  finishedAt: timestamp.nullable(),
  startingCommit: CommitSchema.nullable(),
  headSha: z
    .string()
    .regex(/^[0-9a-f]{40}$/, "expected a 40-hex commit SHA")
    .optional(),
  postedCommit: CommitSchema.optional(),
  evidenceTree: id.nullable(),
  changedFiles: ChangedFilesSchema.optional(),
  patch: z
    .strictObject({
      path: line,
      bytes: count,
      preview: text,
      holdsSecret: z.literal(true).optional(),
      notCommittedBecause: text.optional(),
    })
    .optional(),
  goalLoop: GoalLoopSchema.optional(),
});

// Compile-time proof that the schema and the type describe the same ledger: same keys, same value types,
// at every depth (readonly and optionality aside). A field added to one and not the other fails typecheck.
type Normalized<T> = T extends readonly (infer U)[]
  ? Normalized<U>[]
  : T extends object
    ? { -readonly [K in keyof T]-?: Normalized<Exclude<T[K], undefined>> }
    : T;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const schemaMatchesLedger: Same<Normalized<z.infer<typeof LedgerJsonSchema>>, Normalized<Ledger>> = true;
void schemaMatchesLedger;
