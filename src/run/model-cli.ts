/**
 * The model CLIs a run spawns, for the CLI ({@link localModelCli}) and the action ({@link ModelCliSetup};
 * SPEC §8, §9, §10). In the action: the model CLI's executable
 * (the tool cache's at the pinned `claude-version` / `codex-version`, installed there just before the first
 * model call, never before a refusal; never a `PATH` lookup, and checked unchanged before every call:
 * `install-cli.ts`), each CLI call's environment with its runtime's credential and a fresh home
 * (the operator's configuration in CI is the base branch's only), and the fenced log echo (children cannot
 * issue workflow commands). A pinned CLI that is a node script (`codex.js`) runs on the action's own node,
 * never the `node` on the child's `PATH` (`ChildScope.runWithOwnNode`).
 *
 * The runtime is learnt from the engine (`beforeFirstModelCall(runtime)`, `modelEnv(label, runtime)`): a
 * `resume` leg runs the runtime its `state.json` records, whatever the `runtime` input says.
 *
 * - claude: `HOME` = a fresh folder under `RUNNER_TEMP/evidence-gate/homes`; `ANTHROPIC_API_KEY` /
 *   `CLAUDE_CODE_OAUTH_TOKEN` from the inputs.
 * - codex: `HOME` = a fresh folder under the codex homes root (`codex-home.ts`: outside `/tmp`, `$TMPDIR`
 *   and the workspace, which codex's sandbox can write), `CODEX_HOME` = its `.codex`, created before the
 *   call (codex exits 1 without it); `OPENAI_API_KEY` and `CODEX_API_KEY` = input `openai-api-key` (the
 *   first for the OpenAI provider and providers whose `env_key` names it, the second read by `codex exec`).
 *   A codex run without `openai-api-key` is a usage error naming the input; nothing is installed.
 * Neither runtime's child gets the other's credential (`buildChildEnv`), and no verify command or git
 * gets either.
 */
import { chmodSync, mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import type {
  BeforeFirstModelCall,
  CliSetupFailure,
  ModelEnvBuilder,
  Runtime,
} from "../engine/runtime-setup.js";
import { buildChildEnv } from "../proc/child-env.js";
import { currentChildIdentity, currentChildScope, giveToIdentity } from "../proc/child-identity.js";
import type { KeyProxy } from "../proxy/key-proxy.js";
import type { ModelCalls } from "../runtime/model-calls.js";

export type { ModelCalls };

import type { ModelRuntime } from "../runtime/model-runtime.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import { codexHomesRoot } from "./codex-home.js";
import { type ActionCredentialInputs, actionModelCredentials } from "./credentials.js";
import { ensureCli, type PinnedCli } from "./install-cli.js";

/** The model CLI part of a run as the run service takes it: what the engine's `ModelCliOptions` need. */
export interface ModelCliPort {
  readonly claudeExecutable: string;
  readonly codexExecutable: string;
  readonly beforeFirstModelCall?: BeforeFirstModelCall;
  readonly modelEnv: ModelEnvBuilder;
  /** `-c` pairs the run adds after the operator's on every codex call: the key proxy's provider. */
  readonly codexConfig?: readonly string[];
  /** The model calls the engine makes (issue 24 item 2); absent: the real CLIs. */
  readonly modelCalls?: ModelCalls;
}

/** A started key proxy and the runtime whose credential it holds (`model-proxy.ts`). */
export interface RunProxy {
  readonly runtime: Runtime;
  readonly proxy: KeyProxy;
  /**
   * Says the proxy's one line (what the model CLI gets instead of the key); {@link throughProxy} calls it
   * as the first model environment is built, so a usage error found before any model call is printed with
   * nothing before it (issue 26). Idempotent.
   */
  readonly announce?: () => void;
}

/**
 * `env` for a model CLI of `runtime`: through the proxy when it holds that runtime's credential (the real
 * credential removed, the proxy's base URL and the dummy set; the proxy's line said the first time), else
 * as built.
 */
export function throughProxy(
  proxy: RunProxy | undefined,
  runtime: Runtime,
  env: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  if (proxy === undefined || proxy.runtime !== runtime) return env;
  proxy.announce?.();
  return proxy.proxy.applyTo(env);
}

/**
 * The CLI's model CLIs: the executables the flags name (else `claude` / `codex` on PATH, which the engine
 * checks before anything is spent), each call's environment from the user's own (their `HOME`: in the CLI
 * the operator's configuration is theirs, SPEC §8) with its runtime's credential only.
 */
export function localModelCli(o: {
  readonly modelEnv: ModelEnvBuilder;
  readonly claudePath?: string;
  readonly codexPath?: string;
  readonly proxy?: RunProxy;
  /** The model calls the run makes (`CliIo.modelCalls`); absent: the real CLIs. */
  readonly modelCalls?: ModelCalls;
}): ModelCliPort {
  return {
    claudeExecutable: o.claudePath ?? "claude",
    codexExecutable: o.codexPath ?? "codex",
    modelEnv: (label, runtime) => throughProxy(o.proxy, runtime, o.modelEnv(label, runtime)),
    ...(o.proxy !== undefined ? { codexConfig: o.proxy.proxy.codexConfig } : {}),
    ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
  };
}

export interface ModelCliSetupOptions {
  /** The secret inputs: each runtime's credential comes from them. */
  readonly credentials: ActionCredentialInputs;
  /** `claude-version` / `codex-version`: the tool cache's, installed there when it is not cached. */
  readonly versions: { readonly claude: string; readonly codex: string };
  /** Where install and home lines go (the job log). */
  readonly log: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: readonly string[];
  /** `RUNNER_TEMP`: fresh claude homes live under it. */
  readonly temp: string;
  /** `GITHUB_WORKSPACE`: no codex home may lie in it. */
  readonly workspace: string;
  /** The run's key proxy, when it holds the credential: the CLIs then get its base URL and a dummy. */
  readonly proxy?: RunProxy;
  /**
   * The model calls the engine makes (`ActionSeams.modelCalls`); absent: the real CLIs. The CLI is still
   * found (or installed) and pinned before the first call, as always.
   */
  readonly modelCalls?: ModelCalls;
}

/**
 * A pinned CLI that is a node script (`codex.js`) runs on the action's own node (`process.execPath`), not on
 * the `node` its `#!/usr/bin/env node` line would find first on the child's `PATH` — which an earlier step's
 * `GITHUB_PATH` can set (`ChildScope.runWithOwnNode`). Outside a child scope nothing is registered.
 */
function runOnOwnNode(pinned: PinnedCli): void {
  if (pinned.nodeScript) currentChildScope()?.runWithOwnNode(pinned.path);
}

/**
 * What the action does for one runtime's CLI: get it ready before the run's first model call (checks,
 * then the tool cache's install), and make one call's fresh home. One entry per runtime in
 * {@link ModelCliSetup}'s table, so no step compares the runtime's name.
 */
interface ActionCli {
  /** A usage-error message, a setup failure, or `null` when the CLI is ready. */
  prepare(): Promise<string | CliSetupFailure | null>;
  /** The home variables of one call (`HOME`, and codex's `CODEX_HOME`), in a fresh folder named `name…`. */
  home(name: string): Record<string, string>;
}

/** The action's model CLIs (see the module comment); it is a {@link ModelCliPort}. */
export class ModelCliSetup implements ModelCliPort {
  readonly #options: ModelCliSetupOptions;
  /** {@link ModelCliSetupOptions.modelCalls}. */
  readonly modelCalls?: ModelCalls;
  /** The executables chosen by {@link beforeFirstModelCall}, checked before every call. */
  readonly #pinned = new Map<Runtime, PinnedCli>();
  readonly #clis: Readonly<Record<Runtime, ActionCli>>;

  constructor(options: ModelCliSetupOptions) {
    this.#options = options;
    if (options.modelCalls !== undefined) this.modelCalls = options.modelCalls;
    const claudeHomes = join(options.temp, "evidence-gate", "homes");
    /** Set by the codex entry's `prepare`. */
    let codexHomes: string | null = null;
    this.#clis = {
      claude: {
        prepare: () => this.#install(runtimeFor("claude")),
        home: (name) => {
          mkdirSync(claudeHomes, { recursive: true });
          const home = mkdtempSync(join(claudeHomes, name));
          // With the separate user the CLI runs as it: its fresh home is handed to it.
          giveToIdentity(home);
          return { HOME: home };
        },
      },
      codex: {
        prepare: async () => {
          const codex = runtimeFor("codex");
          if (options.credentials.openaiApiKey === undefined)
            return `${codex.missingCredentialMessage}. Nothing was run`;
          const root = codexHomesRoot(options.env, options.workspace);
          if (!root.ok) return root.problem;
          const failed = await this.#install(codex);
          if (failed !== null) return failed;
          codexHomes = root.path;
          return null;
        },
        home: (name) => {
          if (codexHomes === null)
            throw new Error(
              "Internal error: a codex call was made before beforeFirstModelCall chose its homes",
            );
          mkdirSync(codexHomes, { recursive: true, mode: 0o700 });
          const home = mkdtempSync(join(codexHomes, name));
          const codexHome = join(home, ".codex");
          mkdirSync(codexHome);
          if (currentChildIdentity() !== null) {
            // The separate user must reach its home (traverse only: the other homes' names stay unlisted).
            chmodSync(codexHomes, 0o711);
            giveToIdentity(codexHome);
            giveToIdentity(home);
          }
          return { HOME: home, CODEX_HOME: codexHome };
        },
      },
    };
  }

  /** The `claude` executable: `claude` until {@link beforeFirstModelCall} found or installed one. */
  get claudeExecutable(): string {
    return this.#pinned.get("claude")?.path ?? "claude";
  }

  /** The `codex` executable: `codex` until {@link beforeFirstModelCall} found or installed one. */
  get codexExecutable(): string {
    return this.#pinned.get("codex")?.path ?? "codex";
  }

  /** Finds or installs `runtime`'s CLI at its pinned version and pins it; a setup failure when it cannot. */
  async #install(runtime: ModelRuntime): Promise<CliSetupFailure | null> {
    const { versions, env, secrets, log, workspace } = this.#options;
    const found = await ensureCli(runtime.cliPackage, {
      version: versions[runtime.name],
      env,
      knownSecrets: secrets,
      log,
      workspace,
    });
    if (found.kind === "failed") return { kind: "setup-failed", message: found.message };
    this.#pinned.set(runtime.name, found.pinned);
    runOnOwnNode(found.pinned);
    return null;
  }

  /**
   * Checks the runtime's credential and home folder, then finds or installs its CLI; the engine calls it
   * after its own checks. Returns a usage-error message (a missing credential, an unusable `RUNNER_TEMP`),
   * a setup failure (the CLI could not be installed or run from the tool cache: the runner's environment),
   * or `null`.
   */
  readonly beforeFirstModelCall = async (runtime: Runtime): Promise<string | CliSetupFailure | null> =>
    this.#clis[runtime].prepare();

  /**
   * One model CLI call's environment: its runtime's credential and a fresh home named after `label`. The
   * engine builds it just before each spawn, so this is where the pinned executable is checked unchanged.
   *
   * @throws when the runtime's executable changed since it was chosen (the call must not be made).
   */
  readonly modelEnv = (label: string, runtime: Runtime): Readonly<Record<string, string>> => {
    const changed = this.#pinned.get(runtime)?.problem() ?? null;
    if (changed !== null) throw new Error(changed);
    const name = `${label.replace(/[^\w.-]/g, "_")}-`;
    const proxied = this.#options.proxy?.runtime === runtime;
    const set: Record<string, string> = {
      ...(proxied ? {} : actionModelCredentials(this.#options.credentials, runtime)),
      ...this.#clis[runtime].home(name),
    };
    return throughProxy(
      this.#options.proxy,
      runtime,
      buildChildEnv({
        base: this.#options.env,
        child: { kind: "model", runtime },
        knownSecrets: this.#options.secrets,
        set,
      }),
    );
  };

  /** The key proxy's `-c` pairs for codex calls (empty without a proxy, and for claude's: it has none). */
  get codexConfig(): readonly string[] {
    return this.#options.proxy?.proxy.codexConfig ?? [];
  }

  /** Children's output, fenced from the runner's workflow-command parser (SPEC §9). */
  readonly echo = {
    write: (text: string) => void process.stdout.write(text),
    fenceWorkflowCommands: true,
  } as const;
}
