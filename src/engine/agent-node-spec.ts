/**
 * What the engine hands the lifecycle of one agent node (SPEC §4): the node's own settings, already
 * interpolated ({@link AgentNodeSpec}), and the run-wide settings every node shares ({@link NodeContext}).
 * `agent-node.ts` runs it; the caller (`node-settlement.ts`) builds it from the graph.
 */
import type { VerifyQueue } from "../evidence/verify.js";
import type { Pattern } from "../graph/pattern.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ChildEcho } from "../proc/child-output.js";
import type { CompletionCall } from "../runtime/agent-turn.js";
import type { ClaudePermissionMode } from "../runtime/claude-argv.js";
import type { ModelCalls } from "../runtime/model-calls.js";
import type { ResumedSession } from "../runtime/model-runtime.js";
import type { RunDirectory } from "./run-dir.js";
import type { ModelEnvBuilder } from "./runtime-setup.js";

/** What the engine needs to run one agent node; built from the graph by the caller. Times in ms. */
export interface AgentNodeSpec {
  readonly id: string;
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  readonly timeoutMs: number;
  readonly cwd: string;
  /** The repository root (git work tree): a file the model writes outside it is recorded on the row. */
  readonly repoRoot: string;
  readonly sink: boolean;
  readonly exitZero: boolean;
  /** RE2 pattern searched over the raw reply (Go `MatchString` semantics). */
  readonly resultMatches: Pattern | null;
  readonly verify: {
    readonly command: string;
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly expectExit: number;
    /** `output_matches`: RE2 pattern searched over the command's full combined output. */
    readonly outputMatches?: Pattern | null;
  } | null;
  /**
   * `fresh` (default): a new session (claude: its id is minted here; codex: codex mints the thread id).
   * `resume`: continue that session (`--resume ID` / `exec … resume ID`; `handoff: session`, SPEC §4); the
   * row's session is the one the CLI reports.
   */
  readonly session?: { readonly kind: "fresh" } | ResumedSession;
  /**
   * The node's `budget_usd` (USD, > 0). Claude: `--max-budget-usd` plus a post-hoc check of the reported
   * cost. Codex: ignored (codex reports no USD; the run warned at start, `runtimeWarnings`).
   */
  readonly budgetUsd?: number | null;
  /** Set for a node with a completion gate (SPEC §7): what this attempt needs beyond an ordinary call. */
  readonly completion?: CompletionCall;
}

/** The verify runner a node needs: the run-wide queue (`VerifyQueue`), or a scripted one in unit tests. */
export type { CompletionCall };

/** The verify runner a node needs: the run-wide queue (`VerifyQueue`), or a scripted one in unit tests. */
export type NodeVerifier = Pick<VerifyQueue, "run">;

/** Run-wide settings every node shares. */
export interface NodeContext {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  readonly claudeExecutable: string;
  /** Path or name of the `codex` executable (default `codex`); used when `runtime` is `codex`. */
  readonly codexExecutable?: string;
  /**
   * The operator's `codex-config` pairs (`KEY=VALUE`, already checked with `parseCodexConfig`), passed as
   * `-c PAIR` on every codex call, before (so never over) the engine's own boundary flags (SPEC §10).
   */
  readonly codexConfig?: readonly string[];
  /** `--model` (claude) / `-m` (codex). */
  readonly model?: string;
  /** Builds the model child's environment for one call (fresh HOME per CLI in the action). */
  readonly modelEnv: ModelEnvBuilder;
  readonly runDir: RunDirectory;
  readonly verifyQueue: NodeVerifier;
  /** The model calls the run was handed; default `MODEL_CALLS` (`runtime/model-calls.ts`): the real CLIs. */
  readonly calls?: ModelCalls;
  readonly echo?: ChildEcho;
  /**
   * Called once before the spawn with the session id when it is known then: minted (claude), resumed
   * (either runtime), or `null` for a fresh codex thread (its id arrives with `onSession`).
   */
  readonly onStarted?: (nodeId: string, sessionId: string | null) => void;
  /** Codex, fresh thread: called once `thread.started` arrives, while the process still runs. */
  readonly onSession?: (nodeId: string, sessionId: string) => void;
  readonly onVerifying?: (nodeId: string, command: string) => void;
}
