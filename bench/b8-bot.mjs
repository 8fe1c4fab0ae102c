// B8 (issue 16): the bot's signed deliveries/s and p99 latency with two replicas, no loss, no duplicate
// check run. bench/bot-load.mjs measures exactly this and prints its own table (docs/bot.md quotes it);
// it is not folded into `npm run bench` yet, so the row points at it.
import { notMeasured } from "./lib/row.mjs";

notMeasured(
  "B8",
  "bot deliveries/s, p99, two replicas",
  "no loss, no duplicate check run",
  "run `node bench/bot-load.mjs` (its own table; docs/bot.md)",
);
