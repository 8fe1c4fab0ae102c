/**
 * The bot's HTTP edge, over a real socket (SPEC §2.3; docs/bot.md): deliveries signed by the local GitHub
 * server with the webhook secret, the bot's every API call going back to that server. What is answered to
 * each kind of delivery, and that nothing is posted for one the bot must not act on.
 */
import { describe, expect, it } from "vitest";
import {
  appKeys,
  botRigs,
  checkRunPayload,
  pullRequestPayload,
  WEBHOOK_SECRET,
} from "../support/bot-harness.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const rigs = botRigs();

describe("the bot's HTTP edge", () => {
  it("GET /healthz answers 200 without a single call to GitHub and without a log line", async () => {
    const rig = await rigs.start();
    const answer = await fetch(`${rig.bot.url}/healthz`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ok: true });
    expect(rig.github.calls).toEqual([]);
    expect(rig.deliveries()).toEqual([]);
  });

  it("a delivery signed with another secret is answered 401 and does nothing else: no API call, no check run", async () => {
    const rig = await rigs.start();
    const forged = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }), {
      secret: "not-the-webhook-secret-at-all",
    });
    const unsigned = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }), {
      signature: null,
    });
    expect(forged.statusCode).toBe(401);
    expect(unsigned.statusCode).toBe(401);
    expect(rig.github.calls).toEqual([]);
    expect(rig.github.state.checkRuns).toEqual([]);
    expect(rig.deliveries().map((l) => [l.status, l.outcome])).toEqual([
      [401, "bad-signature"],
      [401, "bad-signature"],
    ]);
    // Before the signature is verified nothing of the body is read into the log.
    expect(rig.deliveries()[0]!.repository).toBeUndefined();
  });

  it("a payload over GitHub's 25 MB cap is answered 413 before its signature is even checked", async () => {
    const rig = await rigs.start();
    const big = `{"padding":"${"x".repeat(25 * 1024 * 1024)}"}`;
    const record = await rig.deliver("pull_request", null, { rawBody: big });
    expect(record.statusCode).toBe(413);
    expect(rig.github.calls).toEqual([]);
    expect(rig.deliveries().at(-1)).toMatchObject({ status: 413, outcome: "too-large" });
  });

  it("an event no handler takes is acknowledged (202) and ignored; a body that is not JSON, and a signed payload that lacks its fields, are 400 with nothing posted", async () => {
    const rig = await rigs.start();
    const unknown = await rig.deliver("star", { action: "created", starred_at: null });
    const notJson = await rig.deliver("pull_request", null, { rawBody: "{not json" });
    const partial = pullRequestPayload({ headSha: HEAD }) as { pull_request: Record<string, unknown> };
    partial.pull_request.head = { sha: "not-a-sha" };
    const malformed = await rig.deliver("pull_request", partial);
    const noRun = checkRunPayload({
      action: "requested_action",
      checkRunId: 1,
      headSha: HEAD,
      sender: "mona",
    }) as Record<string, unknown>;
    delete noRun.check_run;
    const malformedClick = await rig.deliver("check_run", noRun);
    expect([unknown.statusCode, notJson.statusCode, malformed.statusCode, malformedClick.statusCode]).toEqual(
      [202, 400, 400, 400],
    );
    expect(JSON.parse(malformed.response).error).toContain("pull_request.head.sha");
    expect(
      rig.github.calls.filter(
        (c) => c.method !== "GET" && c.route !== "/app/installations/{installation_id}/access_tokens",
      ),
    ).toEqual([]);
    expect(rig.github.state.checkRuns).toEqual([]);
    rig.github.assertNoViolations();
  });

  it("a handler that fails answers 500 after logging it, so the delivery shows failed and can be redelivered", async () => {
    const rig = await rigs.start();
    rig.github.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/check-runs",
      status: 422,
      times: 1,
    });
    const record = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    expect(record.statusCode).toBe(500);
    expect(JSON.parse(record.response)).toEqual({ error: "the handler failed" });
    expect(rig.deliveries().at(-1)).toMatchObject({
      delivery: record.guid,
      event: "pull_request",
      action: "opened",
      repository: "octo-org/widgets",
      status: 500,
      outcome: "error",
    });
  });

  it("one JSON log line per delivery (delivery id, event, repository, outcome, ms) that never holds a token, the key, the secret or the body", async () => {
    const rig = await rigs.start();
    const record = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    expect(record.statusCode).toBe(200);
    const line = rig.deliveries().at(-1)!;
    expect(line).toMatchObject({
      kind: "delivery",
      delivery: record.guid,
      event: "pull_request",
      action: "opened",
      repository: "octo-org/widgets",
      status: 200,
      outcome: "check-queued",
    });
    expect(typeof line.ms).toBe("number");
    const text = rig.logText();
    const tokens = rig.github.state.appAuth!.tokens.map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    for (const secret of [...tokens, WEBHOOK_SECRET, ...appKeys().privateKey.split("\n").slice(1, 3)]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain("Update the README");
    expect(text).not.toContain('"pull_request":');
  });
});
