/**
 * One leg of a CLI run, the same for `auto`, `run` and `resume` (SPEC §2, §4): the runs folder, the
 * progress lines, what every leg passes the engine besides its own options, and how a finished leg is
 * reported.
 */

import { mintRunId, type RunId } from "../core/run-id.js";
import type { RunHooks } from "../engine/hand-run.js";
import type { Ledger } from "../ledger/ledger.js";
import { type CliIo, type CliSecrets, runsDirFor } from "./cli-context.js";
import { ProgressLines } from "./progress-lines.js";
import type { RunReport } from "./report-run.js";
import type { LegFlags } from "./shared-flags.js";

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
      run: { runId: o.runId, repoDir: o.repoDir, runsDir: o.flags.runsDir, cwd: o.io.cwd },
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
   * The engine options every leg passes alike — the runs folder, `--commit`, the claude and codex
   * executables, the `--codex-config` pairs (the engine refuses them on a claude run), the model
   * environment, the known secrets, the interrupt signal, and the hooks printing the progress lines and
   * `run ID (DIR)` and updating the check run — with the leg's `own` options and `hooks` over them.
   */
  engineOptions<T extends object>(own: T, hooks: RunHooks = {}) {
    const { flags, io, secrets, report } = this.#o;
    return {
      runsDir: this.runsDir,
      commit: flags.commit,
      surface: "cli" as const,
      claudeExecutable: flags.claudePath ?? "claude",
      codexExecutable: flags.codexPath ?? "codex",
      ...(flags.codexConfig.length > 0 ? { codexConfig: flags.codexConfig } : {}),
      modelEnv: secrets.modelEnv,
      baseEnv: io.env,
      knownSecrets: secrets.knownSecrets,
      ...(io.signal ? { signal: io.signal } : {}),
      hooks: {
        ...this.progress.hooks,
        onRunStarted: (id: string, dir: string) => report.line(`run ${id} (${dir})`),
        onProgress: (ledger: Ledger, kind: "plan" | "node") => report.progress(ledger, kind),
        ...hooks,
      },
      ...own,
    };
  }

  /** The leg finished: {@link RunReport.finished}, then how to continue the run when its outcome is paused. */
  finished(result: { readonly ledger: Ledger; readonly ledgerPath: string }): Promise<number> {
    return this.#o.report.finished(this.#o.runId, result, {
      commit: this.#o.flags.commit,
      next: this.progress.resumeLines(result.ledger.conclusion?.outcome),
    });
  }
}
