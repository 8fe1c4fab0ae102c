/**
 * The action's mode and the inputs only that mode reads (SPEC §10, §11), read from the runner's `INPUT_*`
 * variables: `mode`, or the default from which of `goal` / `graph` was given; a resume's run id and its one
 * decision; and every input a mode does not read refused by name rather than ignored.
 */
import { isGitHubLogin } from "../core/github-login.js";
import { isRunId } from "../core/run-id.js";
import { unreachable } from "../core/unreachable.js";
import { normaliseGraphPath } from "../graph/graph-path.js";
import type { ModeInputs, ResumeDecision } from "../pull-request/action-inputs.js";

type Env = Readonly<Record<string, string | undefined>>;

const MODES = ["auto", "run", "verify", "lint", "resume", "report"] as const;

// What `{{ inputs.NAME }}` can name (graph/placeholders.ts): a name no placeholder can name is a typo.
const INPUT_NAME = /^[A-Za-z0-9._/-]+$/;

export function raw(env: Env, name: string): string | undefined {
  const value = env[`INPUT_${name.toUpperCase()}`];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** YAML 1.2 core-schema booleans, as `core.getBooleanInput` accepts them. */
export function bool(env: Env, name: string, errors: string[]): boolean {
  const value = raw(env, name);
  if (value === undefined) return false;
  if (["true", "True", "TRUE"].includes(value)) return true;
  if (["false", "False", "FALSE"].includes(value)) return false;
  errors.push(`input \`${name}\` is ${JSON.stringify(value)}: use true or false`);
  return false;
}

/**
 * The `inputs` input: one `NAME=VALUE` per line (blank lines skipped; the value is everything after the
 * first `=`). Each bad line is an error naming its line number and text.
 */
export function parseGraphInputs(text: string | undefined, errors: string[]): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  if (text === undefined) return values;
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === "") return;
    const where = `input \`inputs\` line ${index + 1} (${JSON.stringify(line)})`;
    const at = line.indexOf("=");
    const name = at < 0 ? "" : line.slice(0, at).trim();
    if (at < 0 || name === "") {
      errors.push(`${where}: give NAME=VALUE, one per line, e.g. task=fix the login bug`);
    } else if (!INPUT_NAME.test(name)) {
      errors.push(
        `${where}: NAME may hold only letters, digits, ".", "_", "-" or "/" (it is what {{ inputs.NAME }} names)`,
      );
    } else if (Object.hasOwn(values, name)) {
      errors.push(`${where}: ${name} was given on an earlier line too: give each input once`);
    } else {
      values[name] = line.slice(at + 1);
    }
  });
  return values;
}

/** The mode, from `mode` or from which of `goal` / `graph` was given. */
export function readMode(env: Env, errors: string[]): ModeInputs | undefined {
  const given = raw(env, "mode");
  const goal = raw(env, "goal");
  const graph = raw(env, "graph");
  if (given !== undefined && !(MODES as readonly string[]).includes(given)) {
    errors.push(`input \`mode\` is ${JSON.stringify(given)}: use one of ${MODES.join(", ")}`);
    return undefined;
  }
  const mode = (given ??
    (graph !== undefined && goal === undefined ? "run" : "auto")) as (typeof MODES)[number];
  const graphInputsText = raw(env, "inputs");
  const resumeNames = ["resume-run-id", "approve-gate", "reject-gate", "approver"].filter(
    (n) => raw(env, n) !== undefined,
  );
  if (mode !== "resume") {
    if (bool(env, "retry-failed", [])) resumeNames.push("retry-failed");
    if (resumeNames.length > 0) {
      errors.push(
        `${resumeNames.map((n) => `input \`${n}\``).join(", ")} ${resumeNames.length === 1 ? "belongs" : "belong"} to mode resume, not ${mode}: set \`mode: resume\` or drop ${resumeNames.length === 1 ? "it" : "them"}`,
      );
    }
  }
  if (mode === "resume") return readResume(env, errors, { goal, graph, graphInputsText });
  if (mode === "report") return readReport(errors, { goal, graph, graphInputsText });
  if (mode === "verify") {
    const stray = (
      [
        ["goal", goal],
        ["graph", graph],
        ["inputs", graphInputsText],
      ] as const
    ).filter(([, value]) => value !== undefined);
    if (stray.length > 0) {
      errors.push(
        `mode verify runs only the verify command (no model, no graph): drop ${stray.map(([n]) => `input \`${n}\``).join(", ")}`,
      );
    }
    return { kind: "verify" };
  }
  if (goal !== undefined && graph !== undefined) {
    errors.push(
      "inputs `goal` and `graph` were both given: give `goal` to plan a graph (mode auto) or `graph` to run a hand-written one (mode run), not both",
    );
    return undefined;
  }
  if (mode === "auto") {
    if (goal === undefined) {
      errors.push(
        graph !== undefined
          ? "mode auto plans from input `goal`, and `graph` was given instead: drop `mode: auto` to run the graph, or give `goal`"
          : "input `goal` or `graph` is required: `goal` says what a planned run should achieve (mode auto), `graph` names a hand-written graph file (mode run)",
      );
      return undefined;
    }
    if (graphInputsText !== undefined) {
      errors.push(
        "input `inputs` fills a hand-written graph's {{ inputs.NAME }} (mode run or lint); mode auto has none: drop it",
      );
    }
    return { kind: "auto", goal };
  }
  // run or lint: a graph file.
  if (goal !== undefined) {
    errors.push(
      `mode ${mode} reads the graph file in input \`graph\`; input \`goal\` belongs to mode auto: drop it`,
    );
  }
  if (graph === undefined) {
    errors.push(
      `mode ${mode} needs input \`graph\`: the graph file's path in the repository, e.g. .github/evidence-gate/review.yml`,
    );
    return undefined;
  }
  const path = normaliseGraphPath(graph);
  const graphInputs = parseGraphInputs(graphInputsText, errors);
  if (!path.ok) {
    errors.push(`input \`graph\` is ${JSON.stringify(graph)}: ${path.problem}`);
    return undefined;
  }
  return { kind: mode, graph: path.path, graphInputs };
}

function readResume(
  env: Env,
  errors: string[],
  given: { goal?: string; graph?: string; graphInputsText?: string },
): ModeInputs | undefined {
  const stray = (
    [
      ["goal", given.goal],
      ["graph", given.graph],
      ["inputs", given.graphInputsText],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (stray.length > 0) {
    errors.push(
      `mode resume continues the run's own graph and inputs, recorded in its run directory: drop ${stray.map(([n]) => `input \`${n}\``).join(", ")}`,
    );
  }
  const runId = raw(env, "resume-run-id");
  if (runId === undefined) {
    errors.push(
      "mode resume needs input `resume-run-id`: the run id (YYYYMMDD-HHMMSS-xxxxxx) the paused check run names",
    );
  } else if (!isRunId(runId)) {
    errors.push(
      `input \`resume-run-id\` is ${JSON.stringify(runId)}: give a run id of the form YYYYMMDD-HHMMSS-xxxxxx, as the check run names it`,
    );
  }
  const approve = raw(env, "approve-gate");
  const reject = raw(env, "reject-gate");
  const retry = bool(env, "retry-failed", errors);
  const chosen = [
    ...(approve !== undefined ? ["approve-gate"] : []),
    ...(reject !== undefined ? ["reject-gate"] : []),
    ...(retry ? ["retry-failed"] : []),
  ];
  if (chosen.length !== 1) {
    errors.push(
      chosen.length === 0
        ? "mode resume needs exactly one of inputs `approve-gate`, `reject-gate` or `retry-failed: true`: none was given"
        : `mode resume takes exactly one of inputs \`approve-gate\`, \`reject-gate\` or \`retry-failed: true\`; ${chosen.map((n) => `\`${n}\``).join(" and ")} were given`,
    );
  }
  const approver = raw(env, "approver");
  if (approver !== undefined && !isGitHubLogin(approver)) {
    errors.push(
      `input \`approver\` is ${JSON.stringify(approver)}: give a GitHub login (letters, digits and single hyphens, at most 39 characters), as the evidence-gate App passes it`,
    );
  } else if (approver !== undefined && retry) {
    errors.push(
      "input `approver` names who decided a gate; `retry-failed: true` decides none: drop `approver`",
    );
  }
  if (runId === undefined || !isRunId(runId) || chosen.length !== 1) return undefined;
  const decision: ResumeDecision =
    approve !== undefined
      ? { kind: "approve", gate: approve }
      : reject !== undefined
        ? { kind: "reject", gate: reject }
        : { kind: "retry-failed" };
  return {
    kind: "resume",
    runId,
    decision,
    ...(approver !== undefined && isGitHubLogin(approver) ? { approver } : {}),
  };
}

/** `mode: report` takes everything from the `workflow_run` event and the artifact: no graph, no goal. */
function readReport(
  errors: string[],
  given: { goal?: string; graph?: string; graphInputsText?: string },
): ModeInputs | undefined {
  const stray = (
    [
      ["goal", given.goal],
      ["graph", given.graph],
      ["inputs", given.graphInputsText],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (stray.length > 0) {
    errors.push(
      `mode report posts the ledger the pull request's workflow run uploaded; it runs nothing: drop ${stray.map(([n]) => `input \`${n}\``).join(", ")}`,
    );
    return undefined;
  }
  return { kind: "report" };
}

/**
 * Inputs a mode does not read are refused rather than ignored: a run that silently dropped a verify
 * command or a model would not be the run the workflow asked for.
 */
export function strayInputs(env: Env, mode: ModeInputs, errors: string[]): void {
  const refuse = (names: readonly string[], why: string): void => {
    const given = names.filter((n) =>
      n === "accept-no-build-evidence" || n === "accept-loaded-user-config" || n === "push"
        ? bool(env, n, [])
        : raw(env, n) !== undefined,
    );
    for (const name of given) errors.push(`input \`${name}\` does not apply to mode ${mode.kind}: ${why}`);
  };
  // `accept-loaded-user-config` is an `auto` input (SPEC §8): every other mode refuses it with its reason.
  switch (mode.kind) {
    case "auto":
      // Allowed: agent configuration files are restored from the base ref before any CLI starts (SPEC §9,
      // agent-config-restore.ts), so "the operator's configuration" is the base branch's project files.
      return;
    case "run":
      refuse(
        ["verify-cmd", "accept-no-build-evidence"],
        "a hand-written graph declares its own success_check.verify on each node (README: A hand-written graph); drop it",
      );
      refuse(
        ["accept-loaded-user-config"],
        "hand-written nodes run with only their own allowed_tools and never with a loaded user configuration; drop it",
      );
      refuse(
        ["repair-attempts", "max-cycles", "max-cost-usd"],
        "a hand-written graph declares completion (with its own max_attempts) on the nodes it gates (docs/graph-format.md: completion); drop it",
      );
      return;
    case "verify":
      refuse(
        [
          "accept-no-build-evidence",
          "accept-loaded-user-config",
          "model",
          "repair-attempts",
          "max-cycles",
          "max-cost-usd",
        ],
        "mode verify runs no model, and needs a verify command (verify-cmd, or the policy file's); drop it",
      );
      return;
    case "lint":
      refuse(
        [
          "verify-cmd",
          "accept-no-build-evidence",
          "accept-loaded-user-config",
          "model",
          "working-directory",
          "codex-config",
          "push",
          "push-token",
          "repair-attempts",
          "max-cycles",
          "max-cost-usd",
          "report-to",
        ],
        "lint only reads the graph file: nothing runs; drop it",
      );
      return;
    case "resume":
      refuse(
        [
          "verify-cmd",
          "accept-no-build-evidence",
          "model",
          "working-directory",
          "repair-attempts",
          "max-cycles",
          "max-cost-usd",
        ],
        "a resumed leg keeps the first leg's settings, and takes nothing that could widen them; drop it",
      );
      refuse(["push", "push-token"], "a resumed leg does not push in this version; drop it");
      refuse(
        ["accept-loaded-user-config"],
        "it is inherited from the run's first leg (recorded in its tool policies), and a resumed leg takes nothing that could widen them; drop it",
      );
      return;
    case "report":
      refuse(
        [
          "verify-cmd",
          "verify-env",
          "accept-no-build-evidence",
          "accept-loaded-user-config",
          "model",
          "working-directory",
          "concurrency",
          "anthropic-api-key",
          "claude-code-oauth-token",
          "push",
          "push-token",
          "report-to",
        ],
        "mode report runs no model and no command, and holds no model credential (it runs with the base repository's write token); drop it",
      );
      return;
    default:
      unreachable(mode);
  }
}
