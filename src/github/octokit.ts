/**
 * The one Octokit factory: `@octokit/rest` with `@octokit/plugin-retry` and
 * `@octokit/plugin-throttling`, configured for a PR gate that must report its verdict.
 *
 * - Server errors (5xx) are retried up to {@link SERVER_ERROR_RETRIES} times with a growing backoff
 *   (n² × `retryBaseMs`: 1 s, 4 s, 9 s by default).
 * - Rate limits — primary (`x-ratelimit-remaining: 0`) and secondary ("secondary rate limit", 403 or
 *   429) — are retried at most {@link RATE_LIMIT_RETRIES} times, after the wait GitHub asks for
 *   (`retry-after` / `x-ratelimit-reset`). GitHub marks every 429 one way or the other
 *   (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api), so 429 belongs to
 *   the throttling plugin alone; leaving it to plugin-retry as well would multiply the attempts.
 * - Client errors (400, 401, 403, 404, 410, 422, 451) are never retried: a refused write is reported.
 *
 * GitHub Enterprise Server: pass the runner's `GITHUB_API_URL` (e.g. `https://ghe.example.com/api/v3`)
 * as `baseUrl`; {@link apiUrlFromEnv} reads it. Without it the client talks to `https://api.github.com`.
 *
 * Tests shorten every wait without touching timers: the environment variable
 * {@link BACKOFF_SECOND_MS_VARIABLE} (`EVIDENCE_GATE_BACKOFF_SECOND_MS`, read by {@link octokitFromEnv})
 * says how many milliseconds one second of backoff lasts (default 1000; the test harnesses set 1; below
 * 1000 the one-second spacing between writes is dropped too).
 */
import { retry } from "@octokit/plugin-retry";
import { type ThrottlingOptions, throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";

export const DEFAULT_API_URL = "https://api.github.com";
/** Attempts after the first for a 5xx (plugin-retry). */
export const SERVER_ERROR_RETRIES = 3;
/** Attempts after the first for a rate-limited request (plugin-throttling). */
export const RATE_LIMIT_RETRIES = 2;
/** Statuses never retried: the request itself is wrong or not allowed. 429 is the throttling plugin's. */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

/** Where Octokit's messages go (the action passes `@actions/core`'s `debug`/`info`/`warning`/`error`). */
export interface OctokitLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Waits between attempts. Production uses the defaults; tests shrink them to milliseconds. */
export interface OctokitTiming {
  /** Backoff unit for 5xx retries: the n-th retry waits n² × this. Default 1000 ms. */
  readonly retryBaseMs?: number;
  /** Milliseconds per second of `retry-after` / rate-limit reset. Default 1000. */
  readonly rateLimitUnitMs?: number;
  /**
   * Keep plugin-throttling's one-second spacing between write requests, which GitHub asks for
   * ("wait at least one second between each" POST/PATCH/PUT/DELETE — REST API best practices).
   * plugin-throttling also spaces writes that notify people (issue and PR comments) three seconds
   * apart. Default true; `false` drops both spacings (tests).
   */
  readonly spaceWrites?: boolean;
}

export interface CreateOctokitOptions {
  /** Installation token (`GITHUB_TOKEN`, an App token) or PAT. */
  readonly token: string;
  /** REST API root; default {@link DEFAULT_API_URL}. On GHES this is `GITHUB_API_URL`. */
  readonly baseUrl?: string;
  readonly log?: OctokitLog;
  readonly timing?: OctokitTiming;
  /** Default `evidence-gate`. */
  readonly userAgent?: string;
  /**
   * The longest rate-limit wait honoured, in GitHub's seconds (`retry-after`, or until `x-ratelimit-reset`):
   * a request GitHub asks to wait longer for is not retried — it fails with GitHub's answer, and the caller
   * decides (the bot's delivery fails and is redelivered later). Default: no cap (the action waits as told).
   */
  readonly maxRetryAfterS?: number;
}

/** The installation-token route `@octokit/auth-app` calls inside another request's auth hook. */
const INSTALLATION_TOKEN = /\/app\/installations\/(?:\d+|\{installation_id\})\/access_tokens$/;

/**
 * An installation token is requested from inside the request that needs it (`@octokit/auth-app`'s hook),
 * and that outer request is already retried by plugin-retry: retrying the token request as well nested the
 * two (4 × 4 attempts, ~158 s for an unreachable API instead of the 1 + 4 + 9 s documented; a new
 * operator's trial, issue 23). The token request is therefore tried once; the outer request's retries try
 * it again. Registered last, so its `before` hook runs before plugin-retry reads `request.retries`.
 */
function tokenRequestsRetriedOutside(octokit: Pick<Octokit, "hook">): void {
  octokit.hook.before("request", (options) => {
    if (options.method === "POST" && INSTALLATION_TOKEN.test(String(options.url ?? ""))) {
      options.request = { ...options.request, retries: 0 } as typeof options.request;
    }
  });
}

export const GateOctokit = Octokit.plugin(retry, throttling, tokenRequestsRetriedOutside);
export type GateOctokit = InstanceType<typeof GateOctokit>;

/**
 * The environment variable that scales every retry wait: milliseconds per second of backoff (a
 * non-negative integer; default 1000; below 1000 writes are no longer spaced one second apart). Meant for
 * tests of the bundled action, which set it to `1` so that "502 twice, then 201" takes milliseconds; the
 * attempts and their order stay exactly as in production.
 */
export const BACKOFF_SECOND_MS_VARIABLE = "EVIDENCE_GATE_BACKOFF_SECOND_MS";

/** The timing each client was made with, for retries done outside plugin-retry ({@link serverErrorBackoffMs}). */
const timings = new WeakMap<GateOctokit, OctokitTiming>();

/**
 * {@link OctokitTiming} from {@link BACKOFF_SECOND_MS_VARIABLE}: `{}` (production waits) when it is unset or
 * empty. Throws naming the variable when it is not a non-negative integer.
 */
export function timingFromEnv(env: Readonly<Record<string, string | undefined>>): OctokitTiming {
  const raw = env[BACKOFF_SECOND_MS_VARIABLE]?.trim();
  if (raw === undefined || raw === "") return {};
  if (!/^\d{1,7}$/.test(raw)) {
    throw new Error(
      `${BACKOFF_SECOND_MS_VARIABLE}=${JSON.stringify(raw)} is not a whole number of milliseconds (0–9999999): unset it for GitHub's own waits.`,
    );
  }
  const ms = Number(raw);
  // plugin-throttling's one-second spacing of writes cannot be scaled: below a real second it is dropped.
  return { retryBaseMs: ms, rateLimitUnitMs: ms, ...(ms < 1000 ? { spaceWrites: false } : {}) };
}

/** {@link createOctokit} with the API root ({@link apiUrlFromEnv}) and the waits ({@link timingFromEnv}) of `env`. */
export function octokitFromEnv(
  token: string,
  env: Readonly<Record<string, string | undefined>>,
): GateOctokit {
  return createOctokit({ token, baseUrl: apiUrlFromEnv(env), timing: timingFromEnv(env) });
}

/**
 * How long to wait before the `retry`-th repeat (1-based) of a request retried by hand, on `octokit`'s own
 * schedule: `retry² × retryBaseMs`, as plugin-retry waits for a 5xx. Used where a blind repeat could do a
 * write twice (creating a check run), so the caller looks first and repeats itself.
 */
export function serverErrorBackoffMs(octokit: GateOctokit, retry: number): number {
  return retry * retry * (timings.get(octokit)?.retryBaseMs ?? 1000);
}

/** `GITHUB_API_URL` when set and non-empty, else {@link DEFAULT_API_URL}. */
export function apiUrlFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  const value = env.GITHUB_API_URL?.trim();
  return value === undefined || value === "" ? DEFAULT_API_URL : value;
}

/**
 * A limiter group that schedules immediately, for `spaceWrites: false`. plugin-throttling only calls
 * `group.key(id).schedule(options, fn)` on its `write` and `notifications` groups; its defaults are
 * process-wide Bottleneck groups.
 */
const unspacedWrites = {
  key: () => ({ schedule: (_options: unknown, fn: () => Promise<unknown>) => fn() }),
} as unknown as NonNullable<ThrottlingOptions["write"]>;

/**
 * The log of a client made without one: Octokit's own lines are dropped except warnings. Its request log
 * prints every failed request as `GET /repos/… - 500 with id UNKNOWN in 2ms` on stderr — for a network
 * error too, which has no status — once per retry, before the caller's own message (which names the
 * request, the repository and the cause) is printed; those lines only confused the reader.
 */
const QUIET_REQUEST_LOG: OctokitLog = {
  debug: () => {},
  info: () => {},
  warn: (message) => console.warn(message),
  error: () => {},
};

/**
 * The constructor options of every {@link GateOctokit} — API root, user agent, log, and the retry and
 * throttling policy above — without credentials. {@link createOctokit} adds a token; the bot passes them to
 * `GateOctokit.defaults(…)` so that `@octokit/app`'s App (JWT) and installation clients retry and throttle the
 * same way (`src/bot/bot-app.ts`).
 */
export function gateOctokitOptions(options: Omit<CreateOctokitOptions, "token">) {
  const timing = options.timing ?? {};
  const log = options.log ?? QUIET_REQUEST_LOG;
  const onLimit =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      const cap = options.maxRetryAfterS;
      const tooLong = cap !== undefined && retryAfter > cap;
      const retrying = retryCount < RATE_LIMIT_RETRIES && !tooLong;
      const what = `GitHub ${kind} rate limit on ${request.method} ${request.url}`;
      const next = tooLong
        ? `not waiting the ${retryAfter}s GitHub asks for (more than ${cap}s): giving up`
        : retrying
          ? `retrying after ${retryAfter}s (retry ${retryCount + 1} of ${RATE_LIMIT_RETRIES})`
          : `giving up after ${RATE_LIMIT_RETRIES} retries`;
      log.warn(`${what}; ${next}`);
      return retrying;
    };
  return {
    baseUrl: (options.baseUrl ?? DEFAULT_API_URL).replace(/\/+$/, ""),
    userAgent: options.userAgent ?? "evidence-gate",
    log,
    retry: {
      retries: SERVER_ERROR_RETRIES,
      doNotRetry: DO_NOT_RETRY,
      retryAfterBaseValue: timing.retryBaseMs ?? 1000,
    },
    throttle: {
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary"),
      retryAfterBaseValue: timing.rateLimitUnitMs ?? 1000,
      ...(timing.spaceWrites === false ? { write: unspacedWrites, notifications: unspacedWrites } : {}),
    },
  };
}

export function createOctokit(options: CreateOctokitOptions): GateOctokit {
  const octokit = new GateOctokit({ auth: options.token, ...gateOctokitOptions(options) });
  timings.set(octokit, options.timing ?? {});
  return octokit;
}
