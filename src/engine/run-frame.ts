/**
 * The run-wide facts a run carries from its opening (`fresh-run.ts`, or a resumed leg's `resume-run.ts`)
 * to its ending (`finish-run.ts`): who the run is, what it stands on, how git runs for it, what it may
 * commit and where it writes. Built once per leg; never changed.
 */
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { Redactor } from "../core/redact.js";
import type { RunId } from "../core/run-id.js";
import type { IndexOverlay } from "../evidence/evidence-tree.js";
import type { Ledger } from "../ledger/ledger.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";

/** How git runs for the run: the environment it starts from, the secrets kept out, the snapshot overlay. */
export interface RunGitContext {
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
  /** See `EngineRunBase.indexOverlay`: every evidence tree and the patch go through it. */
  readonly indexOverlay?: IndexOverlay;
}

/** The run-wide facts every ending needs. */
export interface RunFrame {
  readonly runId: RunId;
  readonly mode: Ledger["mode"];
  readonly goal?: string;
  readonly runtime: "claude" | "codex";
  readonly model?: string;
  readonly repoDir: string;
  readonly gitContext: RunGitContext;
  readonly start: { readonly sha: string; readonly tree: string; readonly description: string };
  /** The pull request's head commit the run is about (the ledger's `headSha`), when one was given. */
  readonly headSha?: string;
  readonly answer: BuildEvidenceAnswer;
  readonly requireEvidence: boolean;
  /**
   * Commit the nodes' changes when the run ends (CLI `--commit`, the action's `push`), with this first line.
   * With `publish` (the action's push, SPEC §10) the commit is made only when the run would conclude
   * `success` on it — every node passed and every non-gate sink verified that very tree (ADR 0008) — and it
   * becomes the posted commit only once `publish` says it is on the branch.
   */
  readonly commit: { readonly message: string; readonly publish?: PublishCommit } | null;
  readonly redactor: Redactor;
  readonly dir: RedactingRunDirectory;
  /** ISO-8601 UTC: when the run's first leg started. */
  readonly startedAt: string;
}

/** What {@link PublishCommit} did: on the branch (and how to name it), or refused with the reason. */
export type PublishResult =
  | {
      readonly kind: "published";
      /** Says where the commit went, for the ledger ("the nodes' verified changes, pushed to feature"). */
      readonly note: string;
    }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Puts the run's commit where the check run will be posted (the action pushes it to the PR branch). Called
 * once, after the commit was made; never throws for a refusal (it returns one), only for internal errors.
 */
export type PublishCommit = (commit: {
  readonly sha: string;
  readonly tree: string;
}) => Promise<PublishResult>;
