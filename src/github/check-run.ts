/**
 * Check-run writes (SPEC §6): create `in_progress`, update the summary as nodes finish, complete with
 * a conclusion. Every API failure becomes a {@link CheckRunWriteError} carrying the HTTP status and
 * the request — never swallowed (SPEC §6: "A write the API refuses … is an error the user sees").
 *
 * What each write sends is shaped within GitHub's limits by `check-run-output.ts` (titles clamped, texts
 * cut with a notice, at most {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} annotations a request: the first
 * batch rides on the completing write, the rest follow in further updates, {@link CheckRunClient.complete}).
 * A failed call becomes its error in `check-run-error.ts`. Both are re-exported here, so a caller of the
 * client imports one module.
 *
 * Idempotence: one check run per name and head SHA. A create that GitHub may have carried out before it
 * failed (5xx, no answer) is never blindly repeated: the client looks the check run up by its
 * `external_id` (the run id, unique per leg) first ({@link CheckRunClient.create}); a re-run of the job
 * takes over the check run an earlier run left ({@link CheckRunClient.findReusable}).
 */

import { setTimeout as sleep } from "node:timers/promises";
import { isRunId } from "../core/run-id.js";
import { redactTokenShapes } from "../core/token-shapes.js";
import {
  type CheckRunOperation,
  type CheckRunSurface,
  CheckRunWriteError,
  checkRunWriteError,
} from "./check-run-error.js";
import {
  type CheckRunConclusion,
  type CheckRunRef,
  type ExistingCheckRun,
  existingCheckRunOf,
} from "./check-run-existing.js";
import {
  annotationBatches,
  annotationObject,
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  type CheckRunAnnotation,
  type CheckRunOutputInput,
  checkRunOutput,
} from "./check-run-output.js";
import { type GateOctokit, SERVER_ERROR_RETRIES, serverErrorBackoffMs } from "./octokit.js";

export {
  type CheckRunOperation,
  CheckRunWriteError,
  type FailedCheckRunRequest,
} from "./check-run-error.js";
export type { CheckRunConclusion, CheckRunRef, ExistingCheckRun } from "./check-run-existing.js";
export {
  ANNOTATION_TEXT_MAX_BYTES,
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  CHECK_RUN_TEXT_MAX_BYTES,
  CHECK_RUN_TITLE_MAX_CHARS,
  type CheckRunAnnotation,
  clampCheckRunTitle,
} from "./check-run-output.js";

export interface CreateCheckRunInput {
  readonly name: string;
  /** The full 40-hex commit SHA the check is posted on (the PR head, or the pushed commit). */
  readonly headSha: string;
  /** The evidence-gate run id (SPEC §6: `external_id` carries the latest run id). */
  readonly externalId: string;
  readonly title: string;
  readonly summary: string;
  readonly detailsUrl?: string;
}

/** A running check run's new output. */
export type UpdateCheckRunInput = CheckRunOutputInput;

export interface RestartCheckRunInput extends UpdateCheckRunInput {
  readonly externalId: string;
  readonly detailsUrl?: string;
}

export interface CompleteCheckRunInput extends UpdateCheckRunInput {
  readonly conclusion: CheckRunConclusion;
  readonly externalId?: string;
  readonly detailsUrl?: string;
  /**
   * Any number: the first {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} go with the completing write, the rest in
   * further updates of as many each (each repeating the title and summary, which the API requires).
   */
  readonly annotations?: readonly CheckRunAnnotation[];
}

export interface CheckRunClientOptions {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  /** Told when a text had to be cut here (a caller bug: the renderer should have cut it). */
  readonly warn?: (message: string) => void;
  /**
   * Applied to every title, summary, text and annotation before it leaves the process (SPEC §9: redact
   * known secrets; the action passes `createRedactor(secrets).text`). Token shapes (`core/token-shapes.ts`)
   * are redacted after it either way.
   */
  readonly redact?: (text: string) => string;
  /** Who runs the client, for the fix a refused call names (`check-run-error.ts`; default `action`). */
  readonly surface?: CheckRunSurface;
  /** Clock for `started_at` / `completed_at`. */
  readonly now?: () => Date;
}

/** GitHub's documented timestamp form, `YYYY-MM-DDTHH:MM:SSZ`. */
function githubTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Writes one repository's check runs. Construct once per run; methods are independent calls. */
export class CheckRunClient {
  readonly #octokit: GateOctokit;
  readonly #owner: string;
  readonly #repo: string;
  readonly #warn: (message: string) => void;
  readonly #redact: (text: string) => string;
  readonly #now: () => Date;
  readonly #surface: CheckRunSurface;

  constructor(options: CheckRunClientOptions) {
    this.#octokit = options.octokit;
    this.#owner = options.owner;
    this.#repo = options.repo;
    this.#warn = options.warn ?? ((message) => console.warn(message));
    const given = options.redact;
    this.#redact = given === undefined ? redactTokenShapes : (text) => redactTokenShapes(given(text));
    this.#now = options.now ?? (() => new Date());
    this.#surface = options.surface ?? "action";
  }

  /**
   * Creates the check run `in_progress` with `started_at` now. A 5xx or a lost answer is retried (at most
   * {@link SERVER_ERROR_RETRIES} times, waiting on the client's backoff schedule), but never blindly: GitHub
   * may have created the check run before the error, so each retry first looks for a check run named
   * `name` on `headSha` carrying `externalId`, and returns that one when it exists. 4xx is never retried.
   * @throws CheckRunWriteError when GitHub refused, or the retries ran out.
   */
  async create(input: CreateCheckRunInput): Promise<CheckRunRef> {
    const body = {
      name: input.name,
      head_sha: input.headSha,
      external_id: input.externalId,
      status: "in_progress" as const,
      started_at: githubTimestamp(this.#now()),
      output: this.#output(input),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    };
    const what = `Could not create check run "${input.name}" on ${input.headSha.slice(0, 7)} in ${this.#slug()}`;
    for (let retry = 0; ; retry += 1) {
      try {
        const { data } = await this.#call("create", what, "POST /repos/{owner}/{repo}/check-runs", body, () =>
          // plugin-retry stays out of this one request: a blind repeat could create a second check run.
          this.#octokit.rest.checks.create({
            owner: this.#owner,
            repo: this.#repo,
            ...body,
            request: { retries: 0 },
          }),
        );
        return { id: data.id, htmlUrl: data.html_url };
      } catch (error) {
        const lost =
          error instanceof CheckRunWriteError && (error.status === undefined || error.status >= 500);
        if (!lost || retry >= SERVER_ERROR_RETRIES) throw error;
        this.#warn(
          `${error.message} Looking for it before trying again (retry ${retry + 1} of ${SERVER_ERROR_RETRIES}).`,
        );
        await sleep(serverErrorBackoffMs(this.#octokit, retry + 1));
        const made = ourCheckRun(
          await this.#find(input.name, input.headSha, (run) => run.externalId === input.externalId, {
            filter: "all",
          }),
        );
        if (made !== undefined) return { id: made.id, htmlUrl: made.htmlUrl };
      }
    }
  }

  /** Replaces the output (title, summary, optional text) of a running check run. */
  async update(id: number, input: UpdateCheckRunInput): Promise<CheckRunRef> {
    return this.#patch("update", id, { output: this.#output(input) });
  }

  /**
   * Puts an existing check run (found by {@link findLatest} on a re-run) back `in_progress` for a new
   * run: new `external_id`, `started_at` now. GitHub keeps the old `conclusion` field until the run
   * completes again (https://github.com/Mergifyio/mergify/pull/444), so readers look at `status` first.
   */
  async restart(id: number, input: RestartCheckRunInput): Promise<CheckRunRef> {
    return this.#patch("restart", id, {
      status: "in_progress" as const,
      started_at: githubTimestamp(this.#now()),
      external_id: input.externalId,
      output: this.#output(input),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
  }

  /**
   * Completes the check run: `status: completed`, the conclusion, `completed_at` now, and the first
   * {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} annotations; then one update per further batch of annotations
   * (GitHub appends them). `n` annotations cost `1 + max(0, ceil(n / 50) − 1)` requests.
   * @throws CheckRunWriteError on the first write GitHub refuses (the completion, or a later batch).
   */
  async complete(id: number, input: CompleteCheckRunInput): Promise<CheckRunRef> {
    const [first = [], ...rest] = annotationBatches(input.annotations ?? []);
    const output = this.#output(input);
    const ref = await this.#patch("complete", id, {
      status: "completed" as const,
      conclusion: input.conclusion,
      completed_at: githubTimestamp(this.#now()),
      output:
        first.length === 0
          ? output
          : { ...output, annotations: first.map((a) => annotationObject(a, this.#redact)) },
      ...(input.externalId === undefined ? {} : { external_id: input.externalId }),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
    for (const batch of rest) {
      await this.#patch("annotate", id, {
        output: {
          title: output.title,
          summary: output.summary,
          annotations: batch.map((a) => annotationObject(a, this.#redact)),
        },
      });
    }
    return ref;
  }

  /** One check run by id, as GitHub shows it now (the post step reads its `status` before completing it). */
  async get(id: number): Promise<ExistingCheckRun> {
    const what = `Could not read check run ${id} in ${this.#slug()}`;
    const { data } = await this.#call(
      "get",
      what,
      "GET /repos/{owner}/{repo}/check-runs/{check_run_id}",
      undefined,
      () => this.#octokit.rest.checks.get({ owner: this.#owner, repo: this.#repo, check_run_id: id }),
    );
    return existingCheckRunOf(data);
  }

  /**
   * The newest check run named `name` on `headSha`, of any app, that `carries` accepts (one page of 100,
   * `filter: all`) — e.g. the one holding a run's run-state digest, posted by the action or by the App.
   */
  async findCarrying(input: {
    readonly name: string;
    readonly headSha: string;
    readonly carries: (run: ExistingCheckRun) => boolean;
  }): Promise<ExistingCheckRun | undefined> {
    return newestOf(await this.#find(input.name, input.headSha, input.carries, { filter: "all" }));
  }

  /**
   * The newest check run named `name` on `headSha`, optionally only among `appId`'s runs (the token's
   * own app: GitHub Actions is 15368 on github.com), or `undefined` when there is none.
   */
  async findLatest(input: {
    readonly name: string;
    readonly headSha: string;
    readonly appId?: number;
  }): Promise<ExistingCheckRun | undefined> {
    return newestOf(
      await this.#find(
        input.name,
        input.headSha,
        (run) => input.appId === undefined || run.appId === input.appId,
        { filter: "latest", ...(input.appId === undefined ? {} : { app_id: input.appId }) },
      ),
    );
  }

  /**
   * The check run a new run on `headSha` takes over instead of creating a second one (SPEC §6: "a re-run
   * finds the existing check run by name and head SHA … and updates it"), or `undefined` when a new one
   * must be created. Of the check runs named `name` whose `external_id` is an evidence-gate run id
   * (`YYYYMMDD-HHMMSS-<6 hex>`) it is the one {@link ourCheckRun} picks (the lowest id: ADR 0007) — that test keeps a same-named check run evidence-gate did not create
   * (GitHub's own check run for a job called like the check, another tool's) out of reach. It is taken over
   * even when it carries annotations: GitHub appends annotations and offers no way to remove them, so the
   * caller says in the new run's summary that those marks are an earlier run's (`annotationsCount`).
   *
   * Re-runs: every leg mints a new run id, so "Re-run jobs" (same `GITHUB_RUN_ID`, next
   * `GITHUB_RUN_ATTEMPT`), a new workflow run on the same commit (`reopened`, a manual dispatch) and a
   * second workflow naming the same check all land on this one check run; `external_id` then names the
   * latest run that took it over, which is how the post step of an older one knows it was taken over.
   */
  async findReusable(input: {
    readonly name: string;
    readonly headSha: string;
  }): Promise<ExistingCheckRun | undefined> {
    return ourCheckRun(
      await this.#find(
        input.name,
        input.headSha,
        (run) => run.externalId !== null && isRunId(run.externalId),
        { filter: "all" },
      ),
    );
  }

  /**
   * The check runs named `name` on `headSha` that `accept`s, among the first 100 GitHub lists for `filter`
   * (`all`: every run; `latest`: the newest per app and name) and `app_id`, in GitHub's order.
   */
  async #find(
    name: string,
    headSha: string,
    accept: (run: ExistingCheckRun) => boolean,
    filters: { readonly filter: "all" | "latest"; readonly app_id?: number },
  ): Promise<ExistingCheckRun[]> {
    const query = { check_name: name, ...filters, per_page: 100 };
    const what = `Could not list check runs named "${name}" on ${headSha.slice(0, 7)} in ${this.#slug()}`;
    const { data } = await this.#call(
      "find",
      what,
      "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      query,
      () =>
        this.#octokit.rest.checks.listForRef({
          owner: this.#owner,
          repo: this.#repo,
          ref: headSha,
          ...query,
        }),
    );
    return data.check_runs
      .filter((run) => run.name === name)
      .map(existingCheckRunOf)
      .filter(accept);
  }

  async #patch(
    operation: CheckRunOperation,
    id: number,
    body: Record<string, unknown>,
  ): Promise<CheckRunRef> {
    const what = `Could not ${operation} check run ${id} in ${this.#slug()}`;
    const { data } = await this.#call(
      operation,
      what,
      "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
      body,
      () =>
        this.#octokit.rest.checks.update({ owner: this.#owner, repo: this.#repo, check_run_id: id, ...body }),
    );
    return { id: data.id, htmlUrl: data.html_url };
  }

  async #call<T>(
    operation: CheckRunOperation,
    what: string,
    route: string,
    body: unknown,
    send: () => Promise<T>,
  ): Promise<T> {
    try {
      return await send();
    } catch (cause) {
      throw checkRunWriteError({ operation, what, route, body, cause, surface: this.#surface });
    }
  }

  #output(input: UpdateCheckRunInput): { title: string; summary: string; text?: string } {
    return checkRunOutput(input, { redact: this.#redact, warn: this.#warn });
  }

  #slug(): string {
    return `${this.#owner}/${this.#repo}`;
  }
}

/**
 * The check-run identity rule (ADR 0007): of the check runs a surface counts as a commit's own for one name
 * and head SHA, ours is the one with the lowest id — the first created. GitHub's check-run ids grow, so every
 * reader picks the same run whenever it looks, whatever was created after it (a duplicate a race of two
 * deliveries or two workflows left); a "newest" rule would move to each later duplicate. The action's
 * take-over ({@link CheckRunClient.findReusable}) and the App's lookups (`bot/app-check-runs.ts`) both use it.
 *
 * @returns `undefined` for no candidates.
 */
export function ourCheckRun<T extends { readonly id: number }>(candidates: readonly T[]): T | undefined {
  let lowest: T | undefined;
  for (const run of candidates) if (lowest === undefined || run.id < lowest.id) lowest = run;
  return lowest;
}

/** The candidate with the highest id (the latest created): for "the newest run carrying X", not identity. */
function newestOf<T extends { readonly id: number }>(candidates: readonly T[]): T | undefined {
  let highest: T | undefined;
  for (const run of candidates) if (highest === undefined || run.id > highest.id) highest = run;
  return highest;
}
