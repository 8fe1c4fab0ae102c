/**
 * One leg of a CLI run, the same for `auto`, `run` and `resume` (SPEC §2, §4): the runs folder, the
 * progress lines, what every leg passes the engine besides its own options, and how a finished leg is
 * reported.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { mintRunId, type RunId } from "../core/run-id.js";
import { unreachable } from "../core/unreachable.js";
import type { RunHooks } from "../engine/leg.js";
import type { Runtime } from "../engine/runtime-setup.js";
import type { Ledger } from "../ledger/ledger.js";
import { ProgressLines } from "../progress/progress-lines.js";
import type { CliSecrets } from "../run/credentials.js";
import { cliModelCredentials } from "../run/credentials.js";
import { localModelCli, type RunProxy } from "../run/model-cli.js";
import { openRunProxy, proxyEventLine } from "../run/model-proxy.js";
import type { RunOutcome, RunPorts, RunRequest } from "../run/request.js";
import { EXIT } from "./exit-codes.js";
import type { LegFlags } from "./local-setup.js";
import { type CliIo, refuseUsage, runsDirFor } from "./local-setup.js";
import type { RunReport } from "./terminal-report.js";

export interface CliLegOptions<Id extends string = string> {
  /** A fresh run's minted {@link RunId}, or the id `resume` was given. */
  readonly runId: Id;
  /** The repository (absolute). */
  readonly repoDir: string;
  readonly flags: LegFlags;
  readonly io: CliIo;
  readonly secrets: CliSecrets;
  readonly report: RunReport;
}

export class CliLeg<Id extends string = string> {
  readonly #o: CliLegOptions<Id>;
  readonly runsDir: string;
  readonly progress: ProgressLines;

  constructor(o: CliLegOptions<Id>) {
    this.#o = o;
    this.runsDir = runsDirFor(o.repoDir, o.flags.runsDir, o.io.cwd);
    this.progress = new ProgressLines({
      line: (t) => o.report.line(t),
      run: {
        runId: o.runId,
        repoDir: o.repoDir,
        runsDir: o.flags.runsDir,
        cwd: o.io.cwd,
        ...(o.flags.claudePath !== undefined ? { claudePath: o.flags.claudePath } : {}),
        ...(o.flags.codexPath !== undefined ? { codexPath: o.flags.codexPath } : {}),
      },
    });
  }

  /**
   * A fresh run's leg (`auto`, `run`): a new run id, and its check run created in progress saying `what`
   * is starting ({@link RunReport.startFresh}).
   *
   * @returns the leg, or the exit code after printing why nothing ran.
   */
  static async startFresh(
    o: Omit<CliLegOptions, "runId"> & { readonly what: string },
  ): Promise<CliLeg<RunId> | { readonly exit: number }> {
    const runId = mintRunId();
    const notStarted = await o.report.startFresh(runId, o.repoDir, o.what);
    return notStarted !== null ? { exit: notStarted } : new CliLeg({ ...o, runId });
  }

  get runId(): Id {
    return this.#o.runId;
  }

  /**
   * The ports every leg plugs into the run service alike: the model CLIs the flags name with the user's
   * own environment (`--claude-path`, `--codex-path`; each call gets its runtime's credential only), the
   * interrupt, the crash report (the check run completed `failure`), and the hooks printing the progress
   * lines and `run ID (DIR)` and updating the check run — with the leg's own `hooks` over them.
   */
  ports(
    hooks: RunHooks = {},
    signal: AbortSignal | undefined = this.#o.io.signal,
    proxy: RunProxy | undefined = undefined,
  ): RunPorts {
    const { flags, secrets, report } = this.#o;
    return {
      modelCli: localModelCli({
        modelEnv: secrets.modelEnv,
        ...(proxy !== undefined ? { proxy } : {}),
        ...(flags.claudePath !== undefined ? { claudePath: flags.claudePath } : {}),
        ...(flags.codexPath !== undefined ? { codexPath: flags.codexPath } : {}),
        ...(this.#o.io.modelCalls !== undefined ? { modelCalls: this.#o.io.modelCalls } : {}),
      }),
      hooks: {
        ...this.progress.hooks,
        onRunStarted: (id: string, dir: string) => report.line(`run ${id} (${dir})`),
        onProgress: (ledger: Ledger, kind: "plan" | "node") => report.progress(ledger, kind),
        ...hooks,
      },
      ...(signal !== undefined ? { signal } : {}),
      crashed: (error) => report.crashed(this.#o.runId, error),
    };
  }

  /** The request fields every leg fills alike: where it runs and what its children start from. */
  get requestBase(): Pick<
    RunRequest,
    "repoDir" | "runsDir" | "commit" | "surface" | "codexConfig" | "baseEnv" | "knownSecrets" | "timeout"
  > {
    const { flags, io, secrets, repoDir } = this.#o;
    return {
      repoDir,
      runsDir: this.runsDir,
      commit: flags.commit,
      surface: "cli",
      codexConfig: flags.codexConfig,
      baseEnv: io.env,
      knownSecrets: secrets.knownSecrets,
      ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
    };
  }

  /**
   * Reports what a fresh run's engine answered and gives the exit code (SPEC §2): a usage error or a graph
   * that does not load is 64 (the operator's input to fix; nothing ran), a build-evidence refusal 3, a
   * finished run by its outcome ({@link finished}).
   */
  async conclude(outcome: Exclude<RunOutcome, { kind: "nothing_to_retry" }>): Promise<number> {
    const { report } = this.#o;
    switch (outcome.kind) {
      case "usage_error":
      case "invalid_graph":
        await report.endedEarly({ kind: "usage-error", message: outcome.message });
        return EXIT.usage;
      case "refused":
        await report.endedEarly({ kind: "refused", reason: "build-evidence", message: outcome.message });
        return EXIT.refused;
      case "setup_failed":
        // The CLI installs nothing (the executable comes from PATH or a flag): kept for the action's ports.
        await report.endedEarly({ kind: "setup-failed", message: outcome.message });
        return EXIT.failed;
      case "finished":
        // The goal loop's cycles (`--max-cycles` above 1) are in the last run's ledger (`goalLoop`).
        return this.finished(outcome);
      default:
        return unreachable(outcome);
    }
  }

  /**
   * The leg finished: {@link RunReport.finished}, then how to continue the run when it paused or was
   * interrupted — only when `resume` can (the run directory holds a `state.json` and a `graph.json`; a
   * `verify` run has neither, and an `auto` run interrupted while planning has no graph yet).
   */
  finished(result: { readonly ledger: Ledger; readonly ledgerPath: string }): Promise<number> {
    const dir = join(this.runsDir, this.#o.runId);
    const outcome = result.ledger.conclusion?.outcome;
    const planned = existsSync(join(dir, "graph.json"));
    const resumable = planned && existsSync(join(dir, "state.json"));
    const next = resumable
      ? this.progress.resumeLines(outcome)
      : outcome === "cancelled" && !planned && result.ledger.mode === "auto"
        ? ["interrupted while planning: nothing ran, so there is nothing to resume; run the command again"]
        : [];
    return this.#o.report.finished(this.#o.runId, result, { commit: this.#o.flags.commit, next });
  }
}

/**
 * Runs `body` with the CLI run's key proxy for `runtime` (`model-proxy.ts`), closing it after. Settings it
 * cannot proxy are a usage error (printed; exit 64, nothing ran).
 */
export async function withLocalProxy(
  io: CliIo,
  o: {
    readonly command: string;
    readonly runtime: Runtime;
    readonly codexConfig: readonly string[];
    readonly say: (line: string) => void;
  },
  body: (proxy: RunProxy | undefined) => Promise<number>,
): Promise<number> {
  const opened = await openRunProxy({
    runtime: o.runtime,
    credentials: cliModelCredentials(io.env, o.runtime),
    env: io.env,
    codexConfig: o.codexConfig,
    readUserCodexConfig: true,
    log: (event) => io.err.write(`${proxyEventLine(event)}\n`),
    say: o.say,
  });
  if (opened.kind === "refused") return refuseUsage(io, o.command, [opened.message]) ?? EXIT.usage;
  try {
    return await body(opened.proxy);
  } finally {
    await opened.proxy?.proxy.close();
  }
}
