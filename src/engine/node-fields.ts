/**
 * The interpolate step of a node's lifecycle (SPEC §3 "Placeholders", §4): its prompt, cwd, verify command,
 * verify cwd and completion command with `{{ inputs.NAME }}`, `{{ artifacts.ID }}`, `{{ artifacts.ID | inline }}` and
 * `{{ feedback.ID }}` resolved, and the two directories checked to be folders inside the repository.
 * A field that cannot be resolved, or a directory that cannot be a node's, fails the node with a
 * `run_error` and no retry (research/oh-my-graph.md §2.4) — nothing is spawned.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { GraphNode } from "../graph/graph.js";
import { type InterpolationContext, interpolate } from "../graph/placeholders.js";
import type { AgentNodeSpec } from "./agent-node-spec.js";
import { liesInRepository } from "./outside-writes.js";

/** A node's fields as its executions use them: resolved text and absolute directories. Times in ms. */
export interface NodeFields {
  readonly prompt: string;
  /** The node's directory: `cwd` resolved against the run's working directory (that directory if unset). */
  readonly cwd: string;
  /** `success_check.verify` with its command resolved and its cwd resolved against {@link cwd}. */
  readonly verify: AgentNodeSpec["verify"];
  /** `completion.verify.command` resolved (it runs in {@link cwd}); absent when the node's gate has none. */
  readonly completionCommand?: string;
}

/** The fields, or why the node cannot run (the FAIL row's detail, naming the field). */
export type NodeFieldsResult =
  | { readonly ok: true; readonly fields: NodeFields }
  | { readonly ok: false; readonly detail: string };

/** Where a node runs: the repository root (git work tree) and the run's working directory inside it. */
export interface NodeDirectories {
  readonly repoDir: string;
  readonly workDir: string;
}

/**
 * Resolves `node`'s fields against `values` and checks its directories.
 *
 * In the verify and completion commands every substituted value is one shell word, single-quoted ({@link shellQuote}): an
 * input value or a model's reply (`| inline`, `{{ feedback.ID }}`) cannot add shell syntax to the command
 * the engine runs as its evidence (`a; touch /tmp/x` stays the argument `'a; touch /tmp/x'`).
 *
 * @returns the fields, or the first problem in the order prompt, cwd, verify command, verify cwd, then
 *   the node's directory, then the verify's directory.
 */
export function nodeFields(
  node: GraphNode,
  values: InterpolationContext,
  dirs: NodeDirectories,
): NodeFieldsResult {
  const verify = node.success_check.verify;
  const quoted = shellWords(values);
  const texts = {
    prompt: interpolated("prompt", node.prompt, values),
    cwd: node.cwd === null ? null : interpolated("cwd", node.cwd, values),
    verifyCommand: verify ? interpolated("success_check.verify.command", verify.command, quoted) : null,
    verifyCwd: verify?.cwd != null ? interpolated("success_check.verify.cwd", verify.cwd, values) : null,
    completionCommand:
      node.completion?.verify.kind === "command"
        ? interpolated("completion.verify.command", node.completion.verify.command, quoted)
        : null,
  };
  const failure = Object.values(texts).find((v): v is Unresolved => v !== null && typeof v === "object");
  if (failure !== undefined) return { ok: false, detail: failure.error };
  const resolved = texts as { readonly [K in keyof typeof texts]: Exclude<(typeof texts)[K], Unresolved> };
  const cwd = resolved.cwd === null ? dirs.workDir : resolve(dirs.workDir, resolved.cwd);
  const verifyCwd = resolved.verifyCwd === null ? cwd : resolve(cwd, resolved.verifyCwd);
  const problem =
    directoryProblem(cwd, dirs.repoDir, "cwd") ??
    (verify ? directoryProblem(verifyCwd, dirs.repoDir, "success_check.verify.cwd") : null);
  if (problem !== null) return { ok: false, detail: problem };
  return {
    ok: true,
    fields: {
      prompt: resolved.prompt,
      cwd,
      verify:
        verify && resolved.verifyCommand !== null
          ? {
              command: resolved.verifyCommand,
              cwd: verifyCwd,
              timeoutMs: verify.timeout_ms,
              expectExit: verify.expect_exit,
              outputMatches: verify.output_matches,
            }
          : null,
      ...(resolved.completionCommand !== null ? { completionCommand: resolved.completionCommand } : {}),
    },
  };
}

/** `value` as one POSIX shell word: single-quoted, each `'` written `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** A field whose placeholders did not resolve: the message names the field. */
interface Unresolved {
  readonly error: string;
}

function interpolated(what: string, template: string, ctx: InterpolationContext): string | Unresolved {
  const result = interpolate(template, ctx);
  return result.ok ? result.text : { error: `${what}: ${result.message}` };
}

/** `values` with every value one shell word. */
function shellWords(values: InterpolationContext): InterpolationContext {
  const quote = (value: string | undefined): string | undefined =>
    value === undefined ? undefined : shellQuote(value);
  return {
    inputs: Object.fromEntries(Object.entries(values.inputs).map(([k, v]) => [k, shellQuote(v)])),
    artifactPath: (ref) => quote(values.artifactPath(ref)),
    readArtifact: (ref) => quote(values.readArtifact(ref)),
    feedback: (ref) => quote(values.feedback(ref)),
  };
}

/** Why `dir` cannot be a node's directory (missing, not a folder, outside the repository); `null` if fine. */
function directoryProblem(dir: string, repoDir: string, field: string): string | null {
  if (!liesInRepository(dir, { cwd: repoDir, repoRoot: repoDir })) {
    return `${field} ${dir} is outside the repository ${repoDir}: a node runs inside the repository whose tree is the evidence`;
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${field} ${dir} is not a folder`;
  return null;
}
