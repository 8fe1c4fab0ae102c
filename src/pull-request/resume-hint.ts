/**
 * What a paused run's check run and job summary say about resuming it (SPEC §4, §6, §11): the exact inputs
 * of a `mode: resume` dispatch, the `gh` command for the README's resume workflow, and the CLI command.
 * Pure Markdown; every value spliced in sits inside a code span or block.
 */
import type { PauseRecord } from "../engine/run-state.js";
import { runArtifactName } from "../github/artifact.js";

export interface ResumeHintInput {
  readonly runId: string;
  readonly paused: PauseRecord;
  /** The commit the run started on (the resume job must check it out); `null` when unknown. */
  readonly startingSha: string | null;
}

/** The file name the README's resume workflow has (`.github/workflows/evidence-gate-resume.yml`). */
export const README_RESUME_WORKFLOW = "evidence-gate-resume.yml";

/** The Markdown section "Resume this run" for a paused run. */
export function resumeHintMarkdown(input: ResumeHintInput): string {
  const { runId, paused } = input;
  const gate = paused.node;
  const waiting =
    paused.reason === "gate"
      ? `The run is paused at gate \`${gate}\`: a person with write access to the repository approves or rejects it by dispatching a workflow that runs this action with:`
      : `Node \`${gate}\` hit the model's session limit${paused.resets_at ? ` (it resets at ${paused.resets_at})` : ""}. Once the limit resets, finish exactly the work that never ran by dispatching a workflow that runs this action with:`;
  const inputs =
    paused.reason === "gate"
      ? [`mode: resume`, `resume-run-id: ${runId}`, `approve-gate: ${gate}    # or: reject-gate: ${gate}`]
      : [`mode: resume`, `resume-run-id: ${runId}`, `retry-failed: true`];
  const sha = input.startingSha ?? "<the commit the run started on>";
  const decision = paused.reason === "gate" ? `-f approve-gate=${gate}` : "-f retry-failed=true";
  const cli = paused.reason === "gate" ? `--approve ${gate}    # or: --reject ${gate}` : "--retry-failed";
  return [
    "### Resume this run",
    "",
    waiting,
    "",
    "```yaml",
    ...inputs,
    "```",
    "",
    `The resume job must check out the commit the run started on, \`${sha}\`; it downloads the run directory from the artifact \`${runArtifactName(runId)}\` (the job needs \`actions: read\`). With the README's resume workflow:`,
    "",
    "```sh",
    `gh workflow run ${README_RESUME_WORKFLOW} -f run-id=${runId} -f sha=${sha} ${decision}`,
    "```",
    "",
    "Or, where the run directory is (the CLI):",
    "",
    "```sh",
    `evidence-gate resume ${runId} ${cli}`,
    "```",
  ].join("\n");
}
