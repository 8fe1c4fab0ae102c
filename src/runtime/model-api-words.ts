/**
 * The model API as a failed call's words name it (issue 26). claude 2.1.332 ends an API error with "If it
 * persists, check your inference gateway (HOST)." whenever `ANTHROPIC_BASE_URL` is set, HOST being that URL's
 * host — the scripted model server's, the operator's own gateway's, or the run's loopback key proxy's. The
 * last is evidence-gate's own relay, which the user never configured and which is gone once the run ends:
 * the row names the model API it relays to instead, and otherwise the base URL claude was given.
 */
import { keyProxyUpstream } from "../proxy/key-proxy.js";

/** claude's sentence (measured on 2.1.332: `Cps()` in its bundle). */
const GATEWAY_HINT = /If it persists, check your inference gateway \(([^()\s]*)\)\.?/g;

/**
 * `text` with claude's "check your inference gateway (HOST)" hint naming the model API: the upstream of the
 * key proxy listening at HOST, else HOST as the `ANTHROPIC_BASE_URL` claude was given. Other text is kept.
 */
export function namingModelApi(text: string): string {
  return text.replace(GATEWAY_HINT, (_hint, host: string) => {
    const upstream = keyProxyUpstream(host);
    return upstream !== undefined
      ? `If it persists, check the model API at ${upstream} (evidence-gate's key proxy on ${host} only relays to it).`
      : `If it persists, check the model API at ${host} (the ANTHROPIC_BASE_URL claude was given).`;
  });
}
