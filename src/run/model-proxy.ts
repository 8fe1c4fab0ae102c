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
import { readRunState } from "../engine/run-state.js";
import type { Runtime } from "../engine/runtime-setup.js";
import type { ModelCredential } from "../proxy/credential.js";
import { type KeyProxy, type KeyProxyEvent, startKeyProxy } from "../proxy/key-proxy.js";
import type { ProxyInputs } from "../runtime/model-runtime.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import type { RunProxy } from "./model-cli.js";

/** What starting the proxy came to. */
export type ModelProxyStart =
  | { readonly kind: "started"; readonly proxy: KeyProxy; readonly note: string }
  | { readonly kind: "none"; readonly note: string }
  | { readonly kind: "refused"; readonly message: string };

/** What the proxy is started from: the run's runtime and what {@link ProxyInputs} names, and its log. */
export interface ModelProxyOptions extends ProxyInputs {
  readonly runtime: Runtime;
  readonly log: (event: KeyProxyEvent) => void;
}

const on = (value: string | undefined): boolean => value !== undefined && value !== "" && value !== "0";

/**
 * Starts the proxy for `runtime` when its credential is one the proxy can hold (the runtime says which:
 * `ModelRuntime.proxyPlan`). `refused` is a usage error naming the setting (an upstream that is not a base
 * URL, a codex provider without a `base_url`): nothing has run.
 */
export async function startModelProxy(o: ModelProxyOptions): Promise<ModelProxyStart> {
  // The proxy connects to its upstream directly: behind an HTTP(S) proxy it could not reach it.
  const outbound = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"].find((name) => on(o.env[name]));
  if (outbound !== undefined)
    return {
      kind: "none",
      note: `key proxy: not used (${outbound} is set, and the key proxy connects to the model API directly)`,
    };
  const plan = runtimeFor(o.runtime).proxyPlan(o);
  return plan.kind === "proxy" ? started(plan.credential, plan.where, o.log) : plan;
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
