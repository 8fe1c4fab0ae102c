/**
 * What `mode: run` reads beside the graph, from the same place as the graph (SPEC §9, §10): the pull
 * request's **base** ref at `pull_request.base.sha`, through the contents API — never the checkout, so a
 * pull request cannot rewrite a fragment or a subagent of the graph that gates it.
 *
 * - fragments: `use: NAME` → `<graph's folder>/fragments/NAME.yaml` ({@link baseRefFragments});
 * - subagents: `agent: NAME` → `.claude/agents/NAME.md` ({@link baseRefAgents}).
 *
 * A symlink or submodule at the path is refused (the contents API says so), as is a file over the bound.
 */
import {
  type BaseRefFile,
  BaseRefReadError,
  readBaseRefFile,
  unusableReason,
} from "../github/base-ref-file.js";
import {
  type BaseRefGraphTarget,
  baseRefGraphSource,
  GRAPH_FILE_MAX_BYTES,
} from "../github/base-ref-graph.js";
import type { GateOctokit } from "../github/octokit.js";
import { fragmentNameProblem } from "../graph/fragment-source.js";
import type { FragmentRead, FragmentSource } from "../graph/load.js";
import { type AgentSource, agentFilePath, agentNameProblem } from "../policy/agent-definition.js";

/** The largest agent file read from the base ref (as the CLI's `AGENT_FILE_MAX_BYTES`). */
const AGENT_MAX_BYTES = 256 * 1024;

/** The fragments of the graph at `target.path`, read at the base ref. */
export function baseRefFragments(octokit: GateOctokit, target: BaseRefGraphTarget): FragmentSource {
  const folder = target.path.includes("/")
    ? `${target.path.slice(0, target.path.lastIndexOf("/"))}/fragments`
    : "fragments";
  return {
    read: async (name) => {
      const path = `${folder}/${name}.yaml`;
      const location = baseRefGraphSource({ ...target, path });
      const problem = fragmentNameProblem(name);
      if (problem !== null) return { kind: "unreadable", location, reason: problem };
      return readText(octokit, target, path, location, {
        maxBytes: GRAPH_FILE_MAX_BYTES,
        noun: "a fragment file",
      });
    },
  };
}

/** The subagent definitions `.claude/agents/NAME.md`, read at the base ref. */
export function baseRefAgents(octokit: GateOctokit, target: Omit<BaseRefGraphTarget, "path">): AgentSource {
  return {
    read: async (name) => {
      const path = agentFilePath(name);
      const location = baseRefGraphSource({ ...target, path });
      const problem = agentNameProblem(name);
      if (problem !== null) return { kind: "unreadable", location, reason: problem };
      return readText(octokit, target, path, location, { maxBytes: AGENT_MAX_BYTES, noun: "an agent file" });
    },
  };
}

async function readText(
  octokit: GateOctokit,
  target: Omit<BaseRefGraphTarget, "path">,
  path: string,
  location: string,
  bound: { readonly maxBytes: number; readonly noun: string },
): Promise<FragmentRead> {
  let file: BaseRefFile;
  try {
    file = await readBaseRefFile(
      octokit,
      { owner: target.owner, repo: target.repo, ref: target.baseRef, sha: target.baseSha },
      path,
      { maxBytes: bound.maxBytes },
    );
  } catch (error) {
    if (!(error instanceof BaseRefReadError)) throw error;
    const status = error.status === null ? "no answer" : `HTTP ${error.status}`;
    return { kind: "unreadable", location, reason: `the API did not give it (${status}: ${error.message})` };
  }
  if (file.kind === "missing") return { kind: "missing", location };
  if (file.kind !== "file") return { kind: "unreadable", location, reason: unusableReason(file, bound) };
  try {
    return { kind: "found", location, text: new TextDecoder("utf-8", { fatal: true }).decode(file.bytes) };
  } catch {
    return { kind: "unreadable", location, reason: "it is not UTF-8 text" };
  }
}
