/**
 * The bot under test in a vitest file: {@link botRigs} starts the local GitHub server (App authentication on)
 * and the real bot pointed at it, closes both after each test. Payloads and fixtures: `bot-fixtures.ts`.
 */
import { afterEach } from "vitest";
import { readBotConfig } from "../../src/bot/config.js";
import { type RunningBot, type StartBotOptions, startBot } from "../../src/bot/start-bot.js";
import { botEnv, startAppGitHubServer, WEBHOOK_SECRET } from "./bot-fixtures.js";
import type { DeliverInput, DeliveryRecord, GitHubServer } from "./github-server/index.js";

export * from "./bot-fixtures.js";

/** A delivery as GitHub recorded it, with the outcome the bot logged for it. */
export type BotDelivery = DeliveryRecord & { readonly outcome: string | null };

export interface BotRig {
  readonly github: GitHubServer;
  readonly bot: RunningBot;
  /** The bot's log, one parsed JSON object per line. */
  readonly logs: Record<string, unknown>[];
  /** The raw log text (to check that no secret is in it). */
  logText(): string;
  /**
   * Sends a signed delivery to the bot (as GitHub would), waits for its answer, then for the bot's work
   * after the answer (the handler runs after the `202`): GitHub's record of the delivery, and `outcome` —
   * what the work did, from the bot's log line for that delivery (`null` when it logged none).
   */
  deliver(
    event: string,
    payload: unknown,
    extra?: Omit<DeliverInput, "event" | "payload">,
  ): Promise<BotDelivery>;
  /** The log lines of deliveries (kind `delivery`). */
  deliveries(): Record<string, unknown>[];
  /** The outcomes the bot logged for every delivery of event `guid`, in order (its own redeliveries too). */
  outcomes(guid: string): unknown[];
  /** Waits until the bot has no work left and GitHub no redelivery in flight (the App's own included). */
  settle(): Promise<void>;
}

/** Starts a GitHub server and a bot pointed at it; both closed after each test. */
export function botRigs(): {
  /**
   * `env` over {@link botEnv}'s; `server` for the GitHub double; `options` for {@link startBot} (its clock,
   * its body-read bound: what a test moves or lowers instead of waiting).
   */
  start(
    env?: Readonly<Record<string, string | undefined>>,
    server?: { readonly otherTokens?: readonly string[] },
    options?: Omit<StartBotOptions, "write">,
  ): Promise<BotRig>;
} {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });
  return {
    async start(env = {}, server = {}, options = {}) {
      const github = await startAppGitHubServer(server);
      open.push(github);
      let text = "";
      const bot = await startBot(readBotConfig(botEnv(github, env)), {
        ...options,
        write: (line) => {
          text += line;
        },
      });
      open.push(bot);
      github.state.webhooks.target = { url: bot.url, secret: WEBHOOK_SECRET };
      const logs = (): Record<string, unknown>[] =>
        text
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      return {
        github,
        bot,
        get logs() {
          return logs();
        },
        logText: () => text,
        deliver: async (event, payload, extra = {}) => {
          const record = await github.state.webhooks.deliver({ event, payload, ...extra });
          // The delivery's own work; the App's own redelivery of a failed one comes later (`settle`).
          await bot.work.settled((label) => !label.startsWith("redeliver "));
          const line = logs()
            .filter((l) => l.kind === "delivery" && l.delivery === record.guid)
            .at(-1);
          return { ...record, outcome: typeof line?.outcome === "string" ? line.outcome : null };
        },
        deliveries: () => logs().filter((l) => l.kind === "delivery"),
        outcomes: (guid) =>
          logs()
            .filter((l) => l.kind === "delivery" && l.delivery === guid)
            .map((l) => l.outcome),
        async settle() {
          do {
            await bot.work.settled();
            await github.state.webhooks.settled();
          } while (bot.work.active > 0);
        },
      };
    },
  };
}
