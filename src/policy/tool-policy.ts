/**
 * The five-layer tool policy of one node (SPEC §8; seed 001 §2.3).
 *
 * A hand-written `run` node carries only `allowedTools` (every other field absent). A planned node carries
 * all five layers. The shape is runtime-neutral; `src/runtime/*` renders it to argv.
 *
 * - `settingSources`: layer 1. `""` = load no user/project/local settings (`--setting-sources ""`);
 *   `undefined` = flag omitted (the operator's configuration loads). Stored as absent in `state.json`.
 * - `allowedTools`: layer 2, the node's declaration (`--allowedTools A,B`).
 * - `tools`: layer 3, bare names of the declaration (`--tools Read,Bash`); `undefined` = flag omitted,
 *   `[]` = `--tools ""` (no tools at all).
 * - `strictMcpConfig`: layer 4 (`--strict-mcp-config`).
 * - `disallowedTools`: layer 5, the deniable tools the node did not declare (`--disallowedTools …`), plus
 *   scoped git deny rules when a planned node declares `Bash(git …)` (`src/policy/git-deny.ts`).
 * - `agent`: a hand-written node's Claude Code subagent (`agent: NAME`), its definition read from the
 *   trusted tree (`agent-definition.ts`) and already checked not to widen `allowedTools`; claude gets
 *   `--agents '{"NAME":{…}}' --agent NAME`. Never set on a planned node. Kept in `state.json`, so a
 *   resumed leg runs the subagent the first leg read.
 */
import type { NodeAgent } from "./agent-definition.js";

export interface ToolPolicy {
  readonly settingSources?: string;
  readonly allowedTools: readonly string[];
  readonly tools?: readonly string[];
  readonly strictMcpConfig: boolean;
  readonly disallowedTools: readonly string[];
  readonly agent?: NodeAgent;
}
