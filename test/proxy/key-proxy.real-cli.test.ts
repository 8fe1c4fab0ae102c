/**
 * The pinned real CLIs through the key proxy (src/proxy/key-proxy.ts), offline: the scripted model server
 * is the proxy's upstream. Measured on each run:
 *
 * - the upstream receives the real credential on every request (`x-api-key` for claude, `authorization:
 *   Bearer` for codex), never the dummy;
 * - the CLI's own process tree (`/proc/<pid>/environ` of the spawned CLI and every descendant, read while
 *   the first model request is held by the server) holds the dummy and the proxy's base URL, and the real
 *   credential nowhere; so does the environment a model tool call sees (`env` and its parent's
 *   `/proc/$PPID/environ`, sent back to the model in the next request).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { operatorCodexProvider } from "../../src/proxy/codex-provider.js";
import { DUMMY_CREDENTIAL } from "../../src/proxy/credential.js";
import { type KeyProxy, type KeyProxyEvent, startKeyProxy } from "../../src/proxy/key-proxy.js";
import { buildClaudeArgv } from "../../src/runtime/claude-argv.js";
import { buildCodexArgv } from "../../src/runtime/codex-argv.js";
import { makeScratchFor, type Scratch, SPAWN_PATH } from "../runtime/real-cli.js";
import {
  codexConfigFor,
  type ModelScript,
  type ModelServer,
  type RecordedRequest,
  startModelServer,
} from "../support/model-server/index.js";

const CLAUDE_BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));
const CODEX_BIN = fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));

/** The real credentials: they may reach the scripted server (the upstream) and nothing else. */
const REAL_ANTHROPIC_KEY = `sk-ant-api03-REAL-${randomUUID()}`;
const REAL_OPENAI_KEY = `sk-proj-REAL-${randomUUID()}`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rig(script: ModelScript): Promise<{ server: ModelServer; scratch: Scratch }> {
  const scratch = makeScratchFor("proxy");
  const server = await startModelServer({ script });
  cleanups.push(
    () => server.close(),
    () => scratch.cleanup(),
  );
  return { server, scratch };
}

function track(proxy: KeyProxy): KeyProxy {
  cleanups.push(() => proxy.close());
  return proxy;
}

/** The pids of `root` and all its descendants now (from each `/proc/<pid>/stat`'s parent pid). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, ppid] of parents) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  return tree;
}

/**
 * `/proc/<pid>/environ` and `cmdline` of each live process, NUL separators turned into newlines. A process
 * that has exited and not been reaped yet (state `Z`, a zombie) is left out: it has no memory left, so its
 * `environ` reads empty (CI caught codex's tree with one such child) and it holds no key to find.
 */
function procTexts(pids: readonly number[]): { pid: number; environ: string; cmdline: string }[] {
  return pids.flatMap((pid) => {
    try {
      const read = (file: string) => readFileSync(`/proc/${pid}/${file}`, "latin1").split("\0").join("\n");
      const stat = read("stat");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state === "Z" || state === "X") return [];
      return [{ pid, environ: read("environ"), cmdline: read("cmdline") }];
    } catch {
      return [];
    }
  });
}

interface CliRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The CLI's process tree while the server held its first request. */
  readonly tree: { pid: number; environ: string; cmdline: string }[];
}

/** Spawns the CLI (stdin ignored) and snapshots its process tree once the server holds a delayed request. */
async function runCli(o: {
  bin: string;
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  server: ModelServer;
}): Promise<CliRun> {
  const child = spawn(o.bin, o.argv, { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  let tree: CliRun["tree"] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (o.server.requests.some((r) => r.answeredAt === null)) {
      tree = procTexts(processTree(child.pid!));
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const exitCode = await exited;
  return { exitCode, stdout, stderr, tree };
}

/** Everything the model was sent back from tool calls (claude `tool_result`, codex `*_call_output`). */
function toolResultsOf(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body ?? null);
}

function expectNoRealKey(what: string, text: string, key: string): void {
  expect(text.includes(key), `${what} holds the real key`).toBe(false);
}

const BASH_ONLY: ToolPolicy = {
  settingSources: "",
  allowedTools: ["Bash"],
  tools: ["Bash"],
  strictMcpConfig: true,
  disallowedTools: [],
};

/** The tool call both CLIs make: the tool's own environment, then its parent's initial one. */
const PRINT_ENVIRONMENTS = "env; echo ---parent---; tr '\\0' '\\n' < /proc/$PPID/environ";

describe("real claude through the key proxy", () => {
  it("the scripted upstream gets the real key on every request; claude's process tree and its Bash tool see only the dummy", async () => {
    const { server, scratch } = await rig({
      conversations: [
        {
          name: "probe",
          match: "proxy probe",
          turns: [
            {
              delay_ms: 1500,
              tool_calls: [
                { name: "Bash", input: { command: PRINT_ENVIRONMENTS, description: "print env" } },
              ],
            },
            { text: "done" },
          ],
        },
      ],
    });
    const events: KeyProxyEvent[] = [];
    const proxy = track(
      await startKeyProxy({
        credential: { runtime: "claude", variable: "ANTHROPIC_API_KEY", value: REAL_ANTHROPIC_KEY },
        upstream: server.url,
        log: (e) => events.push(e),
      }),
    );
    const env = proxy.applyTo({
      PATH: SPAWN_PATH,
      HOME: scratch.home,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
      DISABLE_AUTOUPDATER: "1",
      // What the builders must never leave in: applyTo drops it.
      ANTHROPIC_API_KEY: REAL_ANTHROPIC_KEY,
    });
    const argv = buildClaudeArgv({
      prompt: "proxy probe: print the environment.",
      permissionMode: "dontAsk",
      policy: BASH_ONLY,
      session: { kind: "fresh", sessionId: randomUUID() },
    });

    const run = await runCli({ bin: CLAUDE_BIN, argv, cwd: scratch.workspace, env, server });

    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('"result":"done"');
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    for (const request of server.requests) {
      expect(request.headers["x-api-key"]).toBe(REAL_ANTHROPIC_KEY);
      expect(JSON.stringify(request.headers)).not.toContain(DUMMY_CREDENTIAL);
    }
    // claude's own process (and any helper it started) while it waited on the model.
    expect(run.tree.length).toBeGreaterThan(0);
    const cli = run.tree[0]!;
    expect(cli.environ).toContain(`ANTHROPIC_API_KEY=${DUMMY_CREDENTIAL}\n`);
    expect(cli.environ).toContain(`ANTHROPIC_BASE_URL=${proxy.baseUrl}\n`);
    for (const p of run.tree) {
      expectNoRealKey(`/proc/${p.pid}/environ`, p.environ, REAL_ANTHROPIC_KEY);
      expectNoRealKey(`/proc/${p.pid}/cmdline`, p.cmdline, REAL_ANTHROPIC_KEY);
    }
    // The Bash tool's output, as the model got it back.
    const toolOutput = toolResultsOf(server.requests[1]);
    expect(toolOutput).toContain("---parent---");
    expect(toolOutput).toContain(DUMMY_CREDENTIAL);
    expectNoRealKey("the Bash tool's output", toolOutput, REAL_ANTHROPIC_KEY);
    expectNoRealKey("claude's stdout", run.stdout + run.stderr, REAL_ANTHROPIC_KEY);
    expect(events).toEqual([]);
  }, 90_000);
});

describe("real codex through the key proxy", () => {
  /** Turn 0 is held by the server while the test reads codex's process tree; then an `env` call, then text. */
  const script: ModelScript = {
    conversations: [
      {
        name: "probe",
        match: "proxy probe",
        turns: [
          { delay_ms: 1500, tool_calls: [{ name: "exec_command", input: { cmd: PRINT_ENVIRONMENTS } }] },
          { text: "done" },
        ],
      },
    ],
  };

  async function runCodexThroughProxy(
    server: ModelServer,
    scratch: Scratch,
    config: { operator: readonly string[]; proxy: KeyProxy },
  ): Promise<CliRun> {
    const argv = buildCodexArgv({
      prompt: "proxy probe: print the environment.",
      permissionMode: "dontAsk",
      policy: { settingSources: "", allowedTools: [], strictMcpConfig: true, disallowedTools: [] },
      session: { kind: "fresh" },
      config: [...config.operator, ...config.proxy.codexConfig],
    });
    const host = "127.0.0.1";
    const env = config.proxy.applyTo({
      PATH: SPAWN_PATH,
      HOME: scratch.home,
      CODEX_HOME: scratch.home,
      NO_PROXY: host,
      no_proxy: host,
      OPENAI_API_KEY: REAL_OPENAI_KEY,
      CODEX_API_KEY: REAL_OPENAI_KEY,
    });
    return runCli({ bin: CODEX_BIN, argv, cwd: scratch.workspace, env, server });
  }

  function expectProxied(run: CliRun, server: ModelServer, proxy: KeyProxy): void {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0);
    expect(run.stdout).toContain('"text":"done"');
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${REAL_OPENAI_KEY}`);
      expect(JSON.stringify(request.headers)).not.toContain(DUMMY_CREDENTIAL);
    }
    // codex's node wrapper and the native binary it starts, while it waited on the model.
    expect(run.tree.length).toBeGreaterThanOrEqual(2);
    for (const p of run.tree) {
      expect(p.environ).toContain(`OPENAI_API_KEY=${DUMMY_CREDENTIAL}\n`);
      expectNoRealKey(`/proc/${p.pid}/environ`, p.environ, REAL_OPENAI_KEY);
      expectNoRealKey(`/proc/${p.pid}/cmdline`, p.cmdline, REAL_OPENAI_KEY);
    }
    expect(run.tree.some((p) => p.cmdline.includes(proxy.baseUrl))).toBe(true);
    const toolOutput = toolResultsOf(server.requests[1]);
    expect(toolOutput).toContain("---parent---");
    expectNoRealKey("the exec_command output", toolOutput, REAL_OPENAI_KEY);
    expectNoRealKey("codex's output", run.stdout + run.stderr, REAL_OPENAI_KEY);
  }

  it("the operator's provider (codex-config) is re-pointed at the proxy, its base_url the upstream: real key upstream, dummy in codex's tree", async () => {
    const { server, scratch } = await rig(script);
    const operator = codexConfigFor(server.url);
    const provider = operatorCodexProvider(operator);
    expect(provider).toEqual({ kind: "provider", id: "scripted", baseUrl: `${server.url}/v1` });
    if (provider.kind !== "provider") throw new Error("unreachable");
    const proxy = track(
      await startKeyProxy({
        credential: { runtime: "codex", variable: "OPENAI_API_KEY", value: REAL_OPENAI_KEY },
        upstream: provider.baseUrl,
        codexProvider: provider.id,
      }),
    );
    const run = await runCodexThroughProxy(server, scratch, { operator, proxy });
    expectProxied(run, server, proxy);
  }, 90_000);

  it("no provider of the operator's: the proxy's own provider is selected, upstream as given", async () => {
    const { server, scratch } = await rig(script);
    const proxy = track(
      await startKeyProxy({
        credential: { runtime: "codex", variable: "OPENAI_API_KEY", value: REAL_OPENAI_KEY },
        upstream: `${server.url}/v1`,
      }),
    );
    const operator = ['model="gpt-5.5"', "features.plugins=false", "analytics.enabled=false"];
    const run = await runCodexThroughProxy(server, scratch, { operator, proxy });
    expectProxied(run, server, proxy);
  }, 90_000);
});
