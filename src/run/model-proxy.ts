/**
 * The run's key proxy (issue 12; SPEC §9; ADR 0010): before a run's first model call the run service starts
 * one loopback proxy (`src/proxy/key-proxy.ts`) holding the runtime's real credential, and every model CLI
 * of the run gets the proxy's base URL and a dummy key instead — claude through `ANTHROPIC_BASE_URL` and
 * its credential variable, codex through `-c` pairs that point its provider at the proxy (codex 0.169
 * ignores `OPENAI_BASE_URL`) and the dummy under `OPENAI_API_KEY` / `CODEX_API_KEY`. A tool the model runs
 * can read the CLI's environment and finds only the dummy.
 *
 * When there is nothing to proxy the run goes on as before, said in one note: an outbound HTTP(S) proxy in
 * the environment (the key proxy does not go through one), no credential for the runtime (a `codex login` or a claude login the CLI keeps itself), claude on Bedrock / Vertex / Foundry
 * (other credentials, other hosts), or — in the CLI — a codex provider chosen in the user's own
 * `config.toml`, which the proxy cannot see.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readRunState } from "../engine/run-state.js";
import type { Runtime } from "../engine/runtime-setup.js";
import { operatorCodexProvider } from "../proxy/codex-provider.js";
import type { ClaudeCredentialVariable, ModelCredential } from "../proxy/credential.js";
import { type KeyProxy, type KeyProxyEvent, startKeyProxy, upstreamProblem } from "../proxy/key-proxy.js";
import type { RunProxy } from "./model-cli.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What starting the proxy came to. */
export type ModelProxyStart =
  | { readonly kind: "started"; readonly proxy: KeyProxy; readonly note: string }
  | { readonly kind: "none"; readonly note: string }
  | { readonly kind: "refused"; readonly message: string };

export interface ModelProxyOptions {
  readonly runtime: Runtime;
  /** The runtime's credential variables and values, as the CLI would have been given them. */
  readonly credentials: Readonly<Record<string, string>>;
  /** The environment the model CLIs start from (`ANTHROPIC_BASE_URL`, `CLAUDE_CODE_USE_*`, `CODEX_HOME`). */
  readonly env: Env;
  /** The operator's `codex-config` pairs: a provider they select is the proxy's upstream. */
  readonly codexConfig: readonly string[];
  /** The CLI: a provider the user's own `$CODEX_HOME/config.toml` selects means no proxy. */
  readonly readUserCodexConfig: boolean;
  readonly log: (event: KeyProxyEvent) => void;
}

const CLAUDE_ORDER: readonly ClaudeCredentialVariable[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
];
const CLOUD_SWITCHES = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"];

const on = (value: string | undefined): boolean => value !== undefined && value !== "" && value !== "0";

/**
 * Starts the proxy for `runtime` when its credential is one the proxy can hold. `refused` is a usage error
 * naming the setting (an upstream that is not a base URL, a codex provider without a `base_url`): nothing
 * has run.
 */
export async function startModelProxy(o: ModelProxyOptions): Promise<ModelProxyStart> {
  // The proxy connects to its upstream directly: behind an HTTP(S) proxy it could not reach it.
  const outbound = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].find((name) => on(o.env[name]));
  if (outbound !== undefined)
    return {
      kind: "none",
      note: `key proxy: not used (${outbound} is set, and the key proxy connects to the model API directly)`,
    };
  if (o.runtime === "claude") {
    if (CLOUD_SWITCHES.some((name) => on(o.env[name])))
      return { kind: "none", note: "key proxy: not used (claude runs on a cloud provider's credentials)" };
    const variable = CLAUDE_ORDER.find((name) => (o.credentials[name] ?? "") !== "");
    if (variable === undefined)
      return { kind: "none", note: "key proxy: not used (no claude credential given: the CLI's own login)" };
    const upstream = o.env.ANTHROPIC_BASE_URL;
    const problem = upstream !== undefined && upstream !== "" ? upstreamProblem(upstream) : null;
    if (problem !== null) return { kind: "refused", message: `ANTHROPIC_BASE_URL: ${problem}` };
    return started(
      { runtime: "claude", variable, value: o.credentials[variable]! },
      upstream !== undefined && upstream !== "" ? { upstream } : {},
      o.log,
    );
  }
  const value = o.credentials.OPENAI_API_KEY ?? o.credentials.CODEX_API_KEY;
  if (value === undefined || value === "")
    return { kind: "none", note: "key proxy: not used (no codex credential given: the CLI's own login)" };
  if (o.readUserCodexConfig && userSelectsProvider(o.env))
    return {
      kind: "none",
      note: "key proxy: not used (your codex config.toml selects a provider of its own)",
    };
  const provider = operatorCodexProvider(o.codexConfig);
  if (provider.kind === "unusable") return { kind: "refused", message: provider.problem };
  const problem = provider.kind === "provider" ? upstreamProblem(provider.baseUrl) : null;
  if (problem !== null) return { kind: "refused", message: `codex-config base_url: ${problem}` };
  return started(
    { runtime: "codex", variable: "OPENAI_API_KEY", value },
    provider.kind === "provider" ? { upstream: provider.baseUrl, codexProvider: provider.id } : {},
    o.log,
  );
}

async function started(
  credential: ModelCredential,
  where: { readonly upstream?: string; readonly codexProvider?: string },
  log: (event: KeyProxyEvent) => void,
): Promise<ModelProxyStart> {
  const proxy = await startKeyProxy({ credential, ...where, log });
  return {
    kind: "started",
    proxy,
    note: `key proxy: the ${credential.runtime} CLI gets a loopback base URL and a dummy key; the credential stays in the engine's memory`,
  };
}

/** True when `$CODEX_HOME/config.toml` (default `~/.codex`) selects a `model_provider`. */
function userSelectsProvider(env: Env): boolean {
  const home = env.CODEX_HOME ?? (env.HOME !== undefined ? join(env.HOME, ".codex") : undefined);
  if (home === undefined) return false;
  const config = join(home, "config.toml");
  return existsSync(config) && /^\s*model_provider\s*=/m.test(readFileSync(config, "utf8"));
}

/**
 * The proxy for a run of `runtime` as a {@link RunProxy} (`model-cli.ts`), its note said through `say` when the
 * first model CLI environment is built (`RunProxy.announce`):
 * `undefined` when nothing is proxied, a usage-error message when the settings cannot be proxied.
 */
export async function openRunProxy(
  o: ModelProxyOptions & { readonly say: (line: string) => void },
): Promise<
  { readonly kind: "ok"; readonly proxy?: RunProxy } | { readonly kind: "refused"; readonly message: string }
> {
  const start = await startModelProxy(o);
  if (start.kind === "refused") return { kind: "refused", message: `${start.message}. Nothing was run.` };
  if (start.kind !== "started") return { kind: "ok" };
  // Said when the first model CLI environment is built, not now: a usage error found before any model
  // call is then the first thing printed (issue 26).
  let said = false;
  const announce = (): void => {
    if (said) return;
    said = true;
    o.say(start.note);
  };
  return { kind: "ok", proxy: { runtime: o.runtime, proxy: start.proxy, announce } };
}

/** One log line for a proxy event (method and path only: never a body or a header). */
export function proxyEventLine(event: KeyProxyEvent): string {
  return event.kind === "refused"
    ? `key proxy: refused ${event.method} ${event.path} (${event.status}: ${event.reason})`
    : `key proxy: the upstream failed for ${event.method} ${event.path}: ${event.message}`;
}

/** The runtime `state.json` records (a resumed leg runs the first leg's), `claude` when it cannot be read. */
export function recordedRuntime(runDir: string): Runtime {
  try {
    return readRunState(runDir).runtime ?? "claude";
  } catch {
    return "claude";
  }
}
