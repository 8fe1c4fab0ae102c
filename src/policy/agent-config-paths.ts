/**
 * Which repository paths are **agent configuration** — files the `claude` and `codex` CLIs load by
 * themselves and that can run code or instruct the model with the model credential in reach (SPEC §9;
 * research/security.md rule 7, incidents CVE-2025-59536 / CVE-2026-21852). In the action these are taken
 * from the base ref for the run, never from the pull request (`src/action/agent-config-restore.ts`).
 *
 * The rule holds **anywhere in the tree**, not only at the root and the working directory:
 * - `CLAUDE.md`, `CLAUDE.local.md`: Claude Code reads them in the working directory and every parent up
 *   to the root at start, and those in a sub-folder when it reads files there (nested memory).
 * - `AGENTS.md`, `AGENTS.override.md`: Codex reads one per folder from the project root down to its
 *   working directory.
 * - `.claude/` (settings with hooks, commands, agents, skills — nested `.claude/skills` are discovered in
 *   sub-folders too), `.codex/` (project `config.toml`), `.mcp.json`, `.claude.json`: a project folder
 *   is wherever a CLI is started (a node's `cwd` may be any folder of the repository).
 *
 * Paths are repository-relative and `/`-separated, as git prints them.
 */

/** Folders whose whole content is agent configuration, wherever they are. */
export const AGENT_CONFIG_FOLDERS: readonly string[] = [".claude", ".codex"];

/** File names that are agent configuration, wherever they are. */
export const AGENT_CONFIG_FILES: readonly string[] = [
  "CLAUDE.md",
  "CLAUDE.local.md",
  "AGENTS.md",
  "AGENTS.override.md",
  ".mcp.json",
  ".claude.json",
];

const FOLDERS = new Set(AGENT_CONFIG_FOLDERS);
const FILES = new Set(AGENT_CONFIG_FILES);

/**
 * True when `path` is agent configuration: its last segment is one of {@link AGENT_CONFIG_FILES} or
 * {@link AGENT_CONFIG_FOLDERS} (a file or link of that name counts too), or it lies inside such a folder.
 * Names compare exactly (case-sensitive, as the CLIs look them up on Linux).
 */
export function isAgentConfigPath(path: string): boolean {
  const segments = path.split("/");
  const last = segments[segments.length - 1] ?? "";
  if (FILES.has(last) || FOLDERS.has(last)) return true;
  return segments.slice(0, -1).some((segment) => FOLDERS.has(segment));
}
