/**
 * A pull-request run's agent configuration (SPEC §9): read from the base commit, swapped into the checkout
 * just before the first model call (after the build-evidence refusal, so a refused run touches nothing),
 * swapped back after the run, and said in the log and the job summary with the base ref and SHA.
 * Mechanics: `agent-config-restore.ts` (the swap) and `src/github/base-agent-config.ts` (the reading).
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import type { IndexOverlay } from "../evidence/evidence-tree.js";
import { BaseAgentConfigError, readBaseAgentConfig } from "../github/base-agent-config.js";
import { isAgentConfigPath } from "../policy/agent-config-paths.js";
import type { WorkspacePort } from "../run/request.js";
import { type AgentConfigSwap, swapInBaseAgentConfig } from "./agent-config-restore.js";
import type { PullRequestRun } from "./running-mode.js";

const MAX_LISTED = 10;

const listed = (paths: readonly string[]): string =>
  paths.length <= MAX_LISTED
    ? paths.join(", ")
    : `${paths.slice(0, MAX_LISTED).join(", ")} and ${paths.length - MAX_LISTED} more`;

/**
 * One run's swap. Pass {@link prepare} to `engineOptions`; call {@link finish} once the engine returned
 * (or threw) and add its notes to the summary's.
 */
export class BaseAgentConfigRun {
  readonly #run: PullRequestRun;
  #swap: AgentConfigSwap | null = null;
  readonly #notes: string[] = [];

  constructor(run: PullRequestRun) {
    this.#run = run;
  }

  /** What `engineOptions` takes: the swap before the first model call, and the snapshot overlay. */
  get prepare(): {
    readonly beforeFirstModelCall: () => Promise<string | null>;
    readonly indexOverlay: IndexOverlay;
  } {
    return {
      beforeFirstModelCall: () => this.#swapIn(),
      indexOverlay: {
        covers: isAgentConfigPath,
        apply: async (scope) => {
          await this.#swap?.overlay.apply(scope);
        },
      },
    };
  }

  /** The workspace port of the run service: the swap, the overlay, and putting the PR's copies back. */
  get workspace(): WorkspacePort {
    return { ...this.prepare, finish: () => this.finish() };
  }

  /** Notes for the summary so far (the source of the configuration; after {@link finish}, what changed). */
  get notes(): readonly string[] {
    return this.#notes;
  }

  async #swapIn(): Promise<string | null> {
    const { event, inputs, workspace, temp } = this.#run;
    const where = `the base ref ${event.baseRef} (${event.baseSha.slice(0, 7)})`;
    const gitContext = { baseEnv: this.#run.env, knownSecrets: this.#run.secrets };
    try {
      const base = await readBaseAgentConfig({
        root: workspace,
        baseSha: event.baseSha,
        gitContext,
        fetchToken: inputs.githubToken,
        api: { octokit: this.#run.octokit, owner: event.owner, repo: event.repo },
      });
      if (base.gitNote !== undefined)
        this.#run.runner.info(`agent configuration: read through the API (${base.gitNote})`);
      const asideDir = mkdtempSync(join(temp, "evidence-gate", "pr-agent-config-"));
      this.#swap = await swapInBaseAgentConfig({ repoDir: workspace, asideDir, base, gitContext });
      const via = { git: "with git", "git-fetch": "with git (fetched)", api: "through the API" }[base.via];
      const swap = this.#swap;
      const note =
        swap.paths.length === 0
          ? `Agent configuration came from ${where}, read ${via}: neither the base nor this pull request has any (.claude/, .codex/, CLAUDE.md, CLAUDE.local.md, AGENTS.md, AGENTS.override.md, .mcp.json, .claude.json).`
          : `Agent configuration came from ${where}, read ${via}: ${swap.paths.length} path(s) in place for the run (${listed(swap.paths)}); ${swap.differing.length === 0 ? "this pull request's copies are the same" : `this pull request's copies differ at ${listed(swap.differing)} and were held aside during the run`}. The verify command ran with the base's copies; the evidence tree and patch.diff record this pull request's.${swap.notPlaced.length > 0 ? ` Not put in place: ${listed(swap.notPlaced)}.` : ""}`;
      this.#run.runner.info(note);
      this.#notes.push(note);
      return null;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const what =
        error instanceof BaseAgentConfigError
          ? detail
          : `the checkout's agent configuration could not be swapped for the base's: ${detail}`;
      return `${what} Nothing ran: no CLI starts with agent configuration that does not come from ${where}.`;
    }
  }

  /** Puts the pull request's copies back. Never throws: a failure is a warning and a note. */
  async finish(): Promise<void> {
    const swap = this.#swap;
    if (swap === null) return;
    this.#swap = null;
    try {
      const report = await swap.restore();
      if (report.changedByRun.length > 0) {
        const note = `The run changed agent configuration at ${listed(report.changedByRun)}: those versions stay in the working tree and the patch; this pull request's copies are kept in ${report.asideDir}.`;
        this.#run.runner.warning(note);
        this.#notes.push(note);
      }
    } catch (error) {
      const note = `could not put this pull request's agent configuration back after the run: ${error instanceof Error ? error.message : String(error)}`;
      this.#run.runner.warning(note);
      this.#notes.push(note);
    }
  }
}
