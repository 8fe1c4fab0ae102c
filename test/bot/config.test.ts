/**
 * The bot's configuration (SPEC §2.3; docs/bot.md): read once at start; a missing or malformed variable
 * stops it with a message naming the variable, and never quoting a secret.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BotConfigError, readBotConfig } from "../../src/bot/config.js";
import { appKeys, botEnv } from "../support/bot-harness.js";

const base = () => botEnv({ url: "http://127.0.0.1:1" });

function refusal(env: Record<string, string | undefined>): BotConfigError {
  try {
    readBotConfig(env);
  } catch (error) {
    if (error instanceof BotConfigError) return error;
    throw error;
  }
  throw new Error("expected a BotConfigError");
}

describe("readBotConfig", () => {
  it("takes the documented defaults", () => {
    const config = readBotConfig({ ...base(), PORT: undefined, HOST: undefined, GITHUB_API_URL: undefined });
    expect(config).toMatchObject({
      appId: 424_242,
      port: 3000,
      host: "127.0.0.1",
      checkName: "evidence-gate",
      workflowFile: "evidence-gate.yml",
      resumeWorkflowFile: "evidence-gate-resume.yml",
      apiUrl: "https://api.github.com",
      redeliverEveryMs: 600_000,
      redeliverSinceMs: 3_600_000,
      reconcileEveryMs: 600_000,
      reconcileAfterMs: 900_000,
      shutdownDeadlineMs: 15_000,
    });
  });

  it("reads the key from PRIVATE_KEY_PATH, or from PRIVATE_KEY with \\n escapes; WORKFLOW_FILE names the resume counterpart; GHES API roots are kept", () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-bot-config-"));
    writeFileSync(join(dir, "app.pem"), appKeys().privateKey);
    const fromFile = readBotConfig({
      ...base(),
      PRIVATE_KEY: undefined,
      PRIVATE_KEY_PATH: join(dir, "app.pem"),
    });
    const escaped = readBotConfig({
      ...base(),
      PRIVATE_KEY: appKeys().privateKey.trim().replace(/\n/g, "\\n"),
    });
    expect(fromFile.privateKey).toBe(escaped.privateKey);
    const ghes = readBotConfig({
      ...base(),
      WORKFLOW_FILE: "gate.yaml",
      GITHUB_API_URL: "https://ghe.example.com/api/v3/",
    });
    expect(ghes).toMatchObject({
      resumeWorkflowFile: "gate-resume.yaml",
      apiUrl: "https://ghe.example.com/api/v3",
    });
  });

  it.each([
    ["APP_ID", { APP_ID: undefined }, "APP_ID: is not set"],
    ["APP_ID", { APP_ID: "12ab" }, 'APP_ID: "12ab" is not a positive whole number'],
    ["PRIVATE_KEY", { PRIVATE_KEY: undefined }, "neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set"],
    ["PRIVATE_KEY", { PRIVATE_KEY: "hunter2-not-a-key" }, "PRIVATE_KEY: is not a PEM private key"],
    [
      "PRIVATE_KEY",
      { PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nZ2FyYmFnZQ==\n-----END RSA PRIVATE KEY-----" },
      "PRIVATE_KEY: holds no readable private key",
    ],
    [
      "PRIVATE_KEY",
      {
        PRIVATE_KEY: generateKeyPairSync("ec", { namedCurve: "P-256" })
          .privateKey.export({ type: "pkcs8", format: "pem" })
          .toString(),
      },
      "PRIVATE_KEY: holds a ec key; a GitHub App's key is RSA",
    ],
    ["PRIVATE_KEY_PATH", { PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: "/nonexistent/app.pem" }, "cannot read"],
    ["PRIVATE_KEY", { PRIVATE_KEY_PATH: "/x.pem" }, "both set"],
    ["WEBHOOK_SECRET", { WEBHOOK_SECRET: "" }, "WEBHOOK_SECRET: is not set"],
    ["PORT", { PORT: "70000" }, 'PORT: "70000" is not a TCP port'],
    ["HOST", { HOST: "a b" }, "HOST:"],
    ["WORKFLOW_FILE", { WORKFLOW_FILE: ".github/workflows/x.yml" }, "no folder"],
    ["GITHUB_API_URL", { GITHUB_API_URL: "ftp://x" }, "is not an http(s) URL"],
    ["REDELIVER_EVERY", { REDELIVER_EVERY: "often" }, "is not a period"],
    ["RECONCILE_EVERY", { RECONCILE_EVERY: "0s" }, "(or off)"],
    ["RECONCILE_AFTER", { RECONCILE_AFTER: "off" }, "is not a period"],
    ["SHUTDOWN_DEADLINE", { SHUTDOWN_DEADLINE: "soon" }, "is not a period"],
    [
      "EVIDENCE_GATE_BACKOFF_SECOND_MS",
      { EVIDENCE_GATE_BACKOFF_SECOND_MS: "-1" },
      "EVIDENCE_GATE_BACKOFF_SECOND_MS",
    ],
  ])("%s: a missing or malformed value is refused naming it", (variable, change, message) => {
    const error = refusal({ ...base(), ...change });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain("hunter2");
  });
});
