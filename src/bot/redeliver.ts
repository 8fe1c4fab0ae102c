/**
 * Redelivery of the App's failed webhook deliveries (SPEC §2.3). GitHub does not redeliver by itself
 * ("GitHub does not automatically redeliver failed deliveries",
 * https://docs.github.com/webhooks/testing-and-troubleshooting-webhooks/redelivering-webhooks), so the bot asks:
 * `GET /app/hook/deliveries` (newest first, cursor pages of 100) back to `since`, and for every event
 * (`guid`) none of whose deliveries succeeded, `POST /app/hook/deliveries/{delivery_id}/attempts` on its
 * newest delivery. Both calls authenticate as the App (its JWT), not as an installation.
 *
 * Left alone: an event whose newest delivery was answered 400, 413 or 415 — the payload itself was refused
 * (malformed, over 25 MB), and sending it again cannot change that. Every handler is idempotent, so an event
 * redelivered twice (two sweeps, two replicas) writes what one delivery would.
 */
import type { GateOctokit } from "../github/octokit.js";

/** A failed delivery whose answer says the payload itself was refused: not redelivered. */
const REFUSED_PAYLOAD = new Set([400, 413, 415]);
/** At most this many redeliveries per sweep (GitHub's secondary limits: content-creating requests). */
export const MAX_REDELIVERIES_PER_SWEEP = 100;

export interface RedeliverySweep {
  /** Deliveries read (inside the window). */
  readonly listed: number;
  /** Events none of whose deliveries succeeded. */
  readonly failed: number;
  /** The delivery ids redelivered. */
  readonly redelivered: readonly number[];
  /** Failed events left alone (payload refused, or over the per-sweep limit), with why. */
  readonly skipped: readonly string[];
}

interface Delivery {
  readonly id: number;
  readonly guid: string;
  readonly delivered_at: string;
  readonly status_code: number;
  readonly event: string;
}

/**
 * One sweep over the deliveries of the last `sinceMs` milliseconds.
 * @param octokit the App's own client (JWT), e.g. `app.octokit`.
 * @throws the client's error when GitHub refuses the listing; a refused redelivery is counted as skipped.
 */
export async function redeliverFailed(
  octokit: GateOctokit,
  o: { readonly sinceMs: number; readonly now?: Date },
): Promise<RedeliverySweep> {
  const cutoff = (o.now ?? new Date()).getTime() - o.sinceMs;
  const byGuid = new Map<string, Delivery[]>();
  let listed = 0;
  pages: for await (const page of octokit.paginate.iterator(octokit.rest.apps.listWebhookDeliveries, {
    per_page: 100,
  })) {
    for (const d of page.data as readonly Delivery[]) {
      if (Date.parse(d.delivered_at) < cutoff) break pages;
      listed += 1;
      byGuid.set(d.guid, [...(byGuid.get(d.guid) ?? []), d]);
    }
  }
  const redelivered: number[] = [];
  const skipped: string[] = [];
  let failed = 0;
  for (const [guid, deliveries] of byGuid) {
    if (deliveries.some((d) => d.status_code >= 200 && d.status_code < 300)) continue;
    failed += 1;
    const newest = [...deliveries].sort((a, b) => b.id - a.id)[0]!;
    if (REFUSED_PAYLOAD.has(newest.status_code)) {
      skipped.push(
        `${guid} (${newest.event}): answered ${newest.status_code}, the payload itself was refused`,
      );
      continue;
    }
    if (redelivered.length >= MAX_REDELIVERIES_PER_SWEEP) {
      skipped.push(`${guid} (${newest.event}): over ${MAX_REDELIVERIES_PER_SWEEP} redeliveries this sweep`);
      continue;
    }
    try {
      await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: newest.id });
      redelivered.push(newest.id);
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      skipped.push(
        `${guid} (${newest.event}): redelivery refused (${typeof status === "number" ? status : "no answer"})`,
      );
    }
  }
  return { listed, failed, redelivered, skipped };
}

/** How many deliveries of one event (GUID) the App asks for at most, the first included. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** What {@link redeliverDelivery} did. */
export type SelfRedelivery =
  | { readonly kind: "redelivered"; readonly deliveryId: number; readonly attempt: number }
  | { readonly kind: "gave-up"; readonly attempts: number }
  | { readonly kind: "not-found" };

/**
 * Asks GitHub to redeliver the event `guid`, whose work failed after the bot answered it `202` (so GitHub
 * records that delivery as OK and {@link redeliverFailed} would never pick it): the newest delivery of that
 * GUID among the App's deliveries of the last `sinceMs` is redelivered, unless the event was already
 * delivered {@link MAX_DELIVERY_ATTEMPTS} times — GitHub's delivery log is the count, so any replica may
 * ask, and the count holds across replicas and restarts. Authenticates as the App (JWT).
 * @throws the client's error when GitHub refuses the listing or the redelivery.
 */
export async function redeliverDelivery(
  octokit: GateOctokit,
  o: { readonly guid: string; readonly sinceMs: number; readonly now?: Date },
): Promise<SelfRedelivery> {
  const cutoff = (o.now ?? new Date()).getTime() - o.sinceMs;
  const mine: Delivery[] = [];
  pages: for await (const page of octokit.paginate.iterator(octokit.rest.apps.listWebhookDeliveries, {
    per_page: 100,
  })) {
    for (const d of page.data as readonly Delivery[]) {
      if (Date.parse(d.delivered_at) < cutoff) break pages;
      if (d.guid === o.guid) mine.push(d);
    }
  }
  if (mine.length === 0) return { kind: "not-found" };
  if (mine.length >= MAX_DELIVERY_ATTEMPTS) return { kind: "gave-up", attempts: mine.length };
  const newest = [...mine].sort((a, b) => b.id - a.id)[0]!;
  await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: newest.id });
  return { kind: "redelivered", deliveryId: newest.id, attempt: mine.length + 1 };
}
