/** One bot replica for `bench/bot-load.mjs`: `evidence-gate bot` with its arguments and the environment given. */
import { runBotCommand } from "../src/bot/bot-command.js";

process.exitCode = await runBotCommand(process.argv.slice(2), {
  env: process.env,
  out: process.stdout,
  err: process.stderr,
});
