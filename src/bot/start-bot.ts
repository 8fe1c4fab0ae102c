/**
 * Starts the bot: the App, the HTTP server listening on `HOST:PORT`, the work of accepted deliveries
 * (run after their answer, `delivery-work.ts`), and two sweeps on timers — the redelivery of the App's
 * failed deliveries (`REDELIVER_EVERY`, default 10 min) and the reconcile of its own `queued` /
 * `in_progress` check runs (`RECONCILE_EVERY`, default 10 min; `reconcile.ts`). Keeps no state of its own:
 * GitHub's check runs, workflow runs, artifacts and delivery log hold it, so any number of replicas can serve
 * behind a load balancer, and every replica may sweep — what a sweep writes, a handler would have written,
 * and the handlers are idempotent against GitHub's state.
 *
 * A delivery whose work fails after its `202` is redelivered by the App itself ({@link redeliverDelivery}),
 * after a pause, at most `MAX_DELIVERY_ATTEMPTS` deliveries per event in all.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type BotApp, createBotApp } from "./bot-app.js";
import type { BotConfig } from "./config.js";
import { type BotLog, createBotLog } from "./delivery-log.js";
import { DeliveryWork } from "./delivery-work.js";
import { createBotServer } from "./http-server.js";
import { reconcileOpenCheckRuns } from "./reconcile.js";
import { redeliverDelivery, redeliverFailed } from "./redeliver.js";

/** Before asking GitHub to redeliver a delivery whose work failed, ms (scaled like every backoff). */
export const SELF_REDELIVERY_PAUSE_MS = 10_000;
/** On shutdown, how long the requests to redeliver abandoned deliveries may take, ms. */
const ABANDON_REDELIVERY_MS = 5_000;

export interface RunningBot {
  /** `http://HOST:PORT` as bound (PORT 0 resolved). */
  readonly url: string;
  readonly port: number;
  readonly bot: BotApp;
  readonly server: Server;
  /** The work of accepted deliveries (tests await `work.settled()`). */
  readonly work: DeliveryWork;
  /** One reconcile sweep now (what the timer runs). */
  reconcile(): Promise<void>;
  /** One redelivery sweep now (what the timer runs). */
  redeliver(): Promise<void>;
  /**
   * Stops: the timers, then accepting connections, then waits for in-flight work up to `SHUTDOWN_DEADLINE`;
   * work still running then is abandoned — GitHub is asked to redeliver each such delivery — and logged.
   */
  close(): Promise<void>;
}

export interface StartBotOptions {
  /** Where log lines go (default stdout). */
  readonly write?: (line: string) => void;
  /** Default GitHub's 25 MB. */
  readonly maxPayloadBytes?: number;
  /** How long a delivery's body may take to arrive, ms; default `BODY_READ_TIMEOUT_MS` (10 s, http-server.ts; tests lower it). */
  readonly bodyReadTimeoutMs?: number;
  /**
   * The reconcile sweep's clock (default the system clock): a check run is open "too long" by it. Tests move
   * it forward instead of sleeping past `RECONCILE_AFTER`.
   */
  readonly now?: () => Date;
}

/** The bot's log for `config`: its own secrets redacted from every line. */
export function botLogFor(config: BotConfig, write?: (line: string) => void): BotLog {
  const secrets = [config.webhookSecret, config.privateKey].filter((s): s is string => s !== null);
  return createBotLog({ secrets, ...(write ? { write } : {}) });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function startBot(config: BotConfig, o: StartBotOptions = {}): Promise<RunningBot> {
  const log = botLogFor(config, o.write);
  const bot = createBotApp(config, log);
  const work = new DeliveryWork();
  const scale = (config.timing.retryBaseMs ?? 1000) / 1000;
  let closing = false;
  const askAgain = async (guid: string): Promise<void> => {
    try {
      // The delivery shows in GitHub's log only once answered; try a few times.
      for (let tries = 1; tries <= 3; tries++) {
        const done = await redeliverDelivery(bot.appOctokit, { guid, sinceMs: config.redeliverSinceMs });
        if (done.kind !== "not-found" || tries === 3) {
          log.note("redeliver-one", {
            delivery: guid,
            result: done.kind,
            ...(done.kind === "redelivered" ? { attempt: done.attempt } : {}),
            ...(done.kind === "gave-up" ? { attempts: done.attempts } : {}),
          });
          return;
        }
        await sleep(Math.round(1000 * scale * tries));
      }
    } catch (error) {
      log.note("redeliver-one", { delivery: guid, result: "error", error: message(error) });
    }
  };
  const server = createBotServer({
    bot,
    log,
    work,
    onFailed: ({ id }) =>
      work.run(`redeliver ${id}`, async () => {
        if (!closing) await sleep(Math.round(SELF_REDELIVERY_PAUSE_MS * scale));
        await askAgain(id);
      }),
    ...(o.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: o.maxPayloadBytes }),
    ...(o.bodyReadTimeoutMs === undefined ? {} : { bodyReadTimeoutMs: o.bodyReadTimeoutMs }),
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
  const redeliver = async (): Promise<void> => {
    try {
      const done = await redeliverFailed(bot.appOctokit, { sinceMs: config.redeliverSinceMs });
      log.note("redeliver", {
        listed: done.listed,
        failed: done.failed,
        redelivered: done.redelivered.length,
        skipped: done.skipped.length,
      });
    } catch (error) {
      log.note("redeliver", { error: message(error) });
    }
  };
  const reconcile = async (): Promise<void> => {
    try {
      const done = await reconcileOpenCheckRuns(bot, config, log, o.now);
      log.note("reconcile", { ...done });
    } catch (error) {
      log.note("reconcile", { error: message(error) });
    }
  };
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number | null, sweep: () => Promise<void>): void => {
    if (ms === null) return;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void sweep().finally(() => {
        running = false;
      });
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  every(config.redeliverEveryMs, redeliver);
  every(config.reconcileEveryMs, reconcile);
  log.note("start", {
    url: `http://${host}:${port}`,
    appId: config.appId,
    checkName: config.checkName,
    workflowFile: config.workflowFile,
    resumeWorkflowFile: config.resumeWorkflowFile,
    apiUrl: config.apiUrl,
    redeliverEveryMs: config.redeliverEveryMs,
    reconcileEveryMs: config.reconcileEveryMs,
    reconcileAfterMs: config.reconcileAfterMs,
    shutdownDeadlineMs: config.shutdownDeadlineMs,
  });
  return {
    url: `http://${host}:${port}`,
    port,
    bot,
    server,
    work,
    reconcile,
    redeliver,
    async close() {
      closing = true;
      for (const timer of timers) clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const abandoned = await work.drain(config.shutdownDeadlineMs);
      const deliveries = abandoned.filter((label) => !label.startsWith("redeliver "));
      if (deliveries.length > 0) {
        await Promise.race([
          Promise.allSettled(deliveries.map((guid) => askAgain(guid))),
          sleep(ABANDON_REDELIVERY_MS, undefined, { ref: false }),
        ]);
      }
      server.closeAllConnections();
      await closed;
      log.note("stop", {
        abandoned: abandoned.length,
        ...(abandoned.length > 0 ? { deliveries: abandoned.join(" ") } : {}),
      });
    },
  };
}
