/**
 * The GitHub App behind `evidence-gate bot`: `@octokit/app` for the App's JWT and installation tokens,
 * `@octokit/webhooks` (the App's `webhooks`) for signature verification and event routing.
 *
 * Every client — the App's own (JWT: deliveries, redelivery) and each installation's (a token per
 * `payload.installation.id`, cached by `@octokit/auth-app` until it nears expiry) — is a {@link GateOctokit}
 * made with `gateOctokitOptions`: the same API root (`GITHUB_API_URL`, for GitHub Enterprise Server), and
 * the same retries of 5xx and waits on primary and secondary rate limits as the action's client.
 *
 * Routing (SPEC §2.3): `pull_request` → `pull-request-handler.ts`; `workflow_run` → `workflow-run-handler.ts`;
 * `check_run.rerequested` and `check_suite.rerequested` → `rerun-handler.ts`; `check_run.requested_action` →
 * `requested-action-handler.ts`. Any other event is acknowledged and ignored.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { App } from "@octokit/app";
import type { EmitterWebhookEventName } from "@octokit/webhooks";
import { GateOctokit, gateOctokitOptions } from "../github/octokit.js";
import type { BotConfig } from "./config.js";
import type { BotLog } from "./delivery-log.js";
import type { HandlerContext, HandlerResult } from "./handler.js";
import { onPullRequest } from "./pull-request-handler.js";
import { onRequestedAction } from "./requested-action-handler.js";
import { onCheckRunRerequested, onCheckSuiteRerequested } from "./rerun-handler.js";
import { onWorkflowRun } from "./workflow-run-handler.js";

type Handler = (ctx: HandlerContext, payload: unknown) => Promise<HandlerResult>;

/** Which handler takes which event (`event` or `event.action`). */
export const ROUTES: ReadonlyArray<readonly [EmitterWebhookEventName, Handler]> = [
  ["pull_request", onPullRequest],
  ["workflow_run", onWorkflowRun],
  ["check_run.rerequested", onCheckRunRerequested],
  ["check_run.requested_action", onRequestedAction],
  ["check_suite.rerequested", onCheckSuiteRerequested],
];

/** The App, and what its handlers answered per payload (read by the HTTP layer for the log line). */
export interface BotApp {
  readonly app: App<{ Octokit: typeof GateOctokit }>;
  /** The App's own client (JWT). */
  readonly appOctokit: GateOctokit;
  /**
   * Verifies nothing: runs the handlers for an already verified delivery.
   * @returns what the handler did, or `null` when no handler takes the event.
   * @throws the handler's error (a `MalformedPayloadError` carries `status: 400`).
   */
  receive(delivery: {
    readonly id: string;
    readonly name: string;
    readonly payload: object;
  }): Promise<HandlerResult | null>;
  /** `@octokit/webhooks`' HMAC-SHA256 check of `X-Hub-Signature-256` against the raw body. */
  verify(body: string, signature: string): Promise<boolean>;
  /** Whether a handler takes event `name` with `action` ({@link ROUTES}). */
  handles(name: string, action: string | null): boolean;
}

/**
 * The longest `Retry-After` (or primary-limit reset) the bot waits out, seconds: GitHub's secondary limits ask
 * for about a minute. A longer wait — an hour until a primary limit resets — would hold the delivery's work, and
 * every later delivery about the same commit, in memory that long (operator trial: `Retry-After: 3600` held a
 * delivery an hour). The request fails instead; the delivery's work fails, the App asks GitHub to redeliver it
 * (`redeliver.ts`), and a check run still open after that is settled by the reconcile sweep. The answer to
 * GitHub is never held by it: a delivery is answered before its work makes any API call (`http-server.ts`).
 */
export const MAX_RETRY_AFTER_S = 60;

/** {@link ROUTES} as `event` / `event.action` names. */
const ROUTED = new Set<string>(ROUTES.map(([name]) => name));

/**
 * The Octokit class of the App's clients: `gateOctokitOptions`, with plugin-throttling's limiter groups keyed
 * per installation (`throttle.id`), so each installation has its own write queue — writes one second apart
 * per installation token, as GitHub asks ("wait at least one second between each" write, REST API best
 * practices), not per process — and the App's own client (JWT) another.
 */
function perInstallationOctokit(options: ReturnType<typeof gateOctokitOptions>): typeof GateOctokit {
  const Base = GateOctokit.defaults(options);
  return class InstallationOctokit extends Base {
    constructor(...args: ConstructorParameters<typeof Base>) {
      const given = (args[0] ?? {}) as { auth?: { installationId?: unknown }; throttle?: object };
      const installation = given.auth?.installationId;
      super({
        ...given,
        throttle: {
          ...options.throttle,
          ...given.throttle,
          id: typeof installation === "number" ? `installation-${installation}` : "app",
        },
      } as ConstructorParameters<typeof Base>[0]);
    }
  } as unknown as typeof GateOctokit;
}

export function createBotApp(config: BotConfig, log: BotLog): BotApp {
  const octokitLog = {
    debug: () => {},
    info: () => {},
    warn: (message: string) => log.note("octokit", { level: "warn", message }),
    error: (message: string) => log.note("octokit", { level: "error", message }),
  };
  const Octokit = perInstallationOctokit(
    gateOctokitOptions({
      baseUrl: config.apiUrl,
      timing: config.timing,
      log: octokitLog,
      userAgent: "evidence-gate-bot",
      maxRetryAfterS: MAX_RETRY_AFTER_S,
    }),
  );
  // Without a webhook secret (`bot --redeliver-failed`, which receives nothing) the App has no `webhooks`:
  // `verify` and `receive` then throw, and no handler is registered.
  const secret = config.webhookSecret;
  const app = new App({
    appId: config.appId,
    privateKey: config.privateKey,
    ...(secret === null ? {} : { webhooks: { secret } }),
    Octokit,
    log: octokitLog,
  });
  const results = new WeakMap<object, HandlerResult>();
  const scale = (config.timing.retryBaseMs ?? 1000) / 1000;
  for (const [name, handler] of secret === null ? [] : ROUTES) {
    app.webhooks.on(name, async (event) => {
      const ctx: HandlerContext = {
        config,
        octokit: event.octokit as unknown as GateOctokit,
        deliveryId: event.id,
        sleep: (ms) => sleep(Math.round(ms * scale)),
      };
      results.set(event.payload, await handler(ctx, event.payload));
    });
  }
  return {
    app: app as unknown as BotApp["app"],
    appOctokit: app.octokit as unknown as GateOctokit,
    async receive(delivery) {
      try {
        await app.webhooks.receive({
          id: delivery.id,
          name: delivery.name as EmitterWebhookEventName,
          payload: delivery.payload,
        } as Parameters<typeof app.webhooks.receive>[0]);
      } catch (error) {
        // One handler per event: unwrap @octokit/webhooks' AggregateError to the handler's own error.
        if (error instanceof AggregateError && error.errors.length === 1) throw error.errors[0];
        throw error;
      }
      return results.get(delivery.payload) ?? null;
    },
    verify: (body, signature) => app.webhooks.verify(body, signature),
    handles: (name, action) => ROUTED.has(name) || (action !== null && ROUTED.has(`${name}.${action}`)),
  };
}
