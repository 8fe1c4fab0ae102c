/**
 * `npm run model-server -- SCRIPT.json`: the scripted model server (test/support/model-server, documented in
 * docs/scripted-model-server.md) on loopback, for trying the CLI offline on your own repository. It plays
 * the script's conversations to the real `claude` or `codex` CLI, prints what to set in the shell you run
 * evidence-gate from, logs each request it answers, and runs until Ctrl-C, SIGTERM or SIGHUP (to it or to the
 * `npm run` wrapper, which passes them on: scripts/bundle.mjs), then closes the server and exits 0.
 *
 * Errors: a missing or unreadable file, invalid JSON, or a script the validator refuses → exit 64 with the
 * message (every issue named by its JSON path).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  claudeEnvFor,
  codexConfigFor,
  parseModelScript,
  SCRIPTED_API_KEY,
  startModelServer,
} from "../test/support/model-server/index.js";

const USAGE =
  "usage: npm run model-server -- SCRIPT.json   (the script format: docs/scripted-model-server.md)";

/** Single-quotes a value for a POSIX shell. */
function sq(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

async function main(): Promise<number> {
  const [file] = process.argv.slice(2);
  if (file === undefined || file === "--help" || file === "-h") {
    console.error(USAGE);
    return file === undefined ? 64 : 0;
  }
  let script: ReturnType<typeof parseModelScript>;
  try {
    script = parseModelScript(JSON.parse(readFileSync(resolve(file), "utf8")));
  } catch (error) {
    console.error(`model-server: ${file}: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    return 64;
  }
  // The stop signals are caught before the URL is printed: a process that stops the server as soon as it
  // reads the URL (a test, a process manager) must not find the default handler still in place.
  // Handlers stay installed while the server closes: Ctrl-C in a terminal reaches this process twice
  // (from the terminal and from the npm wrapper, which passes signals on), and a second SIGINT with no
  // handler would kill it before the port is freed.
  const stopped = new Promise<void>((done) => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => done());
  });
  const server = await startModelServer({ script });
  const claude = claudeEnvFor(server.url, "UNUSED");
  const lines = [
    `scripted model server on ${server.url} (${script.conversations.length} conversation${script.conversations.length === 1 ? "" : "s"} from ${file}); Ctrl-C stops it.`,
    "",
    "claude: in the shell you run evidence-gate from,",
    ...Object.entries(claude)
      .filter(([name]) => name !== "HOME")
      .map(([name, value]) => `  export ${name}=${sq(value)}`),
    "",
    "codex: set the key and add these flags to auto / run / plan / resume (--runtime codex):",
    `  export OPENAI_API_KEY=${sq(SCRIPTED_API_KEY)}`,
    `  ${codexConfigFor(server.url)
      .map((pair) => `--codex-config ${sq(pair)}`)
      .join(" ")}`,
    "",
  ];
  console.log(lines.join("\n"));
  let seen = 0;
  const tick = setInterval(() => {
    for (const request of server.requests.slice(seen)) {
      seen += 1;
      console.log(`request ${seen}: ${request.conversation ?? "(no conversation matched)"}`);
    }
  }, 200);
  await stopped;
  clearInterval(tick);
  await server.close();
  console.log(`stopped after ${server.requests.length} request${server.requests.length === 1 ? "" : "s"}`);
  return 0;
}

process.exitCode = await main();
