/**
 * Redelivery (SPEC §2.3: GitHub does not redeliver a failed webhook by itself): `evidence-gate bot
 * --redeliver-failed --since 1h` lists the App's deliveries as the App (JWT) and asks GitHub to redeliver
 * each event none of whose deliveries succeeded; the bot, idempotent, then does what the first delivery
 * should have. The same sweep runs inside the server on a timer when `REDELIVER_EVERY` is set.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runBotCommand } from "../../src/bot/bot-command.js";
import { botEnv, botRigs, pullRequestPayload } from "../support/bot-harness.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const rigs = botRigs();

/** A loopback URL nothing listens on (a replica that is down). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

function io(env: Record<string, string | undefined>) {
  let out = "";
  let err = "";
  return {
    io: { env, out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } },
    out: () => out,
    err: () => err,
  };
}

describe("redelivery of failed deliveries", () => {
  it("--redeliver-failed redelivers the event GitHub could not deliver (and not the one refused as malformed); the redelivery creates the check run; a second sweep has nothing to do", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    // The bot was unreachable for this one (a replica down): GitHub recorded it failed.
    const failed = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }), {
      url: await deadUrl(),
    });
    const malformed = await rig.deliver("pull_request", null, { rawBody: "{not json" });
    expect([failed.statusCode, malformed.statusCode]).toEqual([0, 400]);
    expect(github.state.checkRuns).toEqual([]);

    const cli = io(botEnv(github));
    expect(await runBotCommand(["--redeliver-failed", "--since", "1h"], cli.io)).toBe(0);
    await rig.settle();

    const line = JSON.parse(cli.out().trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ kind: "redeliver", listed: 2, failed: 2, redelivered: 1, skipped: 1 });
    expect(cli.err()).toContain("the payload itself was refused");
    const again = github.state.webhooks.records.filter((r) => r.guid === failed.guid);
    expect(again.map((r) => [r.redelivery, r.statusCode])).toEqual([
      [false, 0],
      [true, 202],
    ]);
    expect(github.state.checkRuns).toHaveLength(1);
    // The listing and the redelivery are the App's own calls, with its JWT.
    for (const call of github.calls.filter((c) => c.path.startsWith("/app/hook"))) {
      expect(call.authorization).toMatch(/^bearer /i);
    }

    const second = io(botEnv(github));
    expect(await runBotCommand(["--redeliver-failed"], second.io)).toBe(0);
    expect(JSON.parse(second.out().trim())).toMatchObject({ redelivered: 0 });
    github.assertNoViolations();
  });

  it("REDELIVER_EVERY runs the same sweep inside the server (on by default: every 10 minutes)", async () => {
    const rig = await rigs.start({ REDELIVER_EVERY: "1s" });
    const failed = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }), {
      url: await deadUrl(),
    });
    expect(failed.status).toBe("failed to connect");
    for (let i = 0; i < 50 && rig.github.state.checkRuns.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await rig.settle();
    }
    expect(rig.github.state.checkRuns).toHaveLength(1);
    expect(rig.logs.some((l) => l.kind === "redeliver" && l.redelivered === 1)).toBe(true);
  });

  it("the command's usage errors and a configuration error name the flag or the variable (exit 64)", async () => {
    const rig = await rigs.start();
    const badSince = io(botEnv(rig.github));
    expect(await runBotCommand(["--redeliver-failed", "--since", "soon"], badSince.io)).toBe(64);
    expect(badSince.err()).toContain('--since "soon"');
    // The server verifies every delivery's signature: it needs WEBHOOK_SECRET.
    const noSecret = io(botEnv(rig.github, { WEBHOOK_SECRET: undefined }));
    expect(await runBotCommand([], noSecret.io)).toBe(64);
    expect(noSecret.err()).toContain("WEBHOOK_SECRET: is not set");
  });

  it("--redeliver-failed needs no WEBHOOK_SECRET: it receives nothing and signs nothing, so it runs without one (operator trial)", async () => {
    const rig = await rigs.start();
    const failed = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }), {
      url: await deadUrl(),
    });
    expect(failed.statusCode).toBe(0);
    const cli = io(botEnv(rig.github, { WEBHOOK_SECRET: undefined }));
    expect(await runBotCommand(["--redeliver-failed"], cli.io)).toBe(0);
    expect(cli.err()).toBe("");
    expect(JSON.parse(cli.out().trim())).toMatchObject({ kind: "redeliver", failed: 1, redelivered: 1 });
    await rig.settle();
    expect(rig.github.state.checkRuns).toHaveLength(1);
    rig.github.assertNoViolations();
  });

  it("a PORT another process holds is a usage error naming PORT (exit 64), not a stack trace (operator trial)", async () => {
    const rig = await rigs.start();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const busy = io(botEnv(rig.github, { PORT: String(port), HOST: "127.0.0.1" }));
      expect(await runBotCommand([], busy.io)).toBe(64);
      expect(busy.err()).toBe(
        `evidence-gate bot: PORT / HOST: 127.0.0.1:${port} is already in use by another process; set PORT (and HOST) to a free address\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
