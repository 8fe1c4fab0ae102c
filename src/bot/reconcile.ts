import type { BotApp } from "./bot-app.js";
import type { BotConfig } from "./config.js";
import type { BotLog } from "./delivery-log.js";

export async function reconcileOpenCheckRuns(
  _bot: BotApp,
  _config: BotConfig,
  _log: BotLog,
): Promise<Record<string, number>> {
  return {};
}
