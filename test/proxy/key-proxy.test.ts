/**
 * The loopback key proxy (src/proxy/key-proxy.ts) against a raw upstream in this process: what reaches the
 * upstream (the real credential, never the CLI's dummy), what is refused without reaching it (outside the
 * prefix, outside the model API, over the size bound), and that a streamed answer arrives byte for byte and
 * as it is sent. The real CLIs through the proxy are in key-proxy.real-cli.test.ts.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DUMMY_CREDENTIAL, type ModelCredential } from "../../src/proxy/credential.js";
import {
  type KeyProxy,
  type KeyProxyEvent,
  startKeyProxy,
  upstreamProblem,
} from "../../src/proxy/key-proxy.js";

const REAL_KEY = "sk-ant-api03-REAL-proxy-test-key-0123456789abcdef";
const REAL_OPENAI = "sk-proj-REAL-openai-proxy-test-key-0123456789";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

interface Upstream {
  readonly url: string;
  readonly seen: Seen[];
  /** How the next requests are answered (default: 200 `{"ok":true}`). */
  answer: (request: IncomingMessage, response: ServerResponse, body: string) => void;
  close(): Promise<void>;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function upstream(): Promise<Upstream> {
  const seen: Seen[] = [];
  const state: Upstream = {
    url: "",
    seen,
    answer: (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    },
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      state.answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const result: Upstream = Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  open.push(result);
  return result;
}

async function proxyFor(
  credential: ModelCredential,
  options: { upstream?: string; maxRequestBytes?: number; codexProvider?: string } = {},
): Promise<{ proxy: KeyProxy; events: KeyProxyEvent[] }> {
  const events: KeyProxyEvent[] = [];
  const proxy = await startKeyProxy({ credential, ...options, log: (e) => events.push(e) });
  open.push(proxy);
  return { proxy, events };
}

interface Reply {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: Buffer;
}

/**
 * One HTTP request; `body` may be a Buffer or chunks written one by one (chunked encoding). The path is
 * sent as written (a URL object would resolve `..` segments before sending).
 */
function send(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: Buffer | string | Buffer[] } = {},
): Promise<Reply> {
  const { hostname, port, origin } = new URL(url);
  const target = { host: hostname, port, path: url.slice(origin.length) };
  return new Promise((resolve, reject) => {
    const req = request({ ...target, method: o.method ?? "POST", headers: o.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    if (Array.isArray(o.body)) {
      for (const chunk of o.body) req.write(chunk);
      req.end();
    } else req.end(o.body);
  });
}

const claudeKey: ModelCredential = { runtime: "claude", variable: "ANTHROPIC_API_KEY", value: REAL_KEY };

describe("the key proxy forwards the model API with the real credential", () => {
  it("claude API key: the upstream gets x-api-key with the real key, the query string and the CLI's other headers; the dummy never arrives", async () => {
    const up = await upstream();
    const { proxy } = await proxyFor(claudeKey, { upstream: up.url });
    expect(proxy.env).toEqual({ ANTHROPIC_BASE_URL: proxy.baseUrl, ANTHROPIC_API_KEY: DUMMY_CREDENTIAL });
    expect(proxy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}$/);

    const reply = await send(`${proxy.baseUrl}/v1/messages?beta=true`, {
      headers: {
        "x-api-key": DUMMY_CREDENTIAL,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219",
        "content-type": "application/json",
        "accept-encoding": "gzip, br, zstd",
      },
      body: '{"model":"m","messages":[]}',
    });

    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe('{"ok":true}');
    expect(up.seen).toHaveLength(1);
    const seen = up.seen[0]!;
    expect(seen).toMatchObject({
      method: "POST",
      url: "/v1/messages?beta=true",
      body: '{"model":"m","messages":[]}',
    });
    expect(seen.headers["x-api-key"]).toBe(REAL_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen.headers["anthropic-beta"]).toBe("claude-code-20250219");
    expect(seen.headers["accept-encoding"]).toBe("identity");
    expect(seen.headers.host).toBe(new URL(up.url).host);
    expect(JSON.stringify(seen.headers)).not.toContain(DUMMY_CREDENTIAL);
  });

  const bearerCases: readonly [string, ModelCredential, Record<string, string>][] = [
    [
      "claude ANTHROPIC_AUTH_TOKEN",
      { runtime: "claude", variable: "ANTHROPIC_AUTH_TOKEN", value: REAL_KEY },
      { authorization: `Bearer ${DUMMY_CREDENTIAL}` },
    ],
    [
      "claude CLAUDE_CODE_OAUTH_TOKEN",
      { runtime: "claude", variable: "CLAUDE_CODE_OAUTH_TOKEN", value: REAL_KEY },
      { authorization: `Bearer ${DUMMY_CREDENTIAL}`, "anthropic-beta": "oauth-2025-04-20" },
    ],
  ];
  for (const [name, credential, headers] of bearerCases) {
    it(`${name}: the upstream gets authorization: Bearer <real>, and no x-api-key even if the CLI sent one`, async () => {
      const up = await upstream();
      const { proxy } = await proxyFor(credential, { upstream: up.url });
      expect(proxy.env).toEqual({
        ANTHROPIC_BASE_URL: proxy.baseUrl,
        [credential.variable]: DUMMY_CREDENTIAL,
      });
      const reply = await send(`${proxy.baseUrl}/v1/messages`, {
        headers: { ...headers, "x-api-key": DUMMY_CREDENTIAL },
        body: "{}",
      });
      expect(reply.status).toBe(200);
      expect(up.seen[0]!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
      expect(up.seen[0]!.headers["x-api-key"]).toBeUndefined();
      if (headers["anthropic-beta"]) expect(up.seen[0]!.headers["anthropic-beta"]).toBe("oauth-2025-04-20");
    });
  }

  it("codex: a base_url with a path is the prefix of every forwarded path; authorization carries the real key; the pairs define and select the proxy's provider", async () => {
    const up = await upstream();
    const credential: ModelCredential = { runtime: "codex", variable: "OPENAI_API_KEY", value: REAL_OPENAI };
    const { proxy } = await proxyFor(credential, { upstream: `${up.url}/openai/v1/` });
    expect(proxy.env).toEqual({ OPENAI_API_KEY: DUMMY_CREDENTIAL, CODEX_API_KEY: DUMMY_CREDENTIAL });
    expect(proxy.codexConfig).toEqual([
      'model_provider="evidence-gate-key-proxy"',
      'model_providers.evidence-gate-key-proxy.name="evidence-gate key proxy"',
      `model_providers.evidence-gate-key-proxy.base_url=${JSON.stringify(proxy.baseUrl)}`,
      'model_providers.evidence-gate-key-proxy.env_key="OPENAI_API_KEY"',
      'model_providers.evidence-gate-key-proxy.wire_api="responses"',
    ]);

    const reply = await send(`${proxy.baseUrl}/responses`, {
      headers: { authorization: `Bearer ${DUMMY_CREDENTIAL}`, "session-id": "s-1" },
      body: '{"stream":true}',
    });

    expect(reply.status).toBe(200);
    expect(up.seen[0]).toMatchObject({
      method: "POST",
      url: "/openai/v1/responses",
      body: '{"stream":true}',
    });
    expect(up.seen[0]!.headers.authorization).toBe(`Bearer ${REAL_OPENAI}`);
    expect(up.seen[0]!.headers["session-id"]).toBe("s-1");
  });

  it("codex with the operator's provider: only its base_url and env_key are re-pointed", async () => {
    const credential: ModelCredential = { runtime: "codex", variable: "OPENAI_API_KEY", value: REAL_OPENAI };
    const { proxy } = await proxyFor(credential, { codexProvider: "my gw" });
    expect(proxy.codexConfig).toEqual([
      `model_providers."my gw".base_url=${JSON.stringify(proxy.baseUrl)}`,
      'model_providers."my gw".env_key="OPENAI_API_KEY"',
    ]);
  });

  it("applyTo removes every credential variable of the runtime and any value holding the real key, then sets the proxy's", async () => {
    const { proxy } = await proxyFor(claudeKey);
    const env = proxy.applyTo({
      PATH: "/bin",
      HOME: "/home/x",
      ANTHROPIC_API_KEY: REAL_KEY,
      ANTHROPIC_AUTH_TOKEN: "another-token-value-0000",
      CLAUDE_CODE_OAUTH_TOKEN: "oauth-token-value-0000",
      ANTHROPIC_BASE_URL: "https://gateway.example",
      SOME_HEADER: `Bearer ${REAL_KEY}`,
    });
    expect(env).toEqual({
      PATH: "/bin",
      HOME: "/home/x",
      ANTHROPIC_BASE_URL: proxy.baseUrl,
      ANTHROPIC_API_KEY: DUMMY_CREDENTIAL,
    });
  });
});

describe("the key proxy refuses what is not this run's model API, without reaching the upstream", () => {
  it("a path outside the prefix (no prefix, a wrong prefix, the prefix with a different length) is refused 403 and logged without its path", async () => {
    const up = await upstream();
    const { proxy, events } = await proxyFor(claudeKey, { upstream: up.url });
    const origin = new URL(proxy.baseUrl).origin;
    const secret = new URL(proxy.baseUrl).pathname.slice(1);
    const wrong = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    for (const url of [
      `${origin}/v1/messages`,
      `${origin}/${wrong}/v1/messages`,
      `${origin}/${secret}x/v1/messages`,
    ]) {
      const reply = await send(url, { body: '{"secret":"body"}' });
      expect(reply.status, url).toBe(403);
      expect(JSON.parse(reply.body.toString())).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error" },
      });
    }
    expect(up.seen).toEqual([]);
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event).toMatchObject({
        kind: "refused",
        status: 403,
        method: "POST",
        path: "(outside this proxy's prefix)",
      });
      expect(JSON.stringify(event)).not.toContain(wrong);
      expect(JSON.stringify(event)).not.toContain("body");
    }
  });

  it("a path outside the model API is refused 404 (and a model path with another method 405), logged with method and path, never the body", async () => {
    const up = await upstream();
    const { proxy, events } = await proxyFor(claudeKey, { upstream: up.url });
    const refused = [
      ["POST", "/v1/files"],
      ["GET", "/v1/organizations/me"],
      ["POST", "/v1/messages/batches"],
      ["POST", "/v1/messages/../files"],
      ["POST", "//v1/messages"],
      ["POST", "/v1/messages%2F..%2Ffiles"],
      ["POST", "/v1/responses"],
      ["GET", "/v1/messages"],
    ] as const;
    for (const [method, path] of refused) {
      const reply = await send(`${proxy.baseUrl}${path}`, {
        method,
        body: method === "GET" ? undefined : '{"hush":1}',
      });
      expect(reply.status, `${method} ${path}`).toBe(path === "/v1/messages" ? 405 : 404);
    }
    expect(up.seen).toEqual([]);
    expect(events.map((e) => (e.kind === "refused" ? `${e.status} ${e.method} ${e.path}` : e.kind))).toEqual([
      "404 POST /v1/files",
      "404 GET /v1/organizations/me",
      "404 POST /v1/messages/batches",
      "404 POST /v1/messages/../files",
      "404 POST //v1/messages",
      "404 POST /v1/messages%2F..%2Ffiles",
      "404 POST /v1/responses",
      "405 GET /v1/messages",
    ]);
    expect(JSON.stringify(events)).not.toContain("hush");
  });

  it("codex's API has its own routes: /responses is forwarded, /v1/messages and /files are not", async () => {
    const up = await upstream();
    const credential: ModelCredential = { runtime: "codex", variable: "OPENAI_API_KEY", value: REAL_OPENAI };
    const { proxy } = await proxyFor(credential, { upstream: up.url });
    expect((await send(`${proxy.baseUrl}/responses`, { body: "{}" })).status).toBe(200);
    expect((await send(`${proxy.baseUrl}/responses/compact`, { body: "{}" })).status).toBe(200);
    expect((await send(`${proxy.baseUrl}/models`, { method: "GET" })).status).toBe(200);
    const files = await send(`${proxy.baseUrl}/files`, { body: "{}" });
    expect(files.status).toBe(404);
    expect(JSON.parse(files.body.toString())).toMatchObject({ error: { type: "invalid_request_error" } });
    expect((await send(`${proxy.baseUrl}/v1/messages`, { body: "{}" })).status).toBe(404);
    expect(up.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "POST /responses",
      "POST /responses/compact",
      "GET /models",
    ]);
  });

  it("claude's connectivity probe (HEAD /api/hello) is answered by the proxy itself", async () => {
    const up = await upstream();
    const { proxy, events } = await proxyFor(claudeKey, { upstream: up.url });
    expect((await send(`${proxy.baseUrl}/api/hello`, { method: "HEAD" })).status).toBe(200);
    expect(up.seen).toEqual([]);
    expect(events).toEqual([]);
  });

  it("a body over the bound is refused 413 before the upstream is called, declared (content-length) or streamed (chunked); one at the bound passes", async () => {
    const up = await upstream();
    const { proxy, events } = await proxyFor(claudeKey, { upstream: up.url, maxRequestBytes: 1000 });
    const over = Buffer.alloc(1001, "a");
    const declared = await send(`${proxy.baseUrl}/v1/messages`, { body: over });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body.toString())).toMatchObject({ error: { type: "request_too_large" } });
    const chunked = await send(`${proxy.baseUrl}/v1/messages`, {
      body: [Buffer.alloc(600, "b"), Buffer.alloc(600, "c")],
    });
    expect(chunked.status).toBe(413);
    expect(up.seen).toEqual([]);
    expect(events.map((e) => (e.kind === "refused" ? `${e.status} ${e.reason}` : e.kind))).toEqual([
      "413 the request body is larger than 1000 bytes",
      "413 the request body is larger than 1000 bytes",
    ]);
    const atBound = await send(`${proxy.baseUrl}/v1/messages`, { body: Buffer.alloc(1000, "d") });
    expect(atBound.status).toBe(200);
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0]!.body).toHaveLength(1000);
  });
});

describe("the key proxy passes answers through", () => {
  it("an SSE stream arrives byte for byte (multi-byte characters split across writes included), with its status and content-type, each event as it is sent", async () => {
    const up = await upstream();
    const events = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1"}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"h\u00e9llo \u2603 \ud83d\ude00"}}\n\n',
      "event: ping\r\ndata: {}\r\n\r\n",
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ];
    const bytes = Buffer.from(events.join(""), "utf8");
    // Split in the middle of the snowman's three bytes and elsewhere.
    const snowman = bytes.indexOf(Buffer.from("\u2603", "utf8"));
    const cuts = [10, snowman + 1, snowman + 2, bytes.length - 5, bytes.length];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    up.answer = (_req, res) => {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": "req_1",
      });
      res.write(bytes.subarray(0, cuts[0]));
      // The rest is written only once the client has seen the first chunk: a buffering proxy would hang here.
      void gate.then(async () => {
        for (let i = 1; i < cuts.length; i++) {
          res.write(bytes.subarray(cuts[i - 1], cuts[i]));
          await new Promise((r) => setTimeout(r, 5));
        }
        res.end();
      });
    };
    const { proxy } = await proxyFor(claudeKey, { upstream: up.url });

    const received = await new Promise<{ status: number; type: string; id: string; body: Buffer }>(
      (resolve, reject) => {
        const req = request(`${proxy.baseUrl}/v1/messages`, { method: "POST" }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => {
            chunks.push(c);
            release();
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers["content-type"]),
              id: String(res.headers["request-id"]),
              body: Buffer.concat(chunks),
            }),
          );
        });
        req.on("error", reject);
        req.end('{"stream":true}');
      },
    );

    expect(received.status).toBe(200);
    expect(received.type).toBe("text/event-stream");
    expect(received.id).toBe("req_1");
    expect(received.body.equals(bytes)).toBe(true);
  });

  it("an upstream error is passed with its status; a credential the upstream echoes is replaced by ***", async () => {
    const up = await upstream();
    up.answer = (_req, res) => {
      res.writeHead(401, { "content-type": "application/json", "request-id": "req_2" });
      res.end(
        JSON.stringify({
          type: "error",
          error: { type: "authentication_error", message: `invalid x-api-key ${REAL_KEY}` },
        }),
      );
    };
    const { proxy } = await proxyFor(claudeKey, { upstream: up.url });
    const reply = await send(`${proxy.baseUrl}/v1/messages`, { body: "{}" });
    expect(reply.status).toBe(401);
    expect(reply.headers["request-id"]).toBe("req_2");
    expect(reply.body.toString()).not.toContain(REAL_KEY);
    expect(JSON.parse(reply.body.toString())).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key ***" },
    });
  });

  it("an unreachable upstream is a 502 in the API's error shape, naming the upstream, and logged", async () => {
    const up = await upstream();
    const gone = up.url;
    await up.close();
    const { proxy, events } = await proxyFor(claudeKey, { upstream: gone });
    const reply = await send(`${proxy.baseUrl}/v1/messages`, { body: "{}" });
    expect(reply.status).toBe(502);
    const body = JSON.parse(reply.body.toString()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("api_error");
    expect(body.error.message).toContain(`the upstream ${gone} could not be reached`);
    expect(reply.body.toString()).not.toContain(REAL_KEY);
    expect(events).toMatchObject([{ kind: "upstream-failed", method: "POST", path: "/v1/messages" }]);
  });

  it("a client that goes away mid-stream aborts the upstream request", async () => {
    const up = await upstream();
    let upstreamClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      upstreamClosed = resolve;
    });
    up.answer = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: ping\ndata: {}\n\n");
      res.on("close", () => upstreamClosed());
    };
    const { proxy } = await proxyFor(claudeKey, { upstream: up.url });
    await new Promise<void>((resolve, reject) => {
      const req = request(`${proxy.baseUrl}/v1/messages`, { method: "POST" }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => {});
      req.end("{}");
      setTimeout(() => reject(new Error("no first event")), 5000);
    });
    await closed;
  });

  it("close() stops listening", async () => {
    const { proxy } = await proxyFor(claudeKey);
    await proxy.close();
    await expect(send(`${proxy.baseUrl}/v1/messages`, { body: "{}" })).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("upstreamProblem", () => {
  it("takes http(s) base URLs and refuses the rest, saying why", () => {
    expect(upstreamProblem("https://api.anthropic.com")).toBeNull();
    expect(upstreamProblem("http://127.0.0.1:8080/gw/v1")).toBeNull();
    expect(upstreamProblem("not a url")).toContain("is not a URL");
    expect(upstreamProblem("ftp://x")).toContain("is not an http or https URL");
    expect(upstreamProblem("https://user:pw@gw.example")).toContain("user name or password");
    expect(upstreamProblem("https://gw.example/v1?x=1")).toContain("query or fragment");
  });

  it("startKeyProxy refuses an unusable upstream before it listens", async () => {
    await expect(startKeyProxy({ credential: claudeKey, upstream: "ftp://x" })).rejects.toThrow(
      "evidence-gate key proxy: the upstream",
    );
  });
});
