/**
 * Starts the bot: the App, the HTTP server listening on `HOST:PORT`, and — when `REDELIVER_EVERY` is set —
 * the redelivery sweep on a timer (opt-in; one replica is enough, several are harmless: a redelivered event
 * is handled idempotently). Keeps no state of its own: GitHub's check runs, workflow runs, artifacts and
 * delivery log hold it, so any number of replicas can serve behind a load balancer.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type BotApp, createBotApp } from "./bot-app.js";
import type { BotConfig } from "./config.js";
import { type BotLog, createBotLog } from "./delivery-log.js";
import { createBotServer } from "./http-server.js";
import { redeliverFailed } from "./redeliver.js";

export interface RunningBot {
  /** `http://HOST:PORT` as bound (PORT 0 resolved). */
  readonly url: string;
  readonly port: number;
  readonly bot: BotApp;
  readonly server: Server;
  /** Stops the timer and the server (open deliveries are answered first). */
  close(): Promise<void>;
}

export interface StartBotOptions {
  /** Where log lines go (default stdout). */
  readonly write?: (line: string) => void;
  /** Default GitHub's 25 MB. */
  readonly maxPayloadBytes?: number;
}

/** The bot's log for `config`: its own secrets redacted from every line. */
export function botLogFor(config: BotConfig, write?: (line: string) => void): BotLog {
  return createBotLog({ secrets: [config.webhookSecret, config.privateKey], ...(write ? { write } : {}) });
}

export async function startBot(config: BotConfig, o: StartBotOptions = {}): Promise<RunningBot> {
  const log = botLogFor(config, o.write);
  const bot = createBotApp(config, log);
  const server = createBotServer({
    bot,
    log,
    ...(o.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: o.maxPayloadBytes }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let timer: NodeJS.Timeout | undefined;
  if (config.redeliverEveryMs !== null) {
    const sweep = async (): Promise<void> => {
      try {
        const done = await redeliverFailed(bot.appOctokit, { sinceMs: config.redeliverSinceMs });
        log.note("redeliver", {
          listed: done.listed,
          failed: done.failed,
          redelivered: done.redelivered.length,
          skipped: done.skipped.length,
        });
      } catch (error) {
        log.note("redeliver", { error: error instanceof Error ? error.message : String(error) });
      }
    };
    timer = setInterval(() => void sweep(), config.redeliverEveryMs);
    timer.unref();
  }
  log.note("start", {
    url: `http://${host}:${port}`,
    appId: config.appId,
    checkName: config.checkName,
    workflowFile: config.workflowFile,
    resumeWorkflowFile: config.resumeWorkflowFile,
    apiUrl: config.apiUrl,
    redeliverEveryMs: config.redeliverEveryMs,
  });
  return {
    url: `http://${host}:${port}`,
    port,
    bot,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (timer !== undefined) clearInterval(timer);
        server.close((error) => {
          log.note("stop", {});
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
