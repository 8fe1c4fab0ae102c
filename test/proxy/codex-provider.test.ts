/**
 * Which codex provider the operator's `codex-config` pairs select, so its `base_url` becomes the key proxy's
 * upstream (src/proxy/codex-provider.ts), and the pairs that point codex at the proxy.
 */
import { describe, expect, it } from "vitest";
import { codexProxyPairs, operatorCodexProvider, PROXY_PROVIDER_ID } from "../../src/proxy/codex-provider.js";

describe("operatorCodexProvider", () => {
  it("none when no pair selects a provider, or the selected one is codex's built-in openai", () => {
    expect(operatorCodexProvider([])).toEqual({ kind: "none" });
    expect(operatorCodexProvider(['model="gpt-5.5"', "analytics.enabled=false"])).toEqual({ kind: "none" });
    expect(operatorCodexProvider(['model_provider="openai"'])).toEqual({ kind: "none" });
  });

  it("the last model_provider wins, with the base_url its own table gives (basic, literal or bare strings; quoted ids)", () => {
    expect(
      operatorCodexProvider([
        'model_provider="first"',
        'model_providers.first.base_url="https://first.example/v1"',
        "model_provider='gw'",
        "model_providers.gw.base_url='https://gw.example/openai/v1'",
        'model_providers.gw.wire_api="responses"',
      ]),
    ).toEqual({ kind: "provider", id: "gw", baseUrl: "https://gw.example/openai/v1" });
    expect(
      operatorCodexProvider([
        'model_provider="my gw"',
        'model_providers."my gw".base_url="http://10.0.0.1:8080/v1"',
      ]),
    ).toEqual({ kind: "provider", id: "my gw", baseUrl: "http://10.0.0.1:8080/v1" });
    expect(
      operatorCodexProvider(["model_provider=gw", "model_providers.gw.base_url=https://bare.example/v1"]),
    ).toEqual({
      kind: "provider",
      id: "gw",
      baseUrl: "https://bare.example/v1",
    });
  });

  it("unusable when the selected provider has no base_url in the pairs, naming the key to add", () => {
    const found = operatorCodexProvider([
      'model_provider="gw"',
      'model_providers.other.base_url="https://x"',
    ]);
    expect(found.kind).toBe("unusable");
    expect(found.kind === "unusable" ? found.problem : "").toContain("model_providers.gw.base_url=…");
  });
});

describe("codexProxyPairs", () => {
  it("defines and selects the proxy's provider when the operator has none (or selected the built-in openai)", () => {
    const pairs = codexProxyPairs("http://127.0.0.1:1/p", undefined);
    expect(pairs[0]).toBe(`model_provider="${PROXY_PROVIDER_ID}"`);
    expect(pairs).toContain(`model_providers.${PROXY_PROVIDER_ID}.base_url="http://127.0.0.1:1/p"`);
    expect(pairs).toContain(`model_providers.${PROXY_PROVIDER_ID}.wire_api="responses"`);
    expect(codexProxyPairs("http://127.0.0.1:1/p", "openai")).toEqual(pairs);
  });

  it("re-points only base_url and env_key of the operator's provider", () => {
    expect(codexProxyPairs("http://127.0.0.1:1/p", "gw")).toEqual([
      'model_providers.gw.base_url="http://127.0.0.1:1/p"',
      'model_providers.gw.env_key="OPENAI_API_KEY"',
    ]);
  });
});
