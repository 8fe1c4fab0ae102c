/**
 * A git smart-HTTP server on loopback, for push-mode tests: the real `git http-backend` (CGI) behind a node
 * HTTP server, serving bare repositories at `<url>/<owner>/<repo>.git`. Point the action's `GITHUB_SERVER_URL`
 * at {@link GitHttpServer.url} and the "PR branch" lives here.
 *
 * Like github.com, every request must carry `Authorization: Basic base64(x-access-token:<token>)` with the
 * server's token — anything else is answered 401 — so a test proves the credential actually reached git
 * (fetch and push), and records each request for assertions. Repositories allow fetching a reachable commit
 * by SHA (`uploadpack.allowReachableSHA1InWant`), as GitHub does.
 */
import { spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "../../src/proc/git.js";
import { hermeticGitEnv } from "./temp-repo.js";

export interface GitHttpRequest {
  readonly method: string;
  /** Path and query, e.g. `/octo-org/widgets.git/info/refs?service=git-receive-pack`. */
  readonly url: string;
  /** The request carried the server's token. */
  readonly authorized: boolean;
  /** How many `Authorization` header values arrived (a second persisted header would make 2). */
  readonly authorizationHeaders: number;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`: the `GITHUB_SERVER_URL` of a test. */
  readonly url: string;
  /** The folder holding the bare repositories (`<root>/<owner>/<repo>.git`), for pushes that bypass HTTP. */
  readonly root: string;
  readonly requests: GitHttpRequest[];
  /** Makes an empty bare repository for `OWNER/NAME`; returns its path. */
  createRepository(fullName: string): Promise<string>;
  /** Runs `git ARGS` in `OWNER/NAME`'s bare repository; returns stdout. */
  gitIn(fullName: string, args: readonly string[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts the server; `token` is the only credential it accepts. */
export async function startGitHttpServer(options: { readonly token: string }): Promise<GitHttpServer> {
  const root = await mkdtemp(join(tmpdir(), "eg-git-http-"));
  const expected = Buffer.from(`x-access-token:${options.token}`).toString("base64");
  const requests: GitHttpRequest[] = [];
  const server = createServer((req, res) => {
    const header = req.headers.authorization;
    const authorizationHeaders = req.rawHeaders.filter(
      (_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "authorization",
    ).length;
    // The scheme is case-insensitive (RFC 9110 §11.1): actions/checkout and git-push.ts send `basic`.
    const match = /^basic (\S+)$/i.exec(header ?? "");
    const authorized = authorizationHeaders === 1 && match?.[1] === expected;
    requests.push({ method: req.method ?? "", url: req.url ?? "", authorized, authorizationHeaders });
    if (!authorized) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"', "content-type": "text/plain" });
      res.end("authentication required\n");
      req.resume();
      return;
    }
    serveCgi(req, res, root);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const pathOf = (fullName: string) => join(root, `${fullName}.git`);
  return {
    url,
    root,
    requests,
    async createRepository(fullName) {
      const dir = pathOf(fullName);
      await mkdir(dir, { recursive: true });
      const run = (args: readonly string[]) => git(args, { cwd: dir, baseEnv: hermeticGitEnv });
      await run(["init", "--quiet", "--bare", "--initial-branch=main"]);
      // What `git config` would write for each key, without a git per key; `receive.autoGc false` and
      // `gc.auto 0`: no `git gc --auto` child after each push received.
      const config = ["[uploadpack]", "\tallowReachableSHA1InWant = true", "[http]", "\treceivepack = true"];
      config.push("[receive]", "\tautoGc = false", "[gc]", "\tauto = 0");
      await appendFile(join(dir, "config"), `${config.join("\n")}\n`);
      return dir;
    },
    gitIn: (fullName, args) => git(args, { cwd: pathOf(fullName), baseEnv: hermeticGitEnv }),
    close: async () => {
      await new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((e) => (e ? fail(e) : done()));
      });
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** One request through `git http-backend` (CGI/1.1): request body to stdin, `Status:` and headers from stdout. */
function serveCgi(req: IncomingMessage, res: ServerResponse, root: string): void {
  const at = new URL(req.url ?? "/", "http://localhost");
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: root,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(at.pathname),
      QUERY_STRING: at.search.replace(/^\?/, ""),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  req.pipe(child.stdin);
  const out: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => out.push(c));
  child.stderr.resume();
  child.on("close", () => {
    const data = Buffer.concat(out);
    let split = data.indexOf("\r\n\r\n");
    let gap = 4;
    if (split < 0) {
      split = data.indexOf("\n\n");
      gap = 2;
    }
    if (split < 0) {
      res.writeHead(500).end();
      return;
    }
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of data.subarray(0, split).toString("latin1").split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.end(data.subarray(split + gap));
  });
}
