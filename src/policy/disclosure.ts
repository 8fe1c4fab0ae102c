/**
 * The tool-ceiling disclosure slot of the plan section (SPEC §6, §8; seed 001 §1.5, §2.6).
 *
 * One slot, one paragraph: the isolated paragraph or the loaded-configuration paragraph for the run's
 * runtime — never both, never neither. Which one is decided by the policies actually spawned
 * (`loadedUserConfigOf` in `ceiling.ts`), so a resumed leg reprints what its first leg chose.
 *
 * "The operator's configuration" differs by surface: in the CLI it is the user's own HOME plus the
 * repository's project files; in the action each CLI runs with a fresh HOME / CODEX_HOME and agent
 * configuration files are restored from the base branch first, so it is the base branch's project files
 * only. The action paragraph says so.
 */
import { unreachable } from "../core/unreachable.js";
import { loadedUserConfigOf } from "./ceiling.js";
import type { ToolPolicy } from "./tool-policy.js";

/** Which model CLI a run spawns (SPEC §4): chosen run-wide, recorded in `state.json` as `runtime`. */
export type Runtime = "claude" | "codex";
export type DisclosureSurface = "cli" | "action";

export interface CeilingDisclosureOptions {
  readonly runtime: Runtime;
  /** Read from the planned policies: no `settingSources` on them means the operator opted in. */
  readonly loadedUserConfig: boolean;
  readonly surface: DisclosureSurface;
}

interface Voice {
  /** Whose configuration: "your" in the CLI (the person at the terminal), "the operator's" in the action. */
  readonly whose: string;
  /** How the opt-in was typed on this surface. */
  readonly optIn: string;
  /** The action's sentence about fresh homes, or nothing. */
  readonly home: (runtime: Runtime) => string;
  /**
   * What codex's isolation items do NOT drop: `$CODEX_HOME/AGENTS.md` is still injected (measured on
   * codex-cli 0.169.0; `src/runtime/codex-argv.ts`). In the CLI that is the operator's own file; the
   * action's fresh CODEX_HOME holds none, so there the sentence is empty.
   */
  readonly codexHomeAgents: string;
}

const VOICES: Record<DisclosureSurface, Voice> = {
  cli: {
    whose: "your",
    optIn: "--accept-loaded-user-config",
    home: () => "",
    codexHomeAgents:
      " Not dropped: your own AGENTS.md in CODEX_HOME (~/.codex/AGENTS.md by default) still reaches them, " +
      "because codex's isolation flags leave that file in.",
  },
  action: {
    whose: "the operator's",
    optIn: "accept-loaded-user-config: true",
    codexHomeAgents: "",
    home: (runtime) =>
      ` In this action each CLI runs with a fresh ${runtime === "codex" ? "HOME and CODEX_HOME" : "HOME"}, ` +
      "so the operator's configuration is the base branch's project files only.",
  },
};

function claudeIsolated(voice: Voice): string {
  return (
    "Planned nodes run isolated: no user, project or local settings load for them, so no standing " +
    "permission grant widens a declared scope such as Bash(git *), and " +
    `${voice.whose} CLAUDE.md, hooks and MCP servers are not available to them.` +
    voice.home("claude") +
    " A declared scope is a command prefix, not a sandbox: a Bash(git …) grant is narrowed by deny rules " +
    "for git's known ways to run programs, write files or reach the network. SECURITY.md lists what this " +
    "isolation does not cover."
  );
}

function claudeLoaded(voice: Voice): string {
  return (
    `Planned nodes run with ${voice.whose} configuration (${voice.optIn}): user, project and local ` +
    `settings load, and with them ${voice.whose} CLAUDE.md, hooks and MCP servers.` +
    voice.home("claude") +
    " Standing permission grants in those settings load too, so a declared scope such as Bash(git *) is a " +
    "declaration again, not a limit: a call those settings allow will run. Each node's --tools set and deny " +
    "list still bind, and enterprise or managed policy is neither dropped nor widened by this choice." +
    " Agent mapping and skill activation stay off: this project stages no agent or skill definition for a " +
    "planned node, and a plan can neither name an agent nor grant the Skill tool, so agents and skills " +
    "your settings define load but no planned node is given them."
  );
}

/**
 * What binds a planned Codex node instead of its tool list (SPEC §8: layers 2, 3 and 5 have no Codex
 * rendering). Planned nodes never carry `bypassPermissions`, so their sandbox is workspace-write or, for
 * `plan`, read-only. Writable roots and the network are as measured (research/fake-model.md §4.7, §5).
 */
const CODEX_PLANNED_SANDBOX =
  " Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
  "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
  "with no network), or read-only for permission_mode plan.";

function codexIsolated(voice: Voice): string {
  return (
    `Planned Codex nodes run isolated: they ignore ${voice.whose} user configuration (config.toml), the repository's ` +
    "rules, project instructions such as AGENTS.md, and MCP servers." +
    voice.codexHomeAgents +
    voice.home("codex") +
    CODEX_PLANNED_SANDBOX +
    ' Each node\'s sandbox and approval_policy="never" are on its command line either way.'
  );
}

function codexLoaded(voice: Voice): string {
  return (
    `Planned Codex nodes run with ${voice.whose} configuration (${voice.optIn}): user configuration (config.toml), ` +
    "the repository's rules and AGENTS.md files, and the MCP servers they declare all load." +
    voice.home("codex") +
    CODEX_PLANNED_SANDBOX +
    ' Each node\'s sandbox and approval_policy="never" are on its command line, so this choice widens neither.'
  );
}

/**
 * The one paragraph (a single line, no newline) that fills the ceiling-disclosure slot of a planned run.
 */
export function ceilingDisclosure(options: CeilingDisclosureOptions): string {
  const voice = VOICES[options.surface];
  switch (options.runtime) {
    case "claude":
      return options.loadedUserConfig ? claudeLoaded(voice) : claudeIsolated(voice);
    case "codex":
      return options.loadedUserConfig ? codexLoaded(voice) : codexIsolated(voice);
    default:
      return unreachable(options.runtime);
  }
}

/**
 * The disclosure slot of a planned run (`auto`, `plan`, and `resume` of an auto run), read from the
 * policies about to be spawned — or restored from `state.json` — and never from the flag, so the slot
 * cannot disagree with the argv (seed 001 §2.7): the loaded paragraph when the policies carry no
 * `settingSources`, the isolated one when they do.
 *
 * @throws Error (internal) when `policies` is empty (a planned run always has a policy per node) or when
 *   the policies disagree on isolation (the opt-in is run-wide).
 */
export function plannedRunDisclosure(
  policies: Readonly<Record<string, ToolPolicy>>,
  o: { readonly runtime: Runtime; readonly surface: DisclosureSurface },
): string {
  const loadedUserConfig = loadedUserConfigOf(policies);
  if (loadedUserConfig === undefined) {
    throw new Error("Internal error: a planned run's disclosure was asked for with no planned policies");
  }
  return ceilingDisclosure({ runtime: o.runtime, loadedUserConfig, surface: o.surface });
}

/**
 * The disclosure slot of a hand-written `run` (SPEC §8; seed 001 §1.3): no ceiling applies there — each
 * node's own `allowed_tools` is its grant and the operator's configuration loads. Said so, in one
 * paragraph, so a reader of the check run never mistakes a hand-written run for a ceilinged one. On the
 * codex runtime `allowed_tools` renders to nothing, so the paragraph names the sandbox that binds instead.
 */
export function handWrittenDisclosure(surface: DisclosureSurface, runtime: Runtime = "claude"): string {
  const whose = VOICES[surface].whose;
  if (runtime === "codex") {
    // allowed_tools has no Codex rendering (no per-tool grammar): say what binds each node instead.
    return (
      "Hand-written graph on Codex: no tool ceiling applies, and allowed_tools is not enforced (codex has no " +
      "per-tool grammar). Each node runs in the sandbox its permission_mode maps to — plan: read-only; " +
      "bypassPermissions: danger-full-access (no sandbox); any other mode: workspace-write (it writes only in " +
      'its working directory and the temp directories, with no network) — with approval_policy="never", and ' +
      `with ${whose} configuration loaded (config.toml, the repository's rules and AGENTS.md files, MCP ` +
      "servers); the graph's authors chose these modes." +
      VOICES[surface].home("codex")
    );
  }
  return (
    "Hand-written graph: no tool ceiling applies. Each node runs with its own allowed_tools as its only " +
    `grant (--allowedTools), under its own permission_mode, with ${whose} configuration loaded; the graph's ` +
    "authors chose and reviewed these grants." +
    VOICES[surface].home("claude")
  );
}

/**
 * The disclosure slot of `mode: verify` (SPEC §10): no model CLI runs, so no tool ceiling applies and no
 * configuration loads — the engine runs the operator's verify command once, with the verify child
 * environment (SPEC §9). One paragraph, like every other run's slot.
 */
export function verifyOnlyDisclosure(): string {
  return (
    "Verify only: no model ran, so no tool ceiling applies and no agent configuration loaded. The engine " +
    "ran the verify command once on the checked-out tree, without the GitHub token or any model credential."
  );
}
