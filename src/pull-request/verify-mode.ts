/**
 * `mode: verify` (SPEC §10), and what a pull request without a model credential runs (SPEC §6 table, §10):
 * the engine runs the verify command once on the checked-out head (`runVerifyOnly`), and the one-row
 * ledger is reported like any run. The command is the workflow's `verify-cmd`, else the base branch
 * policy's `verify-cmd`; with neither, nothing runs and the check run says what to change.
 *
 * A fork's or Dependabot's pull request gets no repository secrets, so `auto`/`run` would fail at the first
 * model call: {@link missingModelCredential} sees that before anything runs, and the run becomes verify-only
 * (with a notice) when a verify command is given, or ends `action_required` naming the missing secret.
 * A fork's pull request that has a model key but no writer's approval at its head (`forkApprovalMissing`,
 * issue 12 item 4) is verify-only the same way: the key is not used.
 */
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import { chooseVerifyCommand } from "../evidence/verify-choice.js";
import { startRun } from "../run/start-run.js";
import {
  actionPorts,
  actionRequestBase,
  announcePolicy,
  endRun,
  type PullRequestRun,
  reportRun,
} from "./running-mode.js";

/** Why a run is verify-only: the mode asked for it, or the pull request has no model credential. */
export type VerifyOnlyReason =
  | { readonly kind: "mode" }
  | { readonly kind: "no-credential"; readonly missing: readonly string[] }
  /** A fork's pull request with a model key that no writer approved at its head (`forkApprovalMissing`). */
  | { readonly kind: "fork-unapproved"; readonly why: string };

function secretWords(missing: readonly string[]): string {
  return missing.map((m) => `\`${m}\``).join(" or ");
}

/** Runs the verify command alone on `run`'s checkout and reports it; ends early when there is no command. */
export async function runVerifyMode(run: PullRequestRun, reason: VerifyOnlyReason): Promise<void> {
  const { event, inputs } = run;
  const policy = announcePolicy(run);
  const verify = chooseVerifyCommand({
    ...(inputs.verifyCmd !== undefined ? { given: inputs.verifyCmd } : {}),
    acceptNoBuildEvidence: false,
    ...(policy !== undefined ? { policy } : {}),
    surface: "action",
  });
  const forkWords = event.isDependabot
    ? "a Dependabot pull request (GitHub gives its workflows Dependabot secrets only)"
    : event.isFork
      ? "a fork's pull request (GitHub gives its workflows no repository secrets)"
      : "this run";
  if (verify.kind === "none") {
    if (reason.kind === "mode") {
      return endRun(run, {
        kind: "usage-error",
        message:
          "mode verify needs a verify command: give the input `verify-cmd` (e.g. `npm test`), or `verify-cmd` in the base branch's .github/evidence-gate.yml",
      });
    }
    if (reason.kind === "fork-unapproved") {
      return endRun(run, {
        kind: "refused",
        reason: "fork-unapproved",
        message: `No model ran: ${reason.why}. No verify command was given either: give \`verify-cmd\` (or verify-cmd in the base branch's .github/evidence-gate.yml) so unapproved fork pull requests get the verify command's verdict.`,
      });
    }
    return endRun(run, {
      kind: "refused",
      reason: "no-credential",
      message: `No model ran: ${secretWords(reason.missing)} is empty for ${forkWords}, and no verify command was given. Give \`verify-cmd\` (or set verify-cmd in the base branch's .github/evidence-gate.yml) so such pull requests get the verify command's verdict, or provide the ${secretWords(reason.missing)} secret.`,
    });
  }
  const notes = [...run.notes];
  if (reason.kind === "no-credential") {
    const command = verify.kind === "chosen" ? verify.command : (inputs.verifyCmd ?? policy?.verifyCmd ?? "");
    const notice = `No model credential (${secretWords(reason.missing)} is empty for ${forkWords}): this run is verify-only — the engine runs \`${shownCommand(command)}\` once on the pull request's head, and no model is called.`;
    run.runner.notice(notice);
    notes.push(notice);
  }
  if (reason.kind === "fork-unapproved") {
    const command = verify.kind === "chosen" ? verify.command : (inputs.verifyCmd ?? policy?.verifyCmd ?? "");
    const notice = `${reason.why}. This run is verify-only: the engine runs \`${shownCommand(command)}\` once on the pull request's head, and no model is called.`;
    run.runner.notice(notice);
    notes.push(notice);
  }
  if (verify.kind === "empty") {
    return endRun(run, { kind: "usage-error", message: `${verify.message} Nothing was run.` }, notes);
  }
  const result = await startRun(
    {
      mode: { kind: "verify", verify },
      ...actionRequestBase(run),
      pr: { headSha: event.headSha, baseRef: event.baseRef, baseSha: event.baseSha },
      ...(policy !== undefined ? { policy } : {}),
    },
    actionPorts(run),
  );
  switch (result.kind) {
    case "usage_error":
      return endRun(run, { kind: "usage-error", message: result.message }, notes);
    case "finished":
      return reportRun(run, result, notes);
    default:
      return unreachable(result);
  }
}
