/**
 * A Claude Code subagent definition a hand-written node names with `agent: NAME` (issue 15 item 3;
 * research/oh-my-graph.md §2.2): the file `.claude/agents/NAME.md` of the repository's trusted tree — the
 * committed HEAD in the CLI, the base ref in the action, never the pull request's copy — read by the
 * engine and passed to claude as `--agents '{"NAME":{…}}' --agent NAME`.
 *
 * Why the engine reads it instead of letting claude find it: nodes run settings-isolated where the run
 * asks for it (`--setting-sources ""`), and measured on claude 2.1.332 `--agent NAME` alone then does not
 * find `<cwd>/.claude/agents/NAME.md` ("--agent 'reviewer' not found"); reading the trusted tree also
 * keeps a pull request from rewriting the subagent that gates it.
 *
 * The file is Markdown with YAML front matter:
 *
 *   ---
 *   name: reviewer            optional; when given it must equal NAME
 *   description: Reviews code  required (claude needs it)
 *   tools: Read, Grep         optional: a comma-separated string or a list; within the node's allowed_tools
 *   model: sonnet             optional
 *   color: blue               optional, cosmetic: ignored
 *   ---
 *   You are a code reviewer…  the body: the subagent's system prompt (required)
 *
 * Any other front-matter field (`permissionMode`, `mcpServers`, `hooks`, `disallowedTools`, …) is refused:
 * this version passes only the fields above, and running the node without one it asked for would be a
 * different node.
 */
import { parseDocument } from "yaml";
import { bareToolName } from "./allowlist.js";

/** What `--agents` carries for one subagent (claude CLI reference, "Agents flag format"). */
export interface AgentDefinition {
  readonly description: string;
  /** The file's body: the subagent's system prompt. */
  readonly prompt: string;
  /** The subagent's tools (claude's `tools`); absent: the session's own tools. */
  readonly tools?: readonly string[];
  /** The subagent's model (claude's `model`); absent: the run's. */
  readonly model?: string;
}

/** A subagent as a node runs it: the graph's `agent:` name and its definition read from the trusted tree. */
export interface NodeAgent {
  readonly name: string;
  readonly definition: AgentDefinition;
}

/**
 * One agent file looked up by name: `location` says where, as a user would name it (`.claude/agents/reviewer.md
 * at HEAD`, `base ref main (abc1234): .claude/agents/reviewer.md`), for messages.
 */
export type AgentRead =
  | { readonly kind: "found"; readonly location: string; readonly text: string }
  | { readonly kind: "missing"; readonly location: string }
  | { readonly kind: "unreadable"; readonly location: string; readonly reason: string };

/**
 * Reads the agent file of a name that passed {@link agentNameProblem}. A missing or unreadable file is data
 * ({@link AgentRead}); the promise rejects only on the source's own internal failure.
 */
export interface AgentSource {
  read(name: string): Promise<AgentRead>;
}

const BARE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const KNOWN_FIELDS = ["name", "description", "tools", "model", "color"];

/** The repository path of agent `name`'s definition: `.claude/agents/NAME.md`. */
export function agentFilePath(name: string): string {
  return `.claude/agents/${name}.md`;
}

/**
 * Why `name` cannot name an agent file, or `null` when it can: one bare file name (letters, digits, `.`,
 * `_`, `-`, starting with a letter or digit, no `..`), so it cannot walk out of `.claude/agents/`.
 */
export function agentNameProblem(name: string): string | null {
  if (BARE_NAME.test(name) && !name.includes("..")) return null;
  return (
    `agent ${JSON.stringify(name)} is not a subagent name: write a bare name (letters, digits, ".", "_" or "-", ` +
    'starting with a letter or digit, no ".." and no "/"), read from .claude/agents/NAME.md'
  );
}

/** A definition, or every reason the file cannot be used (each a sentence about the file). */
export type AgentJudgement =
  | { readonly ok: true; readonly definition: AgentDefinition }
  | { readonly ok: false; readonly reasons: readonly string[] };

/** Judges agent `name`'s file text (see the module comment for the format). Never throws on bad input. */
export function parseAgentDefinition(name: string, text: string): AgentJudgement {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(
    text.replace(/^\uFEFF/, ""),
  );
  if (match === null) {
    return {
      ok: false,
      reasons: [
        "it has no YAML front matter: start the file with a --- line, name: and description:, then ---",
      ],
    };
  }
  const doc = parseDocument(match[1] ?? "", { uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      reasons: doc.errors.map((error) => `its front matter is not YAML: ${error.message}`),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, reasons: [`its front matter is not YAML: ${String(error)}`] };
  }
  if (!isRecord(data))
    return { ok: false, reasons: ["its front matter must be a mapping (name:, description:)"] };
  const reasons: string[] = [];
  for (const key of Object.keys(data)) {
    if (!KNOWN_FIELDS.includes(key)) {
      reasons.push(
        `front-matter field ${JSON.stringify(key)} is not passed by this version (only name, description, tools ` +
          "and model; color is ignored): remove it, or remove agent: from the node",
      );
    }
  }
  if (data.name !== undefined && data.name !== name) {
    reasons.push(`name: says ${JSON.stringify(data.name)}, but the file is ${name}.md — they must agree`);
  }
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (description === "") reasons.push("description: is missing or empty — claude needs one");
  const tools = toolsOf(data.tools, reasons);
  if (data.model !== undefined && (typeof data.model !== "string" || data.model.trim() === "")) {
    reasons.push("model: must be a model name (or left out)");
  }
  const prompt = (match[2] ?? "").trim();
  if (prompt === "")
    reasons.push("its body is empty — the body after the front matter is the subagent's prompt");
  if (reasons.length > 0) return { ok: false, reasons };
  return {
    ok: true,
    definition: {
      description,
      prompt,
      ...(tools !== undefined ? { tools } : {}),
      ...(typeof data.model === "string" ? { model: data.model.trim() } : {}),
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toolsOf(value: unknown, reasons: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : null;
  if (items === null || !items.every((item) => typeof item === "string")) {
    reasons.push('tools: must be a comma-separated string ("Read, Grep") or a list of tool names');
    return undefined;
  }
  const tools = items.map((item) => item.trim()).filter((item) => item !== "");
  if (tools.length === 0) reasons.push("tools: is empty — list the subagent's tools, or leave tools out");
  return tools;
}

/**
 * Why `definition`'s tools would widen the node's declared `allowedTools` (the tool ceiling, seed 001:
 * configuration a node loads may narrow what it declared, never widen it), or `null` when they do not.
 * The rule refuses rather than intersects, so the subagent runs with exactly the tools its file lists:
 * every tool (by bare name: `Bash(git *)` is `Bash`) must be one the node declares. A definition without
 * `tools` keeps the session's tools and widens nothing.
 */
export function agentToolsProblem(
  allowedTools: readonly string[],
  definition: AgentDefinition,
): string | null {
  if (definition.tools === undefined) return null;
  const declared = new Set(allowedTools.map(bareToolName));
  const wider = definition.tools.filter((tool) => !declared.has(bareToolName(tool)));
  if (wider.length === 0) return null;
  const list = wider.map((tool) => JSON.stringify(tool)).join(", ");
  return allowedTools.length === 0
    ? `its tools (${list}) are not declared by the node, which has no allowed_tools: a subagent may not widen what the node declares (refused, not intersected); add them to the node's allowed_tools, or drop them from the agent's tools`
    : `its tools ${list} are not among the node's allowed_tools (${allowedTools.join(", ")}): a subagent may not widen what the node declares (refused, not intersected); add them to allowed_tools, or drop them from the agent's tools`;
}
