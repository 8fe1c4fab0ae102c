/**
 * The model runtime port (issue 24 item 1; SPEC §4, §9, §10, §11): everything that differs between the
 * `claude` and the `codex` CLI, as one interface with one implementation each (`claude-runtime.ts`,
 * `codex-runtime.ts`), looked up by the run's runtime name with `runtimeFor` (`runtime-for.ts`). The
 * engine, the planner prompt and the run service ask the port and never compare the runtime's name:
 * `test/architecture/runtime-branches.test.ts` fails on a `runtime === "codex"`-style branch above this
 * folder.
 *
 * What a runtime owns here: a node's model call (the agent turn) and what its outcome means for the row,
 * its executable and npm package, which options and graph fields it can honour
 * and the warnings for those it cannot, what `state.json` records of its settings and what a resumed leg
 * must give again, how a session is resumed and what of it is saved, the planner's wording about it, its
 * credential variables and action inputs, and how the key proxy stands in for its credential.
 */
import type { TokenUsage } from "../core/ledger-row.js";
import type { Graph } from "../graph/graph.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ModelCredential } from "../proxy/credential.js";
import type { AgentTurn, CallReport, ResumedSession } from "./agent-turn.js";

export type { ResumedSession, Runtime };

type Env = Readonly<Record<string, string | undefined>>;

/** One model CLI as npm ships it. */
export interface ModelCliPackage {
  /** The executable's name (under `node_modules/.bin`). */
  readonly bin: string;
  /** The npm package that provides it. */
  readonly npmPackage: string;
  /** The tool-cache entry name (`RUNNER_TOOL_CACHE/<name>/<version>/<arch>`). */
  readonly cacheName: string;
}

/** The executables a run was given: the path or name of each CLI (see `RuntimeOptions` in the engine). */
export interface RuntimeExecutables {
  readonly claudeExecutable: string;
  /** Default `codex`. */
  readonly codexExecutable?: string;
}

/** What the run saved about a session, from which {@link ModelRuntime.resumedSession} picks its runtime's part. */
export interface SavedSession {
  readonly sessionId: string;
  /** Claude: the session's cumulative cost after its last call (`null`/absent: not reported). */
  readonly sessionCostUsd?: number | null;
  /** Codex: the thread's cumulative usage after its last call (`null`/absent: not reported). */
  readonly threadUsage?: TokenUsage | null;
  /** Codex: the `CODEX_HOME` the thread lives in, when this leg started it. */
  readonly codexHome?: string;
}

/** The action's secret model inputs (SPEC §11), as the typed inputs hold them. */
export interface ModelCredentialInputs {
  readonly anthropicApiKey?: string;
  readonly claudeCodeOauthToken?: string;
  readonly openaiApiKey?: string;
}

/** What the key proxy is told about the run (see `src/run/model-proxy.ts`). */
export interface ProxyInputs {
  /** The runtime's credential variables and values, as the CLI would have been given them. */
  readonly credentials: Readonly<Record<string, string>>;
  /** The environment the model CLIs start from (`ANTHROPIC_BASE_URL`, `CLAUDE_CODE_USE_*`, `CODEX_HOME`). */
  readonly env: Env;
  /** The operator's `codex-config` pairs: a provider they select is the proxy's upstream. */
  readonly codexConfig: readonly string[];
  /** The CLI: a provider the user's own `$CODEX_HOME/config.toml` selects means no proxy. */
  readonly readUserCodexConfig: boolean;
}

/**
 * Whether the key proxy can hold the runtime's credential: `none` (the note says why the run goes on
 * without it), `refused` (a usage error naming the setting; nothing has run) or `proxy` (the credential
 * and where the proxy forwards to).
 */
export type ProxyPlan =
  | { readonly kind: "none"; readonly note: string }
  | { readonly kind: "refused"; readonly message: string }
  | {
      readonly kind: "proxy";
      readonly credential: ModelCredential;
      readonly where: { readonly upstream?: string; readonly codexProvider?: string };
    };

/** One model CLI (`claude` or `codex`) as the engine, the planner and the run service see it. */
export interface ModelRuntime {
  /** The name `state.json`, the inputs and the ledger use. */
  readonly name: Runtime;
  /**
   * One agent node's model call (SPEC §4): the session minted, resumed or published as this CLI does it,
   * the call made through `turn.calls`, and its outcome folded into the runtime-neutral row facts and
   * failure (`agent-turn.ts`). Never rejects for the CLI's own failures.
   */
  agentTurn(turn: AgentTurn, signal: AbortSignal): Promise<CallReport>;
  /** The npm package the action installs into the tool cache. */
  readonly cliPackage: ModelCliPackage;
  /** The executable the run spawns, from the executables it was given. */
  executable(o: RuntimeExecutables): string;
  /**
   * Why the run's model options cannot work on this runtime, one usage-error message naming the option;
   * `null` when they can.
   */
  optionsProblem(o: { readonly model?: string; readonly codexConfig?: readonly string[] }): string | null;
  /** The usage error when the CLI is not an executable: `where` says which name was looked for and where. */
  missingCliMessage(where: string): string;
  /** Why this runtime cannot run `graph` as written, naming each node and field; `null` when it can. */
  graphProblem(graph: Graph): string | null;
  /**
   * What this runtime will not enforce, or runs without a guard, of one agent node (the plan section's
   * lines). `declaredTimeout`: the node's timeout was written in the graph (not the default).
   */
  nodeWarnings(node: Graph["nodes"][number], declaredTimeout: boolean): string[];
  /** The part of a fresh `state.json` that records the run's own settings of this runtime (no values). */
  recordedSettings(codexConfig: readonly string[] | undefined): { readonly codex_config_keys?: string[] };
  /**
   * Why a resumed leg cannot run with the settings it was given, against what the first leg recorded;
   * `null` when it can.
   */
  resumedSettingsProblem(
    runId: string,
    recorded: readonly string[] | undefined,
    given: readonly string[] | undefined,
  ): string | null;
  /** The session to resume from what the run saved of it (only this runtime's part is carried). */
  resumedSession(saved: SavedSession): ResumedSession;
  /** What a node's record saves of the thread after a call (`thread_usage`), as a patch; `{}` when nothing. */
  threadRecord(thread: { readonly usage: TokenUsage | null } | undefined): {
    readonly thread_usage?: TokenUsage | undefined;
  };
  /** The planner prompt's words about this runtime: the CLI a node runs as, and what binds its tools. */
  readonly plannerWords: { readonly cli: string; readonly toolNote: string };
  /** The environment variables that hold this runtime's credential, handed to its model child only. */
  readonly credentialVariables: readonly string[];
  /** The action's credential for this runtime as the variables its CLI reads (empty when the input is). */
  credentialsFromInputs(inputs: ModelCredentialInputs): Record<string, string>;
  /** The secret inputs of this runtime when none has a value; `null` when the CLI has a credential. */
  missingCredentialInputs(inputs: ModelCredentialInputs): readonly string[] | null;
  /** Why a run cannot start without the credential input, naming the input(s) and the fix; no period. */
  readonly missingCredentialMessage: string;
  /**
   * Why a run from the CLI would have no credential at all, as a usage error; `null` when it has one or
   * may have one (a login the CLI keeps itself).
   */
  localCredentialProblem(env: Env, codexConfig: readonly string[]): string | null;
  /** Whether and how the key proxy stands in for this runtime's credential. */
  proxyPlan(o: ProxyInputs): ProxyPlan;
}
