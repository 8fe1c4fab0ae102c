/**
 * The App's own check runs on one repository (https://docs.github.com/rest/checks/runs): found by name and
 * head SHA among **this App's** runs (`app_id`), created `queued`, moved, completed. GitHub holds all the
 * state (SPEC §2.3, stateless); this module only reads and writes it.
 *
 * One check run per name and head SHA, with any number of replicas: deliveries for one commit can be
 * handled at once on two replicas, and each may find none and create one. After every create the runs
 * are listed again; the one with the lowest id is the commit's check run (the identity rule, `ourCheckRun`;
 * ADR 0007), and a later one this call created is renamed `<name> (duplicate)` and completed `skipped` —
 * GitHub has no delete for check runs, and a renamed run cannot stand in for the required check. Every
 * lookup goes through the same rule.
 *
 * A head can have a later check run of the same name (issue 23 item 1; GitHub's "requesting a new check run",
 * https://docs.github.com/rest/guides/using-the-rest-api-to-interact-with-checks): {@link AppCheckRuns.replace}
 * creates it when a completed check run is Re-run or Re-verified, or a newer workflow run reaches a head whose
 * check completed, and then marks the earlier one `:next` in its `external_id` (`check-key.ts`). Lookups skip
 * runs so marked: a completed check run is history and never moves back.
 *
 * Delivery de-duplication on completion (issue 23 item 1; SPEC §2 "a delivery is de-duplicated on
 * completion"): the write that **ends** a delivery's work (`last: true`) opens the summary with a hidden
 * marker naming that delivery's `X-GitHub-Delivery` ({@link deliveryMarker}); every other write drops it. A
 * redelivery carries the same id, so a handler that finds its check run marked with its own delivery
 * ({@link AppCheckRuns.doneHere}) does nothing. A completion takes two writes (the conclusion, then the
 * buttons): the first marks the delivery `unfinished`, the second `done`, so a delivery that died between
 * them is recognised by its redelivery ({@link AppCheckRuns.unfinishedHere}) and done again; one that died
 * before its first write left no mark and is done again as any delivery. GitHub's check run is the record:
 * no database. The marker names only the last delivery that wrote the check run; a redelivery of an earlier
 * one is held by the handlers' own forward-only rules (`check-key.ts`).
 *
 * Every output written is cleared of token shapes (`core/token-shapes.ts`; issue 12 item 5): the writes here
 * (create, move, annotateOutput) as the completion through {@link CheckRunClient} is, since a summary can
 * quote what a workflow run or its ledger artifact printed.
 */

import { redactTokenShapes } from "../core/token-shapes.js";
import {
  type CheckRunAnnotation,
  CheckRunClient,
  type CheckRunConclusion,
  ourCheckRun,
} from "../github/check-run.js";
import { checkRunOutput } from "../github/check-run-output.js";
import type { GateOctokit } from "../github/octokit.js";
import { type CheckKey, formatCheckKey, parseCheckKey } from "./check-key.js";
import { type CheckRunButton, REVERIFY_BUTTON } from "./gate-buttons.js";

/** One of the App's check runs, as GitHub shows it now. */
export interface AppCheckRun {
  readonly id: number;
  readonly headSha: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly externalId: string | null;
  /** The bot's record in `external_id`; `null` when it holds something else. */
  readonly key: CheckKey | null;
  readonly summary: string | null;
  readonly title: string | null;
  readonly htmlUrl: string | null;
  /** The delivery whose last write this check run carries ({@link deliveryMarker}), else `null`. */
  readonly deliveryMark: DeliveryMark | null;
}

export interface CheckOutput {
  readonly title: string;
  readonly summary: string;
  readonly text?: string;
}

export interface AppCheckRunsOptions {
  /** An installation client of the App. */
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly appId: number;
  readonly name: string;
  /**
   * The `X-GitHub-Delivery` being worked: a write with `last: true` records it on the check run (see the
   * module comment). Absent (the reconcile sweep): nothing is recorded.
   */
  readonly delivery?: string;
}

/**
 * What a check run's summary says about the delivery that wrote it last: `delivery` (its
 * `X-GitHub-Delivery`: GitHub's GUID, or `reconcile-<check run id>` for the reconcile sweep) finished its work
 * (`done`), or made the first write of a completion and not the last (`done: false`).
 */
export interface DeliveryMark {
  readonly delivery: string;
  readonly done: boolean;
}

/** A delivery id the marker can hold: letters, digits and dashes, at most 64. */
const DELIVERY_ID = /^[0-9A-Za-z-]{1,64}$/;
const MARKER = /^<!-- evidence-gate-bot delivery=([0-9A-Za-z-]{1,64})( unfinished)? -->\n/;

/** The hidden first line of a summary carrying `mark`. */
export function deliveryMarker(mark: DeliveryMark): string {
  return `<!-- evidence-gate-bot delivery=${mark.delivery}${mark.done ? "" : " unfinished"} -->\n`;
}

/** The mark a summary opens with, or `null`. */
export function deliveryMarkOf(summary: string | null): DeliveryMark | null {
  const m = MARKER.exec(summary ?? "");
  return m === null ? null : { delivery: m[1]!, done: m[2] === undefined };
}

/** `summary` without its mark, then with `mark` when given. */
function stamped(summary: string, mark: DeliveryMark | undefined): string {
  const bare = summary.replace(MARKER, "");
  return mark === undefined ? bare : `${deliveryMarker(mark)}${bare}`;
}

interface ListedRun {
  readonly id: number;
  readonly name: string;
  readonly head_sha: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly external_id: string | null;
  readonly html_url: string | null;
  readonly app?: { readonly id: number } | null;
  readonly output: { readonly title: string | null; readonly summary: string | null };
}

function fromListed(run: ListedRun): AppCheckRun {
  return {
    id: run.id,
    headSha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion,
    externalId: run.external_id,
    key: parseCheckKey(run.external_id),
    summary: run.output.summary,
    title: run.output.title,
    htmlUrl: run.html_url,
    deliveryMark: deliveryMarkOf(run.output.summary),
  };
}

/** The suffix a duplicate created by a race is renamed with. */
export const DUPLICATE_SUFFIX = " (duplicate)";

export class AppCheckRuns {
  readonly #o: AppCheckRunsOptions;
  readonly #client: CheckRunClient;

  constructor(options: AppCheckRunsOptions) {
    this.#o = options;
    this.#client = new CheckRunClient({ octokit: options.octokit, owner: options.owner, repo: options.repo });
  }

  get name(): string {
    return this.#o.name;
  }

  /** `true` when `run` says this delivery finished its work: this is a redelivery of a finished delivery. */
  doneHere(run: Pick<AppCheckRun, "deliveryMark">): boolean {
    const mark = run.deliveryMark;
    return mark !== null && mark.delivery === this.#o.delivery && mark.done;
  }

  /** `true` when `run` says this delivery made the first write of a completion and died before the last. */
  unfinishedHere(run: Pick<AppCheckRun, "deliveryMark">): boolean {
    const mark = run.deliveryMark;
    return mark !== null && mark.delivery === this.#o.delivery && !mark.done;
  }

  /** This delivery's mark for a write that is its `last` (`done`: the last write of all), else none. */
  #mark(last: boolean | undefined, done: boolean): DeliveryMark | undefined {
    const delivery = this.#o.delivery;
    if (last !== true || delivery === undefined || !DELIVERY_ID.test(delivery)) return undefined;
    return { delivery, done };
  }

  /**
   * `output` for a write: token shapes cleared, the delivery marker set when `last` (see the module comment),
   * each part cut to GitHub's limit (the marker opens the summary, so a cut at the end keeps it).
   */
  #output(output: CheckOutput, last: boolean | undefined): CheckOutput {
    const summary = stamped(output.summary, this.#mark(last, true));
    return checkRunOutput({ ...output, summary }, { redact: redactTokenShapes, warn: () => {} });
  }

  /** The App's check run named {@link name} on `headSha` (the lowest id when a race made two), or `undefined`. */
  async find(headSha: string): Promise<AppCheckRun | undefined> {
    return ourCheckRun(await this.#current(headSha));
  }

  /** One check run by id (any app's: the caller checks it is the App's and named {@link name}). */
  async get(id: number): Promise<AppCheckRun & { readonly name: string; readonly appId: number | null }> {
    const { data } = await this.#o.octokit.rest.checks.get({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
    });
    return { ...fromListed(data), name: data.name, appId: data.app?.id ?? null };
  }

  /**
   * Creates the check run on `headSha` with `status` (`queued`, or `in_progress` for a run already going),
   * then settles a race (see the module comment).
   * @returns the commit's check run: this one, or an earlier one a concurrent delivery created.
   */
  async create(input: {
    readonly headSha: string;
    readonly key: CheckKey;
    readonly status: "queued" | "in_progress";
    readonly output: CheckOutput;
    readonly detailsUrl?: string;
    /** The completed check run this one takes over from ({@link replace}): only later runs race with it. */
    readonly replacing?: number;
    /** This write ends the delivery's work: it records the delivery (see the module comment). */
    readonly last?: boolean;
  }): Promise<{ readonly run: AppCheckRun; readonly created: boolean }> {
    const { data } = await this.#o.octokit.rest.checks.create({
      owner: this.#o.owner,
      repo: this.#o.repo,
      name: this.#o.name,
      head_sha: input.headSha,
      external_id: formatCheckKey(input.key),
      status: input.status,
      ...(input.status === "in_progress" ? { started_at: timestamp() } : {}),
      output: this.#output(input.output, input.last),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
    const mine = fromListed(data);
    const after = input.replacing ?? 0;
    const current = (await this.#current(input.headSha)).filter((r) => r.id > after);
    const first = ourCheckRun(current) ?? mine;
    // Besides this call's own run, a create whose answer was lost (a 5xx after GitHub made the run, retried
    // by Octokit) left a run this call never saw: every later open run carrying the same record is a
    // duplicate of the commit's check run, whoever made it.
    const record = formatCheckKey(input.key);
    const duplicates = current.filter(
      (r) => r.id !== first.id && (r.id === mine.id || (r.status !== "completed" && r.externalId === record)),
    );
    if (first.id !== mine.id && !duplicates.some((r) => r.id === mine.id)) duplicates.push(mine);
    for (const duplicate of duplicates) await this.retire(duplicate.id, first.id);
    return first.id === mine.id ? { run: mine, created: true } : { run: first, created: false };
  }

  /**
   * Renames check run `id` `<name> (duplicate)` and completes it `skipped`, pointing at `keptId`, the commit's
   * check run (GitHub has no delete for check runs; a renamed run cannot stand in for the required check).
   */
  async retire(id: number, keptId: number): Promise<void> {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      name: `${this.#o.name}${DUPLICATE_SUFFIX}`,
      status: "completed",
      conclusion: "skipped",
      completed_at: timestamp(),
      output: {
        title: "Duplicate: see the other check run",
        summary: `Two deliveries for this commit were handled at once and each created a check run. Check run ${keptId} ("${this.#o.name}") is this commit's; this one was renamed so it cannot stand in for it.`,
      },
    });
  }

  /**
   * A fresh check run on `old`'s head taking over from `old` (a completed check run, which is never moved
   * back): created, the race with concurrent deliveries settled among runs later than `old`, then `old` marked
   * `:next` so lookups skip it. Idempotent: a redelivery finds the fresh run with {@link find}.
   */
  async replace(
    old: AppCheckRun,
    input: {
      readonly key: CheckKey;
      readonly status: "queued" | "in_progress";
      readonly output: CheckOutput;
      readonly detailsUrl?: string;
      readonly last?: boolean;
    },
  ): Promise<{ readonly run: AppCheckRun; readonly created: boolean }> {
    const made = await this.create({ ...input, headSha: old.headSha, replacing: old.id });
    if (made.run.id !== old.id) {
      await this.record(old.id, { ...(old.key ?? { pullRequest: null, run: null }), next: true });
    }
    return made;
  }

  /** Rewrites only what check run `id` records (`external_id`, `check-key.ts`): status and output stay. */
  async record(id: number, key: CheckKey): Promise<void> {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      external_id: formatCheckKey(key),
    });
  }

  /** Moves a check run to `queued` or `in_progress` with a new output (and record, details link, buttons). */
  async move(
    id: number,
    input: {
      readonly status: "queued" | "in_progress";
      readonly key?: CheckKey;
      readonly output: CheckOutput;
      readonly detailsUrl?: string;
      readonly last?: boolean;
    },
  ): Promise<void> {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      status: input.status,
      ...(input.status === "in_progress" ? { started_at: timestamp() } : {}),
      output: this.#output(input.output, input.last),
      // A check run that moves on offers no buttons from its earlier state.
      actions: [],
      ...(input.key === undefined ? {} : { external_id: formatCheckKey(input.key) }),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
  }

  /**
   * Replaces the output of a check run (and its buttons when `actions` is given), status unchanged; the write
   * that ends a delivery's work, so it records the delivery (a refusal said on the check run).
   */
  async annotateOutput(id: number, output: CheckOutput, actions?: readonly CheckRunButton[]): Promise<void> {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      output: this.#output(output, true),
      ...(actions === undefined ? {} : { actions: [...actions] }),
    });
  }

  /**
   * Completes a check run through {@link CheckRunClient.complete}: conclusion, output, the annotations 50 per
   * request; then the buttons — `actions`, then Re-verify on every completed check run — in a second write
   * (the client's completion carries none). With `last`, that second write — the last — also rewrites the
   * title and summary with the delivery marker, so a delivery that dies between the two is done again.
   */
  async complete(
    id: number,
    input: CheckOutput & {
      readonly conclusion: CheckRunConclusion;
      readonly key: CheckKey;
      readonly detailsUrl?: string;
      readonly annotations?: readonly CheckRunAnnotation[];
      readonly actions?: readonly CheckRunButton[];
      readonly last?: boolean;
    },
  ): Promise<void> {
    await this.#client.complete(id, {
      conclusion: input.conclusion,
      title: input.title,
      summary: stamped(input.summary, this.#mark(input.last, false)),
      ...(input.text === undefined || input.text === "" ? {} : { text: input.text }),
      externalId: formatCheckKey(input.key),
      ...(input.detailsUrl === undefined ? {} : { detailsUrl: input.detailsUrl }),
      ...(input.annotations === undefined ? {} : { annotations: input.annotations }),
    });
    // Every completed check run offers Re-verify (issue 23 item 5) after its own buttons; GitHub allows three.
    const actions = [...(input.actions ?? []), REVERIFY_BUTTON].slice(0, 3);
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      actions,
      ...(this.#mark(input.last, true) === undefined
        ? {}
        : {
            // The whole output again (GitHub's PATCH does not promise to keep a text it is not sent).
            output: this.#output(
              {
                title: input.title,
                summary: input.summary,
                ...(input.text === undefined || input.text === "" ? {} : { text: input.text }),
              },
              true,
            ),
          }),
    });
  }

  /** {@link #list} without the runs a later one took over from (`:next`); all of them if every run is marked. */
  async #current(headSha: string): Promise<AppCheckRun[]> {
    const all = await this.#list(headSha);
    const live = all.filter((r) => r.key?.next !== true);
    return live.length > 0 ? live : all.slice(-1);
  }

  /** The App's runs named {@link name} on `headSha`, lowest id first (first 100: a few per name in practice). */
  async #list(headSha: string): Promise<AppCheckRun[]> {
    const { data } = await this.#o.octokit.rest.checks.listForRef({
      owner: this.#o.owner,
      repo: this.#o.repo,
      ref: headSha,
      check_name: this.#o.name,
      app_id: this.#o.appId,
      filter: "all",
      per_page: 100,
    });
    return data.check_runs
      .filter((run) => run.name === this.#o.name && (run.app?.id ?? this.#o.appId) === this.#o.appId)
      .map(fromListed)
      .sort((a, b) => a.id - b.id);
  }
}

/** GitHub's documented timestamp form, `YYYY-MM-DDTHH:MM:SSZ`. */
function timestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
