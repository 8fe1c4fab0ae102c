/**
 * The subagents of a hand-written graph (issue 15 item 3; `policy/agent-definition.ts`): every distinct
 * `agent: NAME` is read once from the trusted tree through an {@link AgentSource} — the CLI's committed
 * HEAD ({@link agentsAtCommit}), the action's base ref — parsed, and checked against each node naming it
 * (its tools may not widen the node's `allowed_tools`), before anything runs. Every problem is reported
 * at once, each naming the file and the fix.
 */
import type { Graph } from "../graph/graph.js";
import {
  type AgentDefinition,
  type AgentRead,
  type AgentSource,
  agentFilePath,
  agentNameProblem,
  agentToolsProblem,
  parseAgentDefinition,
} from "../policy/agent-definition.js";
import { GitError, git } from "../proc/git.js";

/** Subagent name → its definition, for every name the graph's nodes give. */
export type GraphAgents = ReadonlyMap<string, AgentDefinition>;

/** The graph's subagents, or one usage-error message listing every problem (nothing ran). */
export type GraphAgentsResult =
  | { readonly ok: true; readonly agents: GraphAgents }
  | { readonly ok: false; readonly message: string };

/**
 * Reads and checks the subagents `graph` names. `source` absent with a node naming one: refused (the
 * caller has no trusted tree to read it from). `graphSource` names the graph in the message.
 */
export async function resolveGraphAgents(
  graph: Graph,
  source: AgentSource | undefined,
  graphSource: string,
): Promise<GraphAgentsResult> {
  const users = graph.nodes.filter((node) => node.agent !== null);
  if (users.length === 0) return { ok: true, agents: new Map() };
  const problems: string[] = [];
  const agents = new Map<string, AgentDefinition>();
  for (const name of new Set(users.map((node) => node.agent as string))) {
    const nameProblem = agentNameProblem(name);
    if (nameProblem !== null) {
      problems.push(nameProblem);
      continue;
    }
    if (source === undefined) {
      problems.push(
        `agent ${JSON.stringify(name)}: this surface has no trusted tree to read ${agentFilePath(name)} from`,
      );
      continue;
    }
    const read = await source.read(name);
    const judged = judgeRead(name, read);
    if (typeof judged === "string") problems.push(judged);
    else agents.set(name, judged);
  }
  for (const node of users) {
    const definition = agents.get(node.agent as string);
    if (definition === undefined) continue;
    const wider = agentToolsProblem(node.allowed_tools, definition);
    if (wider !== null) problems.push(`node "${node.id}" (agent ${JSON.stringify(node.agent)}): ${wider}`);
  }
  if (problems.length === 0) return { ok: true, agents };
  return {
    ok: false,
    message: `${graphSource}: the subagents its nodes name cannot be used:\n${problems.map((p) => `- ${p}`).join("\n")}\nNothing was run.`,
  };
}

function judgeRead(name: string, read: AgentRead): AgentDefinition | string {
  switch (read.kind) {
    case "missing":
      return `agent ${JSON.stringify(name)}: no file ${read.location}. A subagent is read from ${agentFilePath(name)} in the repository's trusted tree (the CLI: the committed HEAD; the action: the base ref), never from ~/.claude or uncommitted files: commit the definition there, or remove agent: from the node`;
    case "unreadable":
      return `agent ${JSON.stringify(name)}: cannot read ${read.location}: ${read.reason}`;
    case "found": {
      const parsed = parseAgentDefinition(name, read.text);
      if (parsed.ok) return parsed.definition;
      return `agent ${JSON.stringify(name)}: ${read.location}: ${parsed.reasons.join("; ")}`;
    }
    default:
      return read satisfies never;
  }
}

/** The largest agent file read: 256 KiB (a definition is a page of Markdown). */
export const AGENT_FILE_MAX_BYTES = 256 * 1024;

/**
 * The CLI's agent source: `.claude/agents/NAME.md` as committed at `rev` (default `HEAD`) in the git
 * repository at `repoDir` (`git cat-file`), never the working tree's copy. A path absent at `rev` is
 * `missing`; a symlink or a submodule there, or a folder git cannot read `rev` in, is `unreadable`.
 */
export function agentsAtCommit(
  repoDir: string,
  options: { readonly rev?: string; readonly baseEnv?: Readonly<Record<string, string | undefined>> } = {},
): AgentSource {
  const rev = options.rev ?? "HEAD";
  const gitOptions = { cwd: repoDir, ...(options.baseEnv !== undefined ? { baseEnv: options.baseEnv } : {}) };
  return {
    async read(name: string): Promise<AgentRead> {
      const path = agentFilePath(name);
      const location = `${path} at ${rev}`;
      let entry: string;
      try {
        // `--full-tree`: the path is from the repository root even when repoDir is a sub-folder. `ls-tree` says what the path is (blob 100644/100755, symlink 120000, submodule 160000).
        entry = await git(["ls-tree", "--full-tree", "-z", rev, "--", path], gitOptions);
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        return {
          kind: "unreadable",
          location,
          reason: `git cannot read ${rev} in ${repoDir} (${error.detail})`,
        };
      }
      const match = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(entry);
      if (match === null) return { kind: "missing", location };
      if (match[2] !== "blob" || match[1] === "120000") {
        return {
          kind: "unreadable",
          location,
          reason: "it is not a regular file (a symlink or a submodule)",
        };
      }
      const size = Number(await git(["cat-file", "-s", match[3]!], gitOptions));
      if (size > AGENT_FILE_MAX_BYTES) {
        return {
          kind: "unreadable",
          location,
          reason: `it is ${size} bytes; an agent file may be at most ${AGENT_FILE_MAX_BYTES}`,
        };
      }
      return { kind: "found", location, text: await git(["cat-file", "blob", match[3]!], gitOptions) };
    },
  };
}
