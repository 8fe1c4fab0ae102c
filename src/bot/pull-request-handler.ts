/**
 * `pull_request` opened / synchronize / reopened / ready_for_review (SPEC §2.3): the App's check run
 * appears on the pull request's head at once, `queued`, linking to the workflow it waits for. The workflow
 * itself still runs on GitHub's own `pull_request` trigger (fork rules for secrets in force); this handler
 * starts nothing.
 *
 * Idempotent: when the App already has the check run on that head SHA (a redelivery, a `reopened` on the
 * same commit, a workflow run that got there first), nothing is written.
 */
import { z } from "zod";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { type HandlerContext, type HandlerResult, parsePayload } from "./handler.js";
import { commitSha, repositoryPart, workflowPageUrl } from "./payload-parts.js";
import { checksOf } from "./rerun-handler.js";

/** The `pull_request` actions that put a (new) head commit in front of the workflow. */
export const PULL_REQUEST_ACTIONS = ["opened", "synchronize", "reopened", "ready_for_review"] as const;

const schema = z.object({
  action: z.string().min(1),
  number: z.number().int().positive(),
  pull_request: z.object({ head: z.object({ sha: commitSha }) }),
  repository: repositoryPart,
});

export async function onPullRequest(ctx: HandlerContext, payload: unknown): Promise<HandlerResult> {
  const event = parsePayload("pull_request", schema, payload);
  if (!(PULL_REQUEST_ACTIONS as readonly string[]).includes(event.action)) {
    return {
      outcome: "ignored",
      detail: `pull_request ${event.action} puts no new head in front of the workflow`,
    };
  }
  const { repository } = event;
  const headSha = event.pull_request.head.sha;
  const checks = checksOf(ctx, repository);
  const existing = await checks.find(headSha);
  if (existing !== undefined) {
    return {
      outcome: "check-exists",
      detail: `check run ${existing.id} is already on ${headSha.slice(0, 7)}`,
    };
  }
  const workflowUrl = workflowPageUrl(repository, ctx.config.workflowFile);
  const made = await checks.create({
    headSha,
    key: { pullRequest: event.number, run: null },
    status: "queued",
    detailsUrl: workflowUrl,
    output: {
      title: `Waiting for ${ctx.config.workflowFile}`,
      summary: `Waiting for the workflow [${escapeInline(ctx.config.workflowFile)}](${workflowUrl}) to run on \`${headSha}\` (pull request #${event.number}). This check run follows that workflow run and completes with its qualified ledger; until then it is not a verdict.`,
    },
    last: true,
  });
  return made.created
    ? { outcome: "check-queued", detail: `check run ${made.run.id} on ${headSha.slice(0, 7)}` }
    : { outcome: "check-exists", detail: `a concurrent delivery created check run ${made.run.id}` };
}
