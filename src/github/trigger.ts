/**
 * Which pull request a run gates, decided from the event that started the workflow (SPEC §2, §9, §10, §11;
 * GitHub Docs, "Events that trigger workflows"). Each trigger ends in one of five answers:
 *
 * | event | answer |
 * | --- | --- |
 * | `pull_request` opened, synchronize, reopened, ready_for_review | run on the payload's pull request |
 * | `pull_request`, any other action (closed, labeled, edited, …) | nothing to do: no check run is touched |
 * | `pull_request_target` | refused on the check run, unless `allow-pull-request-target: true` (a warning) |
 * | `issue_comment` created on a pull request, opening with `/evidence-gate run` | run, once accepted (below) |
 * | `issue_comment`, anything else (an issue, an edit, a plain comment) | nothing to do |
 * | `workflow_dispatch` with `pr` (input, or the dispatch's `inputs.pr`) | run on that pull request |
 * | `workflow_run` | mode `report` only (`report-mode.ts`, routed before this module): any other mode is a usage error |
 * | anything else | usage error naming the supported events |
 *
 * A comment command is accepted only when, in this order: the base branch's policy file allows comment
 * commands (`comment-commands`, default true); a bot author is in `allowed-bots` (the input and the policy
 * key); a human author's role is admin, maintain or write (looked up through the API); and on a fork's pull
 * request the command names the head it was reviewed at (`@sha`) and that is still the head. A refused
 * command touches no check run (anyone can comment; a refusal must not let them flip a maintainer's check)
 * and gets a `-1` reaction; an accepted one gets `eyes`. In mode `auto` its text, when it has any, is the
 * run's goal (SPEC §9: the operator's instruction — only a writer or an allow-listed bot gets this far);
 * without text, the workflow's `goal` input stands (`commentGoal` in `pull-request/pull-request-run.ts`).
 *
 * For comment, dispatch and `pull_request_target` runs the workspace is not the pull request's checkout;
 * the subject says so (`checkoutHead`) and `pr-checkout.ts` checks the head out before anything runs.
 */
import { z } from "zod";
import { type BaseRefPolicy, PolicyReadError, readBaseRefPolicy } from "./base-policy.js";
import { COMMENT_COMMAND, parseCommentCommand, reactToComment } from "./comment-command.js";
import type { EventContext, OtherEventContext, PullRequestFields } from "./event-context.js";
import type { GateOctokit } from "./octokit.js";
import { PullRequestReadError, readPullRequest } from "./pull-request-subject.js";
import { checkWriter, PermissionLookupError } from "./writer-check.js";

/** The events a run can start from. */
export type TriggerName = "pull_request" | "pull_request_target" | "issue_comment" | "workflow_dispatch";

/** The `pull_request` actions that run; every other action is "nothing to do". */
export const PULL_REQUEST_RUN_ACTIONS = ["opened", "synchronize", "reopened", "ready_for_review"] as const;

/** The supported events, in the words a usage error uses. */
export const SUPPORTED_EVENTS =
  "pull_request (opened, synchronize, reopened, ready_for_review), issue_comment (`/evidence-gate run` on a pull request), workflow_dispatch (input `pr`, or mode resume), pull_request_target (only with allow-pull-request-target: true) and workflow_run (mode report)";

/** The pull request a run gates, and how the run came to gate it. */
export interface PullRequestSubject extends PullRequestFields {
  readonly trigger: TriggerName;
  /** The workspace is not this pull request's checkout: the action checks out `headSha` itself. */
  readonly checkoutHead: boolean;
  /** A comment command's text and author: fenced context for the planner (never the goal). */
  readonly request?: { readonly author: string; readonly text: string };
}

export type Trigger =
  /** Run on `subject`; `basePolicy` when the trigger already read it (a comment command needs it first). */
  | {
      readonly kind: "run";
      readonly subject: PullRequestSubject;
      readonly basePolicy: BaseRefPolicy | null;
      readonly notes: readonly string[];
    }
  /** Not this action's business (a plain comment, a `closed` pull request): no check run, no outputs. */
  | { readonly kind: "nothing"; readonly message: string }
  /** Refused before any check run (a comment command that was not accepted): the step fails. */
  | { readonly kind: "refused"; readonly title: string; readonly message: string }
  /** Refused on the pull request's check run (its head is known and the token may write it). */
  | { readonly kind: "refused-on-check"; readonly subject: PullRequestSubject; readonly message: string }
  | { readonly kind: "usage-error"; readonly message: string };

/** The action inputs a trigger is decided with. */
export interface TriggerInputs {
  readonly mode: { readonly kind: string };
  readonly allowPullRequestTarget: boolean;
  readonly allowedBots: readonly string[];
  readonly pr?: number;
}

export interface ResolveTriggerOptions {
  readonly event: EventContext;
  /** The inputs the trigger reads: the mode's kind, the pull_request_target opt-in, bots, `pr`. */
  readonly inputs: TriggerInputs;
  /** A warning for the log (the job's annotations): a reaction that failed, an opt-in taken. */
  readonly warn: (message: string) => void;
  readonly octokit: GateOctokit;
}

/** Decides the run's pull request (see the module comment). Rejects only on internal errors. */
export async function resolveTrigger(o: ResolveTriggerOptions): Promise<Trigger> {
  const { event, inputs } = o;
  switch (event.kind) {
    case "pull_request": {
      if (!(PULL_REQUEST_RUN_ACTIONS as readonly string[]).includes(event.action)) {
        return {
          kind: "nothing",
          message: `pull_request ${event.action}: nothing to do (evidence-gate runs on ${PULL_REQUEST_RUN_ACTIONS.join(", ")}); no check run was touched`,
        };
      }
      const { kind: _kind, ...fields } = event;
      return {
        kind: "run",
        subject: { ...fields, trigger: "pull_request", checkoutHead: false },
        basePolicy: null,
        notes: [],
      };
    }
    case "pull_request_target": {
      const { kind: _kind, ...fields } = event;
      const subject: PullRequestSubject = { ...fields, trigger: "pull_request_target", checkoutHead: true };
      if (!inputs.allowPullRequestTarget) {
        return {
          kind: "refused-on-check",
          subject,
          message:
            "pull_request_target runs with the base repository's secrets and a write token, and this action would run the pull request's code (its build, its tests) with them. Use `on: pull_request` (a fork's pull request then runs without secrets, verify-only), or opt in with `allow-pull-request-target: true` if you accept that risk.",
        };
      }
      const warning =
        "allow-pull-request-target: true — this run has the base repository's secrets and a write token, and runs the pull request's code (checked out at its head) with them.";
      o.warn(warning);
      return { kind: "run", subject, basePolicy: null, notes: [warning] };
    }
    case "other":
      switch (event.eventName) {
        case "issue_comment":
          return resolveComment(o, event);
        case "workflow_dispatch":
          return resolveDispatch(o, event);
        case "workflow_run":
          return {
            kind: "usage-error",
            message: `workflow_run triggers only mode report, which posts a fork pull request's ledger from its artifact; this run's mode is ${inputs.mode.kind}. Run mode ${inputs.mode.kind} on pull_request.`,
          };
        default:
          return {
            kind: "usage-error",
            message: `evidence-gate runs on ${SUPPORTED_EVENTS}; this run was triggered by ${event.eventName || "(no GITHUB_EVENT_NAME)"}.`,
          };
      }
    default:
      return event satisfies never;
  }
}

const commentPayload = z.object({
  action: z.string(),
  comment: z.object({
    id: z.number().int().positive(),
    body: z.string().nullable(),
    user: z.object({ login: z.string().min(1), type: z.string() }),
  }),
  issue: z.object({
    number: z.number().int().positive(),
    // Present only when the issue is a pull request (GitHub Docs, issue_comment).
    pull_request: z.object({}).passthrough().nullable().optional(),
  }),
});

async function resolveComment(o: ResolveTriggerOptions, event: OtherEventContext): Promise<Trigger> {
  const parsed = commentPayload.safeParse(event.payload);
  if (!parsed.success) {
    const where = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(payload)"}: ${i.message}`)
      .join("; ");
    return {
      kind: "usage-error",
      message: `the issue_comment payload (GITHUB_EVENT_PATH) is not one: ${where}`,
    };
  }
  const { action, comment, issue } = parsed.data;
  const command = parseCommentCommand(comment.body ?? "");
  if (command.kind === "none") {
    return {
      kind: "nothing",
      message: `comment ${comment.id} is not a ${COMMENT_COMMAND} command: nothing to do`,
    };
  }
  if (action !== "created") {
    return {
      kind: "nothing",
      message: `comment ${comment.id} was ${action}: only a new comment runs a command (an edit cannot re-run one); nothing to do`,
    };
  }
  if (issue.pull_request === undefined || issue.pull_request === null) {
    return {
      kind: "nothing",
      message: `comment ${comment.id} is on issue #${issue.number}, not a pull request: nothing to do`,
    };
  }
  const target = { owner: event.owner, repo: event.repo, commentId: comment.id };
  const refuse = async (title: string, message: string): Promise<Trigger> => {
    const problem = await reactToComment(o.octokit, target, "-1");
    if (problem !== null) o.warn(problem);
    return { kind: "refused", title, message: `${message} Nothing ran; no check run was touched.` };
  };
  if (command.kind === "unknown") {
    return refuse(
      `unknown command ${COMMENT_COMMAND} ${command.verb}`,
      `\`${COMMENT_COMMAND} ${command.verb}\` is not a command: use \`${COMMENT_COMMAND} run [@<head sha>] [what to look at]\`.`,
    );
  }

  let fields: PullRequestFields;
  try {
    fields = await readPullRequest(o.octokit, event, issue.number, "comment");
  } catch (error) {
    if (!(error instanceof PullRequestReadError)) throw error;
    return refuse(`pull request #${issue.number} could not be read`, error.message);
  }
  let basePolicy: BaseRefPolicy;
  try {
    basePolicy = await readBaseRefPolicy(o.octokit, {
      owner: event.owner,
      repo: event.repo,
      ref: fields.baseRef,
      sha: fields.baseSha,
    });
  } catch (error) {
    if (!(error instanceof PolicyReadError)) throw error;
    return refuse("the policy file could not be read", error.message);
  }
  if (!basePolicy.result.ok) {
    return refuse(
      "the policy file is malformed",
      `${basePolicy.result.errors.join("\n")}\nFix the policy file on the base branch: no command runs while the maintainers' policy is malformed.`,
    );
  }
  const policy = basePolicy.result.policy;
  if (!policy.commentCommands) {
    return refuse(
      "comment commands are turned off",
      `The maintainers' policy file sets comment-commands: false: \`${COMMENT_COMMAND} run\` does not start runs in this repository.`,
    );
  }
  const login = comment.user.login;
  const denied = await authorDenied(o, { event, user: comment.user, policyBots: policy.allowedBots });
  if (denied !== null) return refuse(denied.title, denied.message);
  if (command.sha !== null && !fields.headSha.startsWith(command.sha)) {
    return refuse(
      "the pull request's head moved",
      `The command names ${command.sha}, and pull request #${fields.number}'s head is now ${fields.headSha.slice(0, 7)}: review the new commits, then comment \`${COMMENT_COMMAND} run @${fields.headSha.slice(0, 7)}\`.`,
    );
  }
  if (fields.isFork && command.sha === null) {
    return refuse(
      "a fork's pull request needs the reviewed head",
      `Pull request #${fields.number} comes from a fork (${fields.headRepoFullName ?? "a deleted repository"}): its code runs only at the commit a maintainer reviewed. Comment \`${COMMENT_COMMAND} run @${fields.headSha.slice(0, 7)}\` to run its current head ${fields.headSha.slice(0, 7)}.`,
    );
  }
  const reacted = await reactToComment(o.octokit, target, "eyes");
  if (reacted !== null) o.warn(reacted);
  const notes: string[] = [
    `Started by ${login}'s comment ${COMMENT_COMMAND} run${command.sha !== null ? ` @${command.sha}` : ""} (role checked through the API).`,
  ];
  const modeTakesText = o.inputs.mode.kind === "auto";
  if (command.text !== "" && !modeTakesText) {
    notes.push(`The comment's text was not used: mode ${o.inputs.mode.kind} has no planner to give it to.`);
  }
  return {
    kind: "run",
    subject: {
      ...fields,
      trigger: "issue_comment",
      checkoutHead: true,
      ...(command.text !== "" && modeTakesText ? { request: { author: login, text: command.text } } : {}),
    },
    basePolicy,
    notes,
  };
}

/**
 * Why the comment's author may not start a run (SPEC §9: only users with write permission, read through the
 * API — never the payload's word — and bots only when allow-listed by the input `allowed-bots` or the
 * policy file), or `null` when they may. A permission that cannot be read refuses the command.
 */
async function authorDenied(
  o: ResolveTriggerOptions,
  c: {
    readonly event: OtherEventContext;
    readonly user: { readonly login: string; readonly type: string };
    readonly policyBots: readonly string[];
  },
): Promise<{ readonly title: string; readonly message: string } | null> {
  const { event } = c;
  const login = c.user.login;
  const refuse = (title: string, message: string) => ({ title, message });
  if (c.user.type === "Bot") {
    const allowed = [...o.inputs.allowedBots, ...c.policyBots].map((b) => b.toLowerCase());
    if (!allowed.includes(login.toLowerCase())) {
      return refuse(
        `bot ${login} is not allowed`,
        `${login} is a bot, and bots may not start runs unless allow-listed: add it to the input \`allowed-bots\` or the policy file's allowed-bots.`,
      );
    }
  } else {
    let canWrite: boolean;
    let role: string;
    try {
      ({ isWriter: canWrite, role } = await checkWriter(o.octokit, {
        owner: event.owner,
        repo: event.repo,
        login,
      }));
    } catch (error) {
      if (!(error instanceof PermissionLookupError)) throw error;
      return refuse(
        `${login}'s permission could not be read`,
        `${error.message}. A command is refused when the permission cannot be checked.`,
      );
    }
    if (!canWrite) {
      return refuse(
        `${login} may not start runs`,
        `${login}'s role on ${event.owner}/${event.repo} is ${role}: only users with write permission (admin, maintain, write) can start a run by comment.`,
      );
    }
  }
  return null;
}

const dispatchPayload = z.object({
  inputs: z.record(z.string(), z.unknown()).nullable().optional(),
});

async function resolveDispatch(o: ResolveTriggerOptions, event: OtherEventContext): Promise<Trigger> {
  let number = o.inputs.pr;
  if (number === undefined) {
    const parsed = dispatchPayload.safeParse(event.payload ?? {});
    const given = parsed.success ? parsed.data.inputs?.pr : undefined;
    const text = typeof given === "number" ? String(given) : typeof given === "string" ? given.trim() : "";
    if (text === "") {
      return {
        kind: "usage-error",
        message:
          "a workflow_dispatch run needs the pull request's number: give the action input `pr` (e.g. set to the dispatch input inputs.pr), or a workflow_dispatch input named pr. (mode resume is the other dispatch use.)",
      };
    }
    const n = Number(text.replace(/^#/, ""));
    if (!Number.isInteger(n) || n <= 0) {
      return {
        kind: "usage-error",
        message: `the dispatch input pr is ${JSON.stringify(text)}: give the pull request's number, e.g. 42`,
      };
    }
    number = n;
  }
  let fields: PullRequestFields;
  try {
    fields = await readPullRequest(o.octokit, event, number, "dispatch");
  } catch (error) {
    if (!(error instanceof PullRequestReadError)) throw error;
    return { kind: "usage-error", message: `${error.message}: check the input pr` };
  }
  return {
    kind: "run",
    subject: { ...fields, trigger: "workflow_dispatch", checkoutHead: true },
    basePolicy: null,
    notes: [
      `Started by ${event.run.actor ?? "a user"} through workflow_dispatch for pull request #${number} (dispatching needs write access).`,
    ],
  };
}
