/**
 * `evidence-gate bot` (SPEC §2): starts the GitHub App server (configuration from the environment,
 * `config.ts`) and runs until SIGINT / SIGTERM — then stops accepting, lets in-flight work finish for at most
 * `SHUTDOWN_DEADLINE` (25 s), asks GitHub to redeliver what did not, and exits; `evidence-gate bot --redeliver-failed [--since 1h]` instead
 * asks GitHub once to redeliver the App's failed deliveries of that window and exits. Exit codes: 0 done,
 * 1 GitHub refused, 64 usage or configuration error (naming the variable or flag).
 */

import { createBotApp } from "./bot-app.js";
import { type BotConfig, BotConfigError, parseSpan, readBotConfig } from "./config.js";
import { redeliverFailed } from "./redeliver.js";
import { botLogFor, startBot } from "./start-bot.js";

export const BOT_USAGE = `usage: evidence-gate bot [--redeliver-failed [--since SPAN]]

Starts the evidence-gate GitHub App's webhook server, or (--redeliver-failed) asks GitHub to redeliver
the App's failed deliveries of the last SPAN (default: REDELIVER_SINCE, else 1h) and exits.

environment: APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET (not for --redeliver-failed), PORT (3000), HOST (127.0.0.1),
CHECK_NAME (evidence-gate), WORKFLOW_FILE (evidence-gate.yml), RESUME_WORKFLOW_FILE, GITHUB_API_URL,
REDELIVER_EVERY (10m; off), REDELIVER_SINCE (1h), RECONCILE_EVERY (10m; off), RECONCILE_AFTER (15m),
SHUTDOWN_DEADLINE (25s). See docs/bot.md.
`;

export interface BotCommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Stops the server; default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
}

interface BotFlags {
  readonly redeliver: boolean;
  readonly sinceMs: number | null;
}

function parseFlags(argv: readonly string[]): BotFlags | string {
  let redeliver = false;
  let sinceMs: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--redeliver-failed") redeliver = true;
    else if (arg === "--since" || arg.startsWith("--since=")) {
      const text = arg === "--since" ? argv[++i] : arg.slice("--since=".length);
      const ms = text === undefined ? null : parseSpan(text);
      if (ms === null || ms === 0)
        return `--since ${JSON.stringify(text ?? "")} is not a period such as 30m, 1h or 2d`;
      sinceMs = ms;
    } else return `unknown flag ${JSON.stringify(arg)}`;
  }
  if (sinceMs !== null && !redeliver) return "--since goes with --redeliver-failed";
  return { redeliver, sinceMs };
}

export async function runBotCommand(argv: readonly string[], io: BotCommandIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(BOT_USAGE);
    return 0;
  }
  const flags = parseFlags(argv);
  if (typeof flags === "string") {
    io.err.write(`evidence-gate bot: ${flags}\n\n${BOT_USAGE}`);
    return 64;
  }
  let config: BotConfig;
  try {
    // `--redeliver-failed` receives no delivery: it needs no WEBHOOK_SECRET.
    config = readBotConfig(io.env, { receives: !flags.redeliver });
  } catch (error) {
    if (!(error instanceof BotConfigError)) throw error;
    io.err.write(`evidence-gate bot: ${error.message}\n`);
    return 64;
  }
  if (flags.redeliver) {
    const log = botLogFor(config, (line) => void io.out.write(line));
    const { appOctokit } = createBotApp(config, log);
    try {
      const sweep = await redeliverFailed(appOctokit, { sinceMs: flags.sinceMs ?? config.redeliverSinceMs });
      log.note("redeliver", {
        listed: sweep.listed,
        failed: sweep.failed,
        redelivered: sweep.redelivered.length,
        skipped: sweep.skipped.length,
      });
      for (const why of sweep.skipped) io.err.write(`evidence-gate bot: not redelivered: ${why}\n`);
      return 0;
    } catch (error) {
      io.err.write(
        `evidence-gate bot: listing the App's deliveries failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 1;
    }
  }
  let running: Awaited<ReturnType<typeof startBot>>;
  try {
    running = await startBot(config, { write: (line) => void io.out.write(line) });
  } catch (error) {
    // The address is the operator's setting: a port in use or not ours to bind is a usage error naming it.
    const code = (error as { code?: unknown }).code;
    if (code !== "EADDRINUSE" && code !== "EACCES" && code !== "EADDRNOTAVAIL") throw error;
    const why =
      code === "EADDRINUSE"
        ? "is already in use by another process"
        : code === "EACCES"
          ? "may not be bound by this user (ports under 1024 need privileges)"
          : "is not an address of this machine";
    io.err.write(
      `evidence-gate bot: PORT / HOST: ${config.host}:${config.port} ${why}; set PORT (and HOST) to a free address\n`,
    );
    return 64;
  }
  await new Promise<void>((resolve) => {
    if (io.signal !== undefined) {
      if (io.signal.aborted) resolve();
      else io.signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  // Stops accepting, waits for in-flight work up to SHUTDOWN_DEADLINE, asks GitHub to redeliver the rest.
  await running.close();
  if (io.signal === undefined) {
    // Abandoned work may still hold timers (a rate-limit wait): exit anyway, once the log is flushed.
    setTimeout(() => process.exit(0), 1_000).unref();
  }
  return 0;
}
