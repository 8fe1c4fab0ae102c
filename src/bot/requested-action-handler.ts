/**
 * "Approve <gate>" / "Reject <gate>" on the App's paused check run (SPEC §2.3): `check_run.requested_action`,
 * which GitHub sends only to the App that created the check run
 * (https://docs.github.com/rest/guides/using-the-rest-api-to-interact-with-checks#check-runs-and-requested-actions).
 *
 * The Re-verify button (identifier `reverify`) goes to `reverify.ts`.
 *
 * A click decides one gate of one run, once (issue 22 item 3). In order, each refusal dispatching nothing:
 *
 * 1. the identifier must be one of the App's buttons (`approve-<digest>` / `reject-<digest>`,
 *    `gate-buttons.ts`) — anything else (the bare `approve` of older buttons included) is ignored;
 * 2. the check run is read again: it must still be `completed` / `action_required` with the bot's gate
 *    marker at the end of its summary — otherwise the click was already acted on (the check run went
 *    `in_progress` awaiting the dispatched resume, or completed since): `stale`, written nowhere;
 * 3. the identifier's digest must be the one the marker gives **now** (this gate, this leg, this run): a click
 *    made on, or redelivered from, buttons of an earlier gate or leg — GitHub's redelivery, the App's own
 *    redelivery sweep after a slow answer, a page left open — is `stale`, and the check run says so;
 * 4. the clicker must have write access, asked of GitHub (`writer-permission.ts`) — a reader's click is
 *    refused and the buttons stay for a writer;
 * 5. the pull request's head must still be the commit the buttons were shown for (the check run's
 *    `head_sha`): a click on an old head is refused and its buttons removed — the decision would bind code
 *    the clicker did not review (SPEC §9, the `@sha` rule of comment commands);
 * 6. the decision is recorded on the check run **before** the dispatch: it goes `in_progress` without
 *    buttons, saying who decided, its `external_id` awaiting the resume (`check-key.ts`) — so a redelivery of
 *    this click, from then on, meets step 2. Then the resume workflow (`RESUME_WORKFLOW_FILE`) is
 *    dispatched on the default branch with `run-id`, `sha`, `approve-gate` or `reject-gate`, and `approver`
 *    (the clicker's login). When GitHub refuses the dispatch, the check run is put back `action_required`
 *    with the same buttons and a notice saying why (and an error GitHub did not answer is thrown after that,
 *    so the delivery fails and is redelivered: nothing was dispatched, the same click may go again).
 *
 * Not closed: two replicas handling the same delivery in the same instant can both pass step 2 before
 * either writes step 6 — GitHub's check runs have no conditional update. The resumed leg then refuses the
 * second dispatch: its run is no longer paused at that gate (`engine/resume-run.ts`).
 */
import { z } from "zod";
import { CHECK_RUN_TEXT_MAX_BYTES } from "../github/check-run.js";
import { readRunStateDigests, runStateDigestMarker } from "../github/run-state-digest.js";
import { accessWords, checkWriter } from "../github/writer-check.js";
import { truncateUtf8, utf8Bytes } from "../ledger/byte-budget.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import type { AppCheckRun } from "./app-check-runs.js";
import { dispatchFailure } from "./dispatch-refusal.js";
import {
  clickedButton,
  decidesWaitingGate,
  type GateDecision,
  gateButtons,
  legWords,
  REVERIFY_BUTTON,
  REVERIFY_IDENTIFIER,
  readGateMarker,
  type WaitingGate,
} from "./gate-buttons.js";
import { alreadyDone, type HandlerContext, type HandlerResult, parsePayload } from "./handler.js";
import { commitSha, repositoryPart, senderPart } from "./payload-parts.js";
import { checksOf } from "./rerun-handler.js";
import { onReverifyClick, openPullRequestAt } from "./reverify.js";

const schema = z.object({
  check_run: z.object({
    id: z.number().int().positive(),
    name: z.string(),
    app: z.object({ id: z.number().int() }),
  }),
  requested_action: z.object({ identifier: z.string() }),
  repository: repositoryPart.extend({ default_branch: z.string().min(1) }),
  sender: senderPart,
});

/** The inputs the resume workflow is dispatched with (docs/bot.md, "The resume workflow"). */
export interface ResumeInputs {
  readonly "run-id": string;
  readonly sha: string;
  readonly "approve-gate"?: string;
  readonly "reject-gate"?: string;
  readonly approver: string;
}

/** The dispatch's inputs for a decision on `waiting`, shown for `headSha`, made by `approver`. */
export function resumeInputs(o: {
  readonly waiting: WaitingGate;
  readonly decision: GateDecision;
  readonly headSha: string;
  readonly approver: string;
}): ResumeInputs {
  return {
    "run-id": o.waiting.runId,
    sha: o.headSha,
    ...(o.decision === "approve" ? { "approve-gate": o.waiting.gate } : { "reject-gate": o.waiting.gate }),
    approver: o.approver,
  };
}

export async function onRequestedAction(ctx: HandlerContext, payload: unknown): Promise<HandlerResult> {
  const event = parsePayload("check_run", schema, payload);
  if (event.check_run.app.id !== ctx.config.appId || event.check_run.name !== ctx.config.checkName) {
    return {
      outcome: "ignored",
      detail: `check run ${event.check_run.id} is not this App's "${ctx.config.checkName}"`,
    };
  }
  const { repository } = event;
  const owner = repository.owner.login;
  const repo = repository.name;
  const login = event.sender.login;
  const checks = checksOf(ctx, repository);
  if (event.requested_action.identifier === REVERIFY_IDENTIFIER) {
    const click = { owner, repo, defaultBranch: repository.default_branch, login };
    return onReverifyClick(ctx, checks, event.check_run.id, click);
  }
  const clicked = clickedButton(event.requested_action.identifier);
  if (clicked === null) {
    return {
      outcome: "ignored",
      detail: `not a button this App offers (identifier ${JSON.stringify(event.requested_action.identifier)}): nothing was dispatched`,
    };
  }
  const { decision } = clicked;
  const check = await checks.get(event.check_run.id);
  if (checks.doneHere(check)) return alreadyDone(check);
  const waiting = readGateMarker(check.summary);
  if (check.status !== "completed" || check.conclusion !== "action_required" || waiting === null) {
    return { outcome: "stale", detail: `${alreadyActedOn(check)} Nothing was dispatched.` };
  }
  const word = decision === "approve" ? "approval" : "rejection";
  if (!decidesWaitingGate(clicked, waiting)) {
    const why = `the ${word} by ${login} came from a button of another gate, leg or run (a redelivered click, or a page shown before the run moved on); check run ${check.id} now waits at gate ${waiting.gate} of run ${waiting.runId}, ${legWords(waiting.leg)}. A click decides the gate its button was shown for, once.`;
    await checks.annotateOutput(check.id, {
      title: check.title ?? `Paused at gate ${waiting.gate}`,
      summary: withNotice(
        check.summary ?? "",
        `> **Not dispatched:** ${escapeInline(why)} To decide gate \`${waiting.gate}\`, use the buttons above.`,
      ),
    });
    return { outcome: "stale", detail: `${why} Nothing was dispatched.` };
  }
  const access = await checkWriter(ctx.octokit, { owner, repo, login });
  if (!access.isWriter) {
    await checks.annotateOutput(check.id, {
      title: check.title ?? `Paused at gate ${waiting.gate}`,
      summary: withNotice(
        check.summary ?? "",
        `> **Refused:** ${escapeInline(login)} has ${accessWords(access.permission)} to this repository; the ${word} of gate \`${waiting.gate}\` needs write access. Nothing was dispatched.`,
      ),
    });
    return { outcome: "refused", detail: `${login} has ${accessWords(access.permission)}` };
  }
  const moved = await headMoved(ctx, check, { owner, repo });
  if (moved !== null) {
    await checks.annotateOutput(
      check.id,
      {
        title: `Gate ${waiting.gate}: not decided, the pull request moved on`,
        summary: withNotice(
          check.summary ?? "",
          `> **Refused:** the ${word} of gate \`${waiting.gate}\` by ${escapeInline(login)} was not dispatched: ${escapeInline(moved)} A decision binds the commit it was shown for; the new head gets its own run and check run.`,
        ),
      },
      // The gate buttons go; Re-verify (of the pull request's current head) stays.
      [REVERIFY_BUTTON],
    );
    return { outcome: "refused", detail: moved };
  }
  const verb = decision === "approve" ? "approved" : "rejected";
  const key = { pullRequest: check.key?.pullRequest ?? null, run: check.key?.run ?? null };
  // The resumed leg checks its run directory against the digests this check run carries: keep them.
  const digests = readRunStateDigests(check.summary, waiting.runId);
  // Recorded before the dispatch: from here on, this click (or its redelivery) finds the check run in_progress.
  await checks.move(check.id, {
    status: "in_progress",
    key: { ...key, resume: waiting.runId },
    output: {
      title: `Gate ${waiting.gate} ${verb} by ${login}: resuming`,
      summary: `${escapeInline(login)} (${accessWords(access.permission)}) ${verb} gate \`${waiting.gate}\` of run \`${waiting.runId}\` (${legWords(waiting.leg)}) on \`${check.headSha}\`. The resume workflow ${escapeInline(ctx.config.resumeWorkflowFile)} is dispatched on ${escapeInline(repository.default_branch)}; this check run completes with the resumed run's ledger.${digests === null ? "" : `\n\n${runStateDigestMarker(waiting.runId, digests)}`}`,
    },
  });
  const inputs = resumeInputs({ waiting, decision, headSha: check.headSha, approver: login });
  // Put back after a refusal the delivery is done (`last`); after no answer it fails and is done again.
  const putBack = (notice: string, last: boolean) =>
    checks.complete(check.id, {
      conclusion: "action_required",
      title: check.title ?? `Paused at gate ${waiting.gate}`,
      summary: withNotice(check.summary ?? "", notice),
      key,
      actions: gateButtons(waiting),
      last,
    });
  try {
    await ctx.octokit.rest.actions.createWorkflowDispatch({
      owner,
      repo,
      workflow_id: ctx.config.resumeWorkflowFile,
      ref: repository.default_branch,
      inputs: { ...inputs },
    });
  } catch (error) {
    const failed = dispatchFailure(error, {
      workflow: ctx.config.resumeWorkflowFile,
      ref: repository.default_branch,
      inputs: ["run-id", "sha", "approve-gate", "reject-gate", "approver"],
    });
    const { answered, what: why } = failed;
    await putBack(
      answered
        ? `> **Not dispatched:** ${escapeInline(why)}. ${failed.fix}`
        : `> **Not dispatched:** ${escapeInline(why)}. The ${word} of gate \`${waiting.gate}\` by ${escapeInline(login)} will be tried again when this delivery is redelivered; a writer can also click again.`,
      answered,
    );
    if (!answered) throw error;
    return { outcome: "dispatch-refused", detail: why };
  }
  return {
    outcome: "dispatched",
    detail: `${decision} ${waiting.gate} of ${waiting.runId} (${legWords(waiting.leg)}) by ${login}`,
  };
}

/** Why a click finds its check run waiting for no gate (one or two sentences). */
function alreadyActedOn(check: AppCheckRun): string {
  const awaited = check.key?.resume ?? null;
  if (check.status !== "completed" && awaited !== null) {
    return `the click was already acted on: check run ${check.id} is ${check.status}, awaiting the dispatched resume of run ${awaited}.`;
  }
  return `check run ${check.id} is ${`${check.status} ${check.conclusion ?? ""}`.trim()}, waiting for no gate: the run has moved on, or the click was already acted on.`;
}

/**
 * Why the pull request's head is no longer the check run's commit (one sentence), or `null` when it still is.
 * The pull request comes from the check run's record. A check run that records none — a fork's, created from
 * `workflow_run` (whose `pull_requests` is empty for a fork) before the `pull_request` delivery — is tied to
 * the open pull requests GitHub lists whose head is its commit now (issue 23 item 4): with one, the head has
 * not moved; with none, it has.
 */
async function headMoved(
  ctx: HandlerContext,
  check: AppCheckRun,
  o: { readonly owner: string; readonly repo: string },
): Promise<string | null> {
  const number = check.key?.pullRequest ?? null;
  if (number === null) {
    if ((await openPullRequestAt(ctx, o, check.headSha)) !== undefined) return null;
    return `no open pull request has ${check.headSha.slice(0, 7)} (the commit these buttons were shown for) as its head now.`;
  }
  const { data } = await ctx.octokit.rest.pulls.get({ owner: o.owner, repo: o.repo, pull_number: number });
  const head = commitSha.safeParse(data.head.sha);
  if (data.state !== "open") return `pull request #${number} is ${data.state}.`;
  if (!head.success || head.data !== check.headSha) {
    return `pull request #${number}'s head is now ${data.head.sha.slice(0, 7)}, not ${check.headSha.slice(0, 7)} (the commit these buttons were shown for).`;
  }
  return null;
}

/** `notice` above `summary`, within the byte limit; the summary's last line (the gate marker) is kept whole. */
function withNotice(summary: string, notice: string): string {
  const lines = summary.trimEnd().split("\n");
  const last = lines.pop() ?? "";
  const tail = `\n\n${last}`;
  const body = `${notice}\n\n${lines.join("\n")}`;
  return `${truncateUtf8(body, CHECK_RUN_TEXT_MAX_BYTES - utf8Bytes(tail), "… (cut)")}${tail}`;
}
