/**
 * What every mode that calls a model gives the engine (SPEC §8, §9): the `claude` executable (found on PATH,
 * or installed at the pinned `claude-version` just before the first model call, never before a refusal),
 * each CLI's environment with the model credential and a fresh `HOME` (the operator's configuration in CI
 * is the base branch's only), and the fenced log echo (children cannot issue workflow commands).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import * as core from "@actions/core";
import { buildChildEnv } from "../proc/child-env.js";
import type { ActionInputs } from "./inputs.js";
import { ensureClaude } from "./install-claude.js";

export interface ClaudeSetupOptions {
  readonly inputs: ActionInputs;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly secrets: readonly string[];
  /** `RUNNER_TEMP`: fresh homes live under it. */
  readonly temp: string;
}

export class ClaudeSetup {
  #executable = "claude";
  readonly #options: ClaudeSetupOptions;
  readonly #homes: string;
  readonly #credential: Readonly<Record<string, string>>;

  constructor(options: ClaudeSetupOptions) {
    this.#options = options;
    this.#homes = join(options.temp, "evidence-gate", "homes");
    const credential: Record<string, string> = {};
    if (options.inputs.anthropicApiKey) credential.ANTHROPIC_API_KEY = options.inputs.anthropicApiKey;
    if (options.inputs.claudeCodeOauthToken)
      credential.CLAUDE_CODE_OAUTH_TOKEN = options.inputs.claudeCodeOauthToken;
    this.#credential = credential;
  }

  /** The `claude` executable: `claude` until {@link beforeFirstModelCall} found or installed one. */
  get executable(): string {
    return this.#executable;
  }

  /** Finds or installs the CLI; the engine calls it after its own checks. Returns a problem, or `null`. */
  readonly beforeFirstModelCall = async (): Promise<string | null> => {
    const found = await ensureClaude({
      version: this.#options.inputs.claudeVersion,
      env: this.#options.env,
      knownSecrets: this.#options.secrets,
      log: (l) => core.info(l),
    });
    if (found.kind === "failed") return found.message;
    this.#executable = found.path;
    return null;
  };

  /** One model CLI's environment: the credential and a fresh `HOME` named after `label`. */
  readonly modelEnv = (label: string): Readonly<Record<string, string>> => {
    mkdirSync(this.#homes, { recursive: true });
    return buildChildEnv({
      base: this.#options.env,
      child: { kind: "model", runtime: "claude" },
      knownSecrets: this.#options.secrets,
      set: {
        ...this.#credential,
        HOME: mkdtempSync(join(this.#homes, `${label.replace(/[^\w.-]/g, "_")}-`)),
      },
    });
  };

  /** Children's output, fenced from the runner's workflow-command parser (SPEC §9). */
  readonly echo = {
    write: (text: string) => void process.stdout.write(text),
    fenceWorkflowCommands: true,
  } as const;
}
