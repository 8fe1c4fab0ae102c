/**
 * The check run's lifecycle for one run (SPEC §6; house style §8 "cannot end half-done"): created
 * `in_progress` before planning, updated with the plan and as nodes finish (throttled), completed with
 * the ledger's conclusion — or, on any path that ends early (refusal, usage error, crash), completed with
 * what happened. A failed write is thrown to the caller, never swallowed.
 */
import { CHECK_RUN_TEXT_MAX_BYTES, truncateUtf8, utf8Bytes } from "../ledger/byte-budget.js";
import type { Ledger } from "../ledger/ledger.js";
import { type FullLedgerLinks, renderCheckRunOutput, trimmedNotice } from "../ledger/render-markdown.js";
import type {
  CheckRunAnnotation,
  CheckRunClient,
  CheckRunConclusion,
  CheckRunRef,
  ExistingCheckRun,
} from "./check-run.js";

export interface CheckRunReporterOptions {
  readonly client: CheckRunClient;
  readonly name: string;
  readonly headSha: string;
  /** Link to the workflow run (job summary and artifacts), shown as the check's details URL. */
  readonly detailsUrl?: string;
  /** Minimum time between progress updates, ms (default 10 000; the final update is never throttled). */
  readonly throttleMs?: number;
  readonly now?: () => number;
  /**
   * Told when a progress update fails. Progress is best effort: the run goes on, and the final
   * completion (which does throw) reports the verdict. Default: rethrow.
   */
  readonly onProgressError?: (error: unknown) => void;
  /**
   * Told once the check run was completed (the API accepted the write). The action saves a state flag
   * here so its post step leaves a completed check run alone.
   */
  readonly onCompleted?: (ref: CheckRunRef) => void;
}

export class CheckRunReporter {
  #ref: CheckRunRef | null = null;
  #completed = false;
  #lastUpdate = Number.NEGATIVE_INFINITY;
  readonly #options: CheckRunReporterOptions;

  constructor(options: CheckRunReporterOptions) {
    this.#options = options;
  }

  /** The check run, once created. */
  get ref(): CheckRunRef | null {
    return this.#ref;
  }

  /** True once the check run was completed by this reporter. */
  get completed(): boolean {
    return this.#completed;
  }

  /**
   * The check run for a new run (SPEC §6: one per check name and head SHA): takes over the one an earlier
   * run left on this head SHA ({@link CheckRunClient.findReusable}; back to `in_progress`, `external_id` =
   * `externalId`) or, when there is none, creates it. Either way it is then this reporter's.
   * @returns the check run, and the earlier run's check run when one was taken over.
   * @throws CheckRunWriteError when the lookup or the write failed.
   */
  async open(
    externalId: string,
    summary: string,
    title = "evidence-gate: starting",
  ): Promise<{ readonly ref: CheckRunRef; readonly tookOver: ExistingCheckRun | null }> {
    const existing = await this.#options.client.findReusable({
      name: this.#options.name,
      headSha: this.#options.headSha,
    });
    if (existing === undefined) return { ref: await this.start(externalId, summary, title), tookOver: null };
    return { ref: await this.restart(existing.id, { externalId, summary, title }), tookOver: existing };
  }

  /** Creates the check run `in_progress`. `externalId` carries the run id (SPEC §6). */
  async start(externalId: string, summary: string, title = "evidence-gate: starting"): Promise<CheckRunRef> {
    this.#ref = await this.#options.client.create({
      name: this.#options.name,
      headSha: this.#options.headSha,
      externalId,
      title,
      summary,
      ...(this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {}),
    });
    return this.#ref;
  }

  /**
   * Takes over an existing check run (an earlier leg's, found by name and head SHA) for this leg: back to
   * `in_progress`, `external_id` = `externalId`, `started_at` now (SPEC §6: a re-run updates the check run
   * it finds). From then on it is this reporter's, as if {@link start} had created it.
   */
  async restart(
    id: number,
    output: { readonly externalId: string; readonly summary: string; readonly title?: string },
  ): Promise<CheckRunRef> {
    this.#ref = await this.#options.client.restart(id, {
      externalId: output.externalId,
      title: output.title ?? "evidence-gate: resuming",
      summary: output.summary,
      ...(this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {}),
    });
    return this.#ref;
  }

  /**
   * Replaces the output with an in-progress ledger. `force` skips the throttle (the plan section).
   * @returns true when an update was sent.
   */
  async progress(ledger: Ledger, force: boolean): Promise<boolean> {
    if (this.#ref === null || this.#completed) return false;
    const now = (this.#options.now ?? Date.now)();
    if (!force && now - this.#lastUpdate < (this.#options.throttleMs ?? 10_000)) return false;
    this.#lastUpdate = now;
    const output = renderCheckRunOutput(ledger, this.#detailsOption());
    try {
      await this.#options.client.update(this.#ref.id, {
        title: output.title,
        summary: output.summary,
        text: output.text,
      });
    } catch (error) {
      if (this.#options.onProgressError === undefined) throw error;
      this.#options.onProgressError(error);
      return false;
    }
    return true;
  }

  /**
   * Completes the check run with the finished ledger's conclusion. `appendix` (trusted Markdown, e.g. how
   * to resume a paused run) follows the ledger's summary whole: the ledger's part is cut to make room.
   * `annotations` (any number) are posted 50 per request, the first batch with the completion.
   * `ledgerArtifact` is linked, with the job summary, from the notice of a summary cut to the API's limit.
   */
  async finish(
    ledger: Ledger,
    options: {
      readonly appendix?: string;
      readonly annotations?: readonly CheckRunAnnotation[];
      readonly ledgerArtifact?: FullLedgerLinks["ledgerArtifact"];
    } = {},
  ): Promise<CheckRunRef> {
    if (ledger.conclusion === null) throw new Error("Internal error: finish() needs a concluded ledger");
    const links: FullLedgerLinks = {
      ...this.#detailsOption(),
      ...(options.ledgerArtifact === undefined ? {} : { ledgerArtifact: options.ledgerArtifact }),
    };
    const output = renderCheckRunOutput(ledger, links);
    const summary =
      options.appendix === undefined
        ? output.summary
        : withAppendix(output.summary, options.appendix, trimmedNotice(links));
    return this.#complete(
      ledger.conclusion.conclusion,
      output.title,
      summary,
      output.text,
      options.annotations,
    );
  }

  /** Completes the check run without a ledger (refusal, usage error, crash): title and Markdown summary. */
  async end(conclusion: CheckRunConclusion, title: string, summary: string): Promise<CheckRunRef> {
    return this.#complete(conclusion, title, summary, undefined, undefined);
  }

  async #complete(
    conclusion: CheckRunConclusion,
    title: string,
    summary: string,
    text: string | undefined,
    annotations: readonly CheckRunAnnotation[] | undefined,
  ): Promise<CheckRunRef> {
    if (this.#ref === null) throw new Error("Internal error: the check run was never created");
    const ref = await this.#options.client.complete(this.#ref.id, {
      conclusion,
      title,
      summary,
      ...(text !== undefined && text !== "" ? { text } : {}),
      ...(this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {}),
      ...(annotations !== undefined && annotations.length > 0 ? { annotations } : {}),
    });
    this.#completed = true;
    this.#options.onCompleted?.(ref);
    return ref;
  }

  #detailsOption(): { detailsUrl?: string } {
    return this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {};
  }
}

/**
 * `summary`, then `appendix` whole, within the check run's byte limit (the summary is cut first, with `notice`).
 * Also used by the bot (`src/bot/`), so its check run carries the same text `mode: report` posts.
 */
export function withAppendix(summary: string, appendix: string, notice: string): string {
  const tail = `\n\n${appendix}`;
  const room = CHECK_RUN_TEXT_MAX_BYTES - utf8Bytes(tail);
  if (room <= 0) return truncateUtf8(appendix, CHECK_RUN_TEXT_MAX_BYTES, notice);
  return `${truncateUtf8(summary, room, notice)}${tail}`;
}
