/**
 * How the App's check run completes for a finished workflow run (SPEC §2.3, §6): from the ledger
 * `readWorkflowRunLedger` (`src/github/workflow-run-ledger.ts`, the rule `mode: report` follows too)
 * validated, or — when there is none, or it was refused — `failure` saying why. Never green without a
 * ledger that passed every check, nor from a run GitHub does not report `success` (`agreedWithRun`,
 * `src/github/run-verdict.ts`: the ledger's success becomes GitHub's `failure`, `cancelled` or `timed_out`).
 *
 * With a ledger, the output is exactly what `mode: report` posts (`renderCheckRunOutput`, the provenance
 * appendix, cut with `withAppendix`), posted "by the evidence-gate App"; the failures' annotations are
 * placed on files of the head commit's tree (the bot has no checkout: the tree is read through the API) or,
 * when the output names none, on the workflow file. A run paused at a gate gets the Approve / Reject buttons
 * and the hidden marker saying which gate of which leg of which run they decide (`gate-buttons.ts`); a same-repository
 * run's check run also carries the run-state digests from the artifact (`run-state-digest.ts`), which the
 * resumed leg checks its run directory against, on the same last line as the gate marker.
 */
import { posix } from "node:path";
import { failureAnnotations } from "../github/check-annotations.js";
import type { CheckRunAnnotation, CheckRunConclusion } from "../github/check-run.js";
import { withAppendix } from "../github/check-run-reporter.js";
import type { GateOctokit } from "../github/octokit.js";
import { runStateDigestMarker } from "../github/run-state-digest.js";
import { agreedWithRun } from "../github/run-verdict.js";
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import {
  ledgerProvenanceMarkdown,
  refusedLedgerOutput,
  reportedLedgerAppendix,
  type WorkflowRunLedger,
} from "../github/workflow-run-ledger.js";
import type { Ledger } from "../ledger/ledger.js";
import { renderCheckRunOutput, trimmedNotice } from "../ledger/render-markdown.js";
import type { CheckOutput } from "./app-check-runs.js";
import type { CheckRunButton } from "./gate-buttons.js";
import { gateButtons, gateMarker, waitingGate } from "./gate-buttons.js";

/** What the completing write carries. */
export interface LedgerCompletion extends CheckOutput {
  readonly conclusion: CheckRunConclusion;
  readonly annotations: readonly CheckRunAnnotation[];
  readonly actions: readonly CheckRunButton[];
  /** The ledger's run id, when a ledger is posted. */
  readonly runId: string | null;
}

const DEPENDABOT = "dependabot[bot]";

/** The App permissions the provenance check reads with, as its refusals name them. */
export const APP_PERMISSIONS =
  "the App's `pull_requests: read` and `contents: read` permissions (app.yml; an owner accepts them on the installation)";

/** Who posted, as the appendix says it. */
export const POSTED_BY_APP = "the evidence-gate App";

/** Where the verdict comes from (`ledgerProvenanceMarkdown`), naming Dependabot when it triggered the run. */
export function provenanceOf(upstream: WorkflowRunEvent): string {
  const dependabot = upstream.actor === DEPENDABOT || upstream.triggeringActor === DEPENDABOT;
  return ledgerProvenanceMarkdown(upstream, { dependabot });
}

/**
 * The completing write for `found` (see the module comment).
 * @param o.commitSha the commit the check run is on, whose tree the annotations are placed on: default the
 *   event's head; the pushed commit when the run pushed one (`push: true`, `pushed-commit.ts`).
 */
export async function ledgerCompletion(o: {
  readonly found: WorkflowRunLedger;
  readonly upstream: WorkflowRunEvent;
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly commitSha?: string;
}): Promise<LedgerCompletion> {
  const { found, upstream } = o;
  const provenance = provenanceOf(upstream);
  if (found.kind !== "ledger") {
    const refused = refusedLedgerOutput({ ...found, provenance });
    return { ...refused, conclusion: "failure", annotations: [], actions: [], runId: null };
  }
  const { artifact } = found;
  // GitHub's verdict on the run bounds the ledger's (issue 22 item 2): never success from a failed run.
  const ledger = agreedWithRun(found.ledger, upstream);
  const links = upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl };
  const output = renderCheckRunOutput(ledger, links);
  // The leg is the workflow run that uploaded this ledger: the buttons decide this gate of this leg only.
  const waiting = waitingGate(ledger, { id: upstream.runId, attempt: upstream.runAttempt ?? 1 });
  // The run-state digests a later `mode: resume` checks its run directory against — a same-repository
  // run's only: a fork's run directory is never resumed (`run-artifact-download.ts`).
  const digests =
    found.digests === null || upstream.fromFork ? "" : runStateDigestMarker(ledger.runId, found.digests);
  const appendix = `${reportedLedgerAppendix({ provenance, artifact, postedBy: POSTED_BY_APP })}${
    waiting === null
      ? digests === ""
        ? ""
        : `\n\n${digests}`
      : `\n\nA person with write access decides with the buttons above: **Approve** or **Reject** gate \`${waiting.gate}\` dispatches the resume workflow for this commit.\n\n${digests === "" ? "" : `${digests} `}${gateMarker(waiting)}`
  }`;
  return {
    title: output.title,
    summary: withAppendix(output.summary, appendix, trimmedNotice(links)),
    text: output.text,
    conclusion: ledger.conclusion!.conclusion,
    annotations: await annotationsOnTree(ledger, o),
    actions:
      waiting === null || ledger.conclusion?.conclusion !== "action_required" ? [] : gateButtons(waiting),
    runId: ledger.runId,
  };
}

/**
 * The failures' annotations: files named by the output that exist in the check run's commit's tree (relative to the
 * shortest verify working directory the ledger records, the checkout), else the workflow file. The tree is
 * read only when there is a failure to mark; when it cannot be read, every mark goes on the workflow file.
 */
async function annotationsOnTree(
  ledger: Ledger,
  o: {
    readonly upstream: WorkflowRunEvent;
    readonly octokit: GateOctokit;
    readonly owner: string;
    readonly repo: string;
    readonly commitSha?: string;
  },
): Promise<CheckRunAnnotation[]> {
  const workflowFile = o.upstream.workflowPath;
  const base = { workflowFile, repoRoot: repoRootOf(ledger) };
  if (failureAnnotations(ledger, { ...base, isFile: () => false }).length === 0) return [];
  let files: ReadonlySet<string>;
  try {
    const { data } = await o.octokit.rest.git.getTree({
      owner: o.owner,
      repo: o.repo,
      tree_sha: o.commitSha ?? o.upstream.headSha,
      recursive: "1",
    });
    files = new Set(data.tree.filter((e) => e.type === "blob" && e.path !== undefined).map((e) => e.path!));
  } catch {
    files = new Set();
  }
  return failureAnnotations(ledger, {
    ...base,
    isFile: (path) => files.has(posix.relative(base.repoRoot, path)),
  });
}

/** The checkout the ledger's verify commands ran in: the shortest working directory it records, else `/`. */
function repoRootOf(ledger: Ledger): string {
  const dirs = ledger.rows.flatMap((r) => (r.verify === undefined ? [] : [r.verify.cwd]));
  const root = dirs.filter((d) => posix.isAbsolute(d)).sort((a, b) => a.length - b.length)[0];
  return root ?? "/";
}
