/**
 * GitHub's side of webhooks, for the bot's tests: the App's webhook (a URL and a secret), deliveries sent
 * to it as GitHub sends them — `POST` with `X-GitHub-Event`, `X-GitHub-Delivery` (a GUID),
 * `X-GitHub-Hook-Installation-Target-ID`, `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>` and a JSON
 * body — and the delivery log the App reads back (`GET /app/hook/deliveries`) and asks to redeliver
 * (`POST /app/hook/deliveries/{id}/attempts`: the same GUID and body again, `redelivery: true`).
 * (https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries,
 * https://docs.github.com/rest/apps/webhooks)
 */
import { createHmac, randomUUID } from "node:crypto";

export interface WebhookTarget {
  readonly url: string;
  readonly secret: string;
}

/** One delivery attempt, as GitHub records it. */
export interface DeliveryRecord {
  readonly id: number;
  readonly guid: string;
  readonly deliveredAt: string;
  readonly redelivery: boolean;
  /** Seconds. */
  readonly duration: number;
  /** `OK`, `Invalid HTTP Response: 500`, `failed to connect`. */
  readonly status: string;
  /** 0 when no answer came. */
  readonly statusCode: number;
  readonly event: string;
  readonly action: string | null;
  readonly installationId: number | null;
  readonly repositoryId: number | null;
  readonly body: string;
  /** The bot's answer (its JSON), for assertions. */
  readonly response: string;
}

export interface DeliverInput {
  readonly event: string;
  readonly payload: unknown;
  /** Default: a fresh GUID. */
  readonly guid?: string;
  /** Sign with this secret instead (a forged delivery). */
  readonly secret?: string;
  /** Send this signature header instead (or `null` for none). */
  readonly signature?: string | null;
  /** Send this body text instead of the payload's JSON (signed as given). */
  readonly rawBody?: string;
  /** To another URL than the hook's (a second replica). */
  readonly url?: string;
}

/** `sha256=<hex>` of `body` with `secret`, as GitHub signs. */
export function signPayload(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export class WebhookDeliveries {
  target: WebhookTarget | null = null;
  /**
   * How long a delivery waits for its answer before it is recorded "timed out", ms: GitHub's 10 s
   * (GitHub docs, "Handling webhook deliveries"). A test that scales every wait of the bot scales this too.
   */
  timeoutMs = 10_000;
  readonly records: DeliveryRecord[] = [];
  readonly #pending = new Set<Promise<unknown>>();
  #nextId = 90_000_001;

  /** Sends one delivery to the hook (or `input.url`) and records it; resolves once answered. */
  deliver(input: DeliverInput): Promise<DeliveryRecord> {
    const target = this.#target();
    const body = input.rawBody ?? JSON.stringify(input.payload);
    const signature =
      input.signature === undefined ? signPayload(input.secret ?? target.secret, body) : input.signature;
    return this.#send({
      url: input.url ?? target.url,
      guid: input.guid ?? randomUUID(),
      event: input.event,
      body,
      signature,
      redelivery: false,
    });
  }

  /** `POST /app/hook/deliveries/{id}/attempts`: sends delivery `id`'s body again; `false` when unknown. */
  redeliver(id: number): boolean {
    const record = this.records.find((r) => r.id === id);
    if (record === undefined) return false;
    const target = this.#target();
    const sending = this.#send({
      url: target.url,
      guid: record.guid,
      event: record.event,
      body: record.body,
      signature: signPayload(target.secret, record.body),
      redelivery: true,
    });
    this.#pending.add(sending);
    void sending.finally(() => this.#pending.delete(sending));
    return true;
  }

  /** Resolves once every redelivery started so far was answered. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #target(): WebhookTarget {
    if (this.target === null)
      throw new Error("github-server: set state.webhooks.target = { url, secret } first");
    return this.target;
  }

  async #send(o: {
    url: string;
    guid: string;
    event: string;
    body: string;
    signature: string | null;
    redelivery: boolean;
  }): Promise<DeliveryRecord> {
    const started = performance.now();
    let payload: { action?: unknown; installation?: { id?: unknown }; repository?: { id?: unknown } } = {};
    try {
      payload = JSON.parse(o.body) as typeof payload;
    } catch {
      // a malformed body on purpose
    }
    let statusCode = 0;
    let status = "failed to connect";
    let response = "";
    try {
      const answer = await fetch(o.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/test",
          "x-github-event": o.event,
          "x-github-delivery": o.guid,
          "x-github-hook-installation-target-type": "integration",
          ...(o.signature === null ? {} : { "x-hub-signature-256": o.signature }),
        },
        body: o.body,
        // GitHub gives up on a delivery after 10 seconds (`timeoutMs`).
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      statusCode = answer.status;
      response = await answer.text();
      status = answer.ok ? "OK" : `Invalid HTTP Response: ${answer.status}`;
    } catch (error) {
      status = error instanceof Error && error.name === "TimeoutError" ? "timed out" : "failed to connect";
    }
    const record: DeliveryRecord = {
      id: this.#nextId++,
      guid: o.guid,
      deliveredAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      redelivery: o.redelivery,
      duration: Math.round(performance.now() - started) / 1000,
      status,
      statusCode,
      event: o.event,
      action: typeof payload.action === "string" ? payload.action : null,
      installationId: typeof payload.installation?.id === "number" ? payload.installation.id : null,
      repositoryId: typeof payload.repository?.id === "number" ? payload.repository.id : null,
      body: o.body,
      response,
    };
    this.records.push(record);
    return record;
  }
}
