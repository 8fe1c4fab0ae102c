/**
 * The bot's configuration, read once from the environment at start (SPEC §2.3; docs/bot.md). Every value is
 * checked before the server listens: a missing or malformed one stops it with a message naming the
 * variable — never its value when the value is a secret.
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `APP_ID` | the GitHub App's id (a positive integer) | required |
 * | `PRIVATE_KEY` / `PRIVATE_KEY_PATH` | the App's private key (PEM), inline (`\n` escapes allowed) or in a file; exactly one | required |
 * | `WEBHOOK_SECRET` | the App's webhook secret | required (not by `bot --redeliver-failed`, which receives nothing) |
 * | `PORT` | TCP port (0–65535; 0 picks a free one) | `3000` |
 * | `HOST` | address to listen on | `127.0.0.1` (the container image sets `0.0.0.0`) |
 * | `CHECK_NAME` | the check run's name, and the ledger artifact's prefix (`<name>-ledger`) | `evidence-gate` |
 * | `WORKFLOW_FILE` | the pull request workflow's file name under `.github/workflows/` | `evidence-gate.yml` |
 * | `RESUME_WORKFLOW_FILE` | the resume workflow the buttons dispatch | `WORKFLOW_FILE` with `-resume` before `.yml` |
 * | `GITHUB_API_URL` | REST API root (GitHub Enterprise Server: `https://HOST/api/v3`) | `https://api.github.com` |
 * | `REDELIVER_EVERY` | redeliver the App's failed deliveries on this period (`15m`, `1h`; `off`: never) | `10m` |
 * | `REDELIVER_SINCE` | how far back `--redeliver-failed`, the timer and a self-redelivery look | `1h` |
 * | `RECONCILE_EVERY` | reconcile the App's own `queued` / `in_progress` check runs on this period (`off`: never) | `10m` |
 * | `RECONCILE_AFTER` | a check run is reconciled once it is older than this | `15m` |
 * | `SHUTDOWN_DEADLINE` | on SIGTERM / SIGINT, how long in-flight work may take before the bot exits (it exits a few seconds later, after asking GitHub to redeliver what was left) | `15s` |
 * | `EVIDENCE_GATE_BACKOFF_SECOND_MS` | tests only: milliseconds per second of retry backoff | `1000` |
 */
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import type { OctokitTiming } from "../github/octokit.js";
import { timingFromEnv } from "../github/octokit.js";

export interface BotConfig {
  readonly appId: number;
  /** PEM text (PKCS#1 or PKCS#8). A secret: never logged. */
  readonly privateKey: string;
  /**
   * A secret: never logged. `null` only for a command that receives no delivery and so verifies no signature
   * (`bot --redeliver-failed`, read with `receives: false`).
   */
  readonly webhookSecret: string | null;
  readonly port: number;
  readonly host: string;
  readonly checkName: string;
  /** A file name, e.g. `evidence-gate.yml`: `workflow_run` events of `.github/workflows/<it>` are tracked. */
  readonly workflowFile: string;
  /** A file name, e.g. `evidence-gate-resume.yml`: the workflow "Approve"/"Reject" dispatch. */
  readonly resumeWorkflowFile: string;
  readonly apiUrl: string;
  /** Milliseconds between redelivery sweeps inside the server (default 10 min); `null`: off (`off`). */
  readonly redeliverEveryMs: number | null;
  /** How far back a redelivery sweep looks, ms. */
  readonly redeliverSinceMs: number;
  /** Milliseconds between reconcile sweeps of the App's open check runs (default 10 min); `null`: off. */
  readonly reconcileEveryMs: number | null;
  /** A `queued` / `in_progress` check run older than this (ms, by `started_at`) is reconciled (default 15 min). */
  readonly reconcileAfterMs: number;
  /** On SIGTERM / SIGINT, ms in-flight work may take before the process exits (default 15 s: with the redelivery request after it, the process is gone inside 30 s). */
  readonly shutdownDeadlineMs: number;
  readonly timing: OctokitTiming;
}

/** A variable is missing or malformed; `variable` names it. */
export class BotConfigError extends Error {
  override readonly name = "BotConfigError";
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const WORKFLOW_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.ya?ml$/;
const PEM = /^-----BEGIN (?:RSA )?PRIVATE KEY-----\n[\s\S]+\n-----END (?:RSA )?PRIVATE KEY-----\s*$/;

/** `15m`, `1h`, `90s`, `2d` in milliseconds, or `null` when `text` is not one whole number and one unit. */
export function parseSpan(text: string): number | null {
  const m = /^(\d{1,6})(s|m|h|d)$/.exec(text.trim());
  if (m === null) return null;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"];
  return Number(m[1]) * unit;
}

function value(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

function required(env: Env, name: string, what: string): string {
  const v = value(env, name);
  if (v === undefined) throw new BotConfigError(name, `is not set: give ${what}`);
  return v;
}

function privateKeyOf(env: Env): string {
  const inline = value(env, "PRIVATE_KEY");
  const path = value(env, "PRIVATE_KEY_PATH");
  if (inline !== undefined && path !== undefined) {
    throw new BotConfigError("PRIVATE_KEY", "and PRIVATE_KEY_PATH are both set: give the key one way");
  }
  let key: string;
  let from: string;
  if (path !== undefined) {
    from = "PRIVATE_KEY_PATH";
    try {
      key = readFileSync(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new BotConfigError(from, `cannot read ${JSON.stringify(path)} (${code})`);
    }
  } else if (inline !== undefined) {
    from = "PRIVATE_KEY";
    // A key pasted into one line of an env file keeps its line breaks as `\n`.
    key = inline.replace(/\\n/g, "\n");
  } else {
    throw new BotConfigError(
      "PRIVATE_KEY",
      "neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set: give the App's private key (the .pem GitHub generated)",
    );
  }
  key = key.replace(/\r\n/g, "\n");
  if (!PEM.test(key.trim())) {
    throw new BotConfigError(
      from,
      "is not a PEM private key (expected -----BEGIN RSA PRIVATE KEY----- or -----BEGIN PRIVATE KEY-----)",
    );
  }
  // The PEM frame alone is not a key: parse it, so a body that is no key (or a key GitHub cannot sign with)
  // stops the bot here, not at its first delivery. GitHub Apps sign their JWTs with RS256: an RSA key.
  let type: string | undefined;
  try {
    type = createPrivateKey(key.trim()).asymmetricKeyType;
  } catch (error) {
    throw new BotConfigError(
      from,
      `holds no readable private key (${error instanceof Error ? error.message : String(error)}): give the .pem GitHub generated for the App`,
    );
  }
  if (type !== "rsa") {
    throw new BotConfigError(
      from,
      `holds a ${type ?? "non-RSA"} key; a GitHub App's key is RSA (GitHub signs its JWTs RS256): give the .pem GitHub generated for the App`,
    );
  }
  return `${key.trim()}\n`;
}

/** What the configuration is read for. */
export interface ReadBotConfigOptions {
  /**
   * `false`: for a command that receives no delivery (`bot --redeliver-failed` only asks GitHub to resend, with
   * the App's JWT): `WEBHOOK_SECRET` is then optional (operator trial: it was required and never used).
   * Default `true` (the server).
   */
  readonly receives?: boolean;
}

/**
 * Reads and checks the configuration.
 * @throws {BotConfigError} naming the first variable that is missing or malformed (never its secret value).
 */
export function readBotConfig(env: Env, o: ReadBotConfigOptions = {}): BotConfig {
  const appIdText = required(env, "APP_ID", "the GitHub App's id (App settings → About → App ID)");
  if (!/^[1-9]\d{0,11}$/.test(appIdText)) {
    throw new BotConfigError("APP_ID", `${JSON.stringify(appIdText)} is not a positive whole number`);
  }
  const privateKey = privateKeyOf(env);
  const webhookSecret =
    o.receives === false
      ? (value(env, "WEBHOOK_SECRET") ?? null)
      : required(env, "WEBHOOK_SECRET", "the App's webhook secret");
  const portText = value(env, "PORT") ?? "3000";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65_535) {
    throw new BotConfigError("PORT", `${JSON.stringify(portText)} is not a TCP port (0–65535)`);
  }
  const host = value(env, "HOST") ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) {
    throw new BotConfigError("HOST", `${JSON.stringify(host)} is not a host name or address`);
  }
  const checkName = value(env, "CHECK_NAME") ?? "evidence-gate";
  if (checkName.length > 100 || /[\r\n]/.test(checkName)) {
    throw new BotConfigError("CHECK_NAME", "must be one line of at most 100 characters");
  }
  const workflowFile = value(env, "WORKFLOW_FILE") ?? "evidence-gate.yml";
  if (!WORKFLOW_FILE.test(workflowFile)) {
    throw new BotConfigError(
      "WORKFLOW_FILE",
      `${JSON.stringify(workflowFile)} is not a workflow file name (e.g. evidence-gate.yml, no folder)`,
    );
  }
  const resumeWorkflowFile =
    value(env, "RESUME_WORKFLOW_FILE") ?? workflowFile.replace(/(\.ya?ml)$/, "-resume$1");
  if (!WORKFLOW_FILE.test(resumeWorkflowFile)) {
    throw new BotConfigError(
      "RESUME_WORKFLOW_FILE",
      `${JSON.stringify(resumeWorkflowFile)} is not a workflow file name (e.g. evidence-gate-resume.yml)`,
    );
  }
  const apiUrl = (value(env, "GITHUB_API_URL") ?? "https://api.github.com").replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(apiUrl)) {
    throw new BotConfigError("GITHUB_API_URL", `${JSON.stringify(apiUrl)} is not an http(s) URL`);
  }
  const span = (name: string, fallback: string, o: { readonly off?: boolean } = {}): number | null => {
    const text = value(env, name) ?? fallback;
    if (o.off === true && text.toLowerCase() === "off") return null;
    const ms = parseSpan(text);
    if (ms === null || ms === 0) {
      throw new BotConfigError(
        name,
        `${JSON.stringify(text)} is not a period such as 90s, 15m, 1h or 2d${o.off === true ? " (or off)" : ""}`,
      );
    }
    return ms;
  };
  let timing: OctokitTiming;
  try {
    timing = timingFromEnv(env);
  } catch (error) {
    throw new BotConfigError("EVIDENCE_GATE_BACKOFF_SECOND_MS", (error as Error).message);
  }
  return {
    appId: Number(appIdText),
    privateKey,
    webhookSecret,
    port: Number(portText),
    host,
    checkName,
    workflowFile,
    resumeWorkflowFile,
    apiUrl,
    redeliverEveryMs: span("REDELIVER_EVERY", "10m", { off: true }),
    redeliverSinceMs: span("REDELIVER_SINCE", "1h") ?? 3_600_000,
    reconcileEveryMs: span("RECONCILE_EVERY", "10m", { off: true }),
    reconcileAfterMs: span("RECONCILE_AFTER", "15m") ?? 900_000,
    shutdownDeadlineMs: span("SHUTDOWN_DEADLINE", "15s") ?? 15_000,
    timing,
  };
}
