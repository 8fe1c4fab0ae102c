/**
 * `mode: lint` (SPEC §3, §10): the graph **under review**, read from the workspace, checked like
 * `evidence-gate lint` — every load error and every advisory — with nothing run and no model called. Each
 * finding goes to the log as an annotation on the graph file (at its node's line when it can be found) and
 * to the job summary. The step fails on any error; advisories alone pass. No check run is posted: the
 * step's own status is the verdict. As `evidence-gate lint` does, the graph is linted spliced: a `use: NAME`
 * node's fragment is read from `fragments/NAME.yaml` beside the graph file in the workspace. Output
 * `outcome` is `passed` or `failed` only (README "Outputs"), an unreadable graph or a bad input included.
 */
import { resolve } from "node:path";
import * as core from "@actions/core";
import { readWorkspaceGraph } from "../github/base-ref-graph.js";
import { writeJobSummary } from "../github/job-summary.js";
import { fragmentsBeside } from "../graph/fragment-source.js";
import { formatIssue } from "../graph/issue.js";
import { formatAdvisory, lintGraphFile } from "../graph/lint.js";
import { nodeIdLines } from "../graph/node-lines.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import type { ActionInputs, ModeInputs } from "../pull-request/action-inputs.js";
import { type Env, failWithoutCheckRun, finishStep } from "../pull-request/step-result.js";
import { coreRunner } from "./runner.js";

export interface LintModeOptions {
  readonly env: Env;
  readonly inputs: ActionInputs;
  readonly mode: Extract<ModeInputs, { kind: "lint" }>;
}

export async function runLintMode(o: LintModeOptions): Promise<void> {
  const { env, mode } = o;
  const workspace = resolve(env.GITHUB_WORKSPACE ?? process.cwd());
  const read = await readWorkspaceGraph(workspace, mode.graph);
  if (!read.ok)
    return failWithoutCheckRun(coreRunner, env, {
      outcome: "failed",
      title: "the graph could not be read",
      message: read.message,
    });
  const { errors, advisories } = await lintGraphFile(
    read.text,
    mode.graph,
    fragmentsBeside(read.file, mode.graph),
    {
      inputs: Object.keys(mode.graphInputs),
      verifyTimeoutCeilingMs: o.inputs.verifyTimeoutMs,
      giveInput: (name) => `add the line \`${name}=VALUE\` to the input \`inputs\``,
    },
  );
  const lines = nodeIdLines(read.text);
  const at = (nodeId: string | null): core.AnnotationProperties => {
    const line = nodeId === null ? undefined : lines.get(nodeId);
    return {
      title: "evidence-gate lint",
      file: mode.graph,
      ...(line !== undefined ? { startLine: line } : {}),
    };
  };
  for (const issue of errors) core.error(formatIssue(issue), at(issue.nodeId));
  for (const advisory of advisories) core.warning(formatAdvisory(advisory), at(advisory.nodeId));
  const count = `${plural(errors.length, "error", "errors")}, ${plural(advisories.length, "advisory", "advisories")}`;
  core.info(`lint ${mode.graph}: ${count}`);
  const list = (items: readonly string[]): string[] => items.map((text) => `- ${escapeInline(text)}`);
  const summary = [
    `## ${errors.length > 0 ? "❌" : "✅"} evidence-gate lint: ${escapeInline(mode.graph)}`,
    "",
    `${count}. Nothing ran and no model was called: lint reads the graph under review from the workspace. (\`mode: run\` reads the graph from the base ref.)`,
    ...(errors.length > 0 ? ["", "### Errors", "", ...list(errors.map(formatIssue))] : []),
    ...(advisories.length > 0 ? ["", "### Advisories", "", ...list(advisories.map(formatAdvisory))] : []),
    "",
  ].join("\n");
  await writeJobSummary(summary, { env });
  finishStep(
    coreRunner,
    { outcome: errors.length > 0 ? "failed" : "passed", conclusion: "" },
    `lint found ${count} in ${mode.graph}`,
  );
}

/**
 * `mode: lint` with an input problem: the step fails with every problem in the log and the job summary,
 * output `outcome=failed` (lint sets `passed` or `failed` only). No API call and no check run, as for any lint.
 */
export async function failLintInputs(env: Env, errors: readonly string[]): Promise<void> {
  const summary = [
    "## ❌ evidence-gate lint: the inputs have problems",
    "",
    `${plural(errors.length, "problem", "problems")} in the step's inputs; nothing was linted, nothing ran and no model or API was called.`,
    "",
    ...errors.map((text) => `- ${escapeInline(text)}`),
    "",
  ].join("\n");
  await writeJobSummary(summary, { env });
  core.setOutput("outcome", "failed");
  core.setFailed(`evidence-gate: lint: ${errors.join("\n")}`);
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
