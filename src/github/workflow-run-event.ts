/**
 * The `workflow_run` webhook payload, read for `mode: report` (SPEC §2, §10): the upstream workflow run
 * whose ledger artifact is posted, and the identity the check run is posted under. GitHub writes this
 * payload, so it is the trusted half of the two-stage pattern: the commit (`workflow_run.head_sha`), the
 * head repository and branch, the pull requests GitHub linked, and whether the run came from a fork
 * (fork.ts `isForkHead`: `head_repository.id` ≠ `repository.id`) all come from here, never from the artifact
 * (research/security.md §1.3; https://docs.github.com/webhooks/webhook-events-and-payloads#workflow_run).
 *
 * `workflow_run.pull_requests` is empty for a pull request from a fork (GitHub links only pull requests
 * whose head is in the same repository), so the pull request is known by its head repository and branch.
 */
import { z } from "zod";
import { isForkHead } from "./fork.js";

/** What `mode: report` needs of a `workflow_run` event. */
export interface WorkflowRunEvent {
  /** The webhook action: `requested`, `in_progress` or `completed`. */
  readonly action: string;
  /** The upstream workflow run's id: its artifacts are listed by it. */
  readonly runId: number;
  readonly runAttempt: number | null;
  /** The upstream run's own trigger, e.g. `pull_request`. */
  readonly event: string;
  /** `success`, `failure`, `cancelled`, … once completed; `null` before. */
  readonly conclusion: string | null;
  /** The upstream run's head commit: for a `pull_request` run, the PR head. The check run goes here. */
  readonly headSha: string;
  readonly headBranch: string | null;
  /** `OWNER/NAME` of the head repository; `null` when GitHub sends none (the fork was deleted). */
  readonly headRepository: string | null;
  /** `OWNER/NAME` of the repository the upstream run ran in (the base repository). */
  readonly repository: string;
  /** The head repository is not the repository the run ran in (or is gone): a fork's pull request. */
  readonly fromFork: boolean;
  /** Pull requests GitHub linked to the run whose head is `headSha` (empty for a fork's). */
  readonly pullRequests: readonly number[];
  /** Who triggered the upstream run, and who triggered this attempt of it (a re-run). */
  readonly actor: string | null;
  readonly triggeringActor: string | null;
  /** The upstream run's page, for the check run's `details_url` and the summaries. */
  readonly htmlUrl: string | null;
  /** The upstream workflow's name and file (`.github/workflows/…`), for messages. */
  readonly workflowName: string | null;
  readonly workflowPath: string | null;
  /**
   * `workflow_run.display_title`: the run's `run-name` when the workflow sets one (the resume workflow of
   * docs/bot.md names the evidence-gate run id and head SHA in it), else GitHub's default; `null` if absent.
   */
  readonly displayTitle: string | null;
}

const sha = z.string().regex(/^[0-9a-fA-F]{40}$/, "expected a 40-hex commit SHA");
const fullName = z.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME");
const repository = z.object({ id: z.number().int(), full_name: fullName });
const login = z
  .object({ login: z.string().min(1) })
  .nullable()
  .optional();

const payloadSchema = z.object({
  action: z.string().min(1),
  workflow_run: z.object({
    id: z.number().int().positive(),
    name: z.string().nullable().optional(),
    path: z.string().optional(),
    run_attempt: z.number().int().positive().optional(),
    event: z.string().min(1),
    conclusion: z.string().nullable(),
    head_sha: sha,
    head_branch: z.string().nullable(),
    head_repository: repository.nullable().optional(),
    repository,
    pull_requests: z
      .array(z.object({ number: z.number().int().positive(), head: z.object({ sha: z.string() }) }))
      .nullable()
      .optional(),
    actor: login,
    triggering_actor: login,
    html_url: z.string().optional(),
    display_title: z.string().optional(),
  }),
  repository: z.object({ full_name: fullName }),
});

/** The payload is not a `workflow_run` event this product can read; `issues` name each field. */
export class WorkflowRunEventError extends Error {
  override readonly name = "WorkflowRunEventError";
  constructor(readonly issues: readonly string[]) {
    super(`the workflow_run event payload (GITHUB_EVENT_PATH) cannot be read:\n- ${issues.join("\n- ")}`);
  }
}

/**
 * Reads a `workflow_run` payload (already JSON-parsed, from `GITHUB_EVENT_PATH`).
 * @throws {WorkflowRunEventError} naming every missing or malformed field.
 */
export function parseWorkflowRunEvent(payload: unknown): WorkflowRunEvent {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) {
    throw new WorkflowRunEventError(
      parsed.error.issues.map(
        (i) => `${i.path.length === 0 ? "(the payload)" : i.path.join(".")}: ${i.message}`,
      ),
    );
  }
  const run = parsed.data.workflow_run;
  const headSha = run.head_sha.toLowerCase();
  const head = run.head_repository ?? null;
  return {
    action: parsed.data.action,
    runId: run.id,
    runAttempt: run.run_attempt ?? null,
    event: run.event,
    conclusion: run.conclusion,
    headSha,
    headBranch: run.head_branch,
    headRepository: head?.full_name ?? null,
    repository: run.repository.full_name,
    fromFork: isForkHead(head, run.repository),
    pullRequests: (run.pull_requests ?? [])
      .filter((pr) => pr.head.sha.toLowerCase() === headSha)
      .map((pr) => pr.number),
    actor: run.actor?.login ?? null,
    triggeringActor: run.triggering_actor?.login ?? null,
    htmlUrl: run.html_url ?? null,
    workflowName: run.name ?? null,
    workflowPath: run.path ?? null,
    displayTitle: run.display_title ?? null,
  };
}
