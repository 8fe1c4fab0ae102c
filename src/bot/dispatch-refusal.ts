/**
 * Why a `workflow_dispatch` the bot asked for (`POST /repos/{owner}/{repo}/actions/workflows/{id}/dispatches`,
 * https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event) did not happen, in words a
 * writer can act on. GitHub answers `422` for different reasons that only its message tells apart — `No ref
 * found for: <ref>` (no such branch: the default branch the event named was renamed or deleted since),
 * `Workflow does not have 'workflow_dispatch' trigger`, `Unexpected inputs provided: …`, `Required input '…'
 * not provided`, `Invalid value for input '…'` — and `404` when the workflow file is not on that branch. Only
 * the input errors are about the inputs; a "No ref found" explained as one (operator trial) sent the operator
 * to the wrong file.
 */
import { escapeInline } from "../ledger/markdown-syntax.js";

/** One refused or unanswered dispatch, told (see the module comment). */
export interface DispatchFailure {
  /** GitHub answered 4xx: final for this delivery. `false`: a 5xx or no answer, worth trying again. */
  readonly answered: boolean;
  /** `GitHub answered 422 "…" to dispatching <workflow> on <ref>` — plain text, not yet escaped. */
  readonly what: string;
  /** What a writer or the operator does about it: one or two sentences of Markdown, already escaped. */
  readonly fix: string;
}

/** `a`, `a and b`, `a, b and c`, each in backticks. */
function inputList(inputs: readonly string[]): string {
  const quoted = inputs.map((i) => `\`${i}\``);
  return quoted.length <= 1 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

/**
 * Reads the error Octokit threw for the dispatch of `workflow` on `ref` with `inputs` (the input names the
 * workflow must declare).
 */
export function dispatchFailure(
  error: unknown,
  o: { readonly workflow: string; readonly ref: string; readonly inputs: readonly string[] },
): DispatchFailure {
  const status = (error as { status?: unknown }).status;
  const said = (error as { response?: { data?: { message?: unknown } } }).response?.data?.message;
  const message = typeof said === "string" ? said : "";
  const answered = typeof status === "number" && status < 500;
  const what = `GitHub answered ${typeof status === "number" ? status : "nothing"}${message === "" ? "" : ` "${message}"`} to dispatching ${o.workflow} on ${o.ref}`;
  const workflow = escapeInline(o.workflow);
  const ref = escapeInline(o.ref);
  let fix: string;
  if (!answered) {
    fix = "GitHub did not answer: an outage, not the workflow or its inputs.";
  } else if (/^No ref found/i.test(message)) {
    fix = `The repository has no branch ${ref}: the event named it the default branch, and it was renamed or deleted since. The workflow's inputs are not the problem; a new click carries the current default branch.`;
  } else if (/workflow_dispatch/i.test(message)) {
    fix = `${workflow} on ${ref} has no \`workflow_dispatch\` trigger: add one declaring the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  } else if (status === 404) {
    fix = `${workflow} is not on ${ref} (or the App cannot read it): it must be there and accept \`workflow_dispatch\` with the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  } else {
    fix = `The workflow must exist on the default branch and accept \`workflow_dispatch\` with the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  }
  return { answered, what, fix };
}
