/**
 * Check-run writes (SPEC §6): create `in_progress`, update the summary as nodes finish, complete with
 * a conclusion. Every API failure becomes a {@link CheckRunWriteError} carrying the HTTP status and
 * the request — never swallowed (SPEC §6: "A write the API refuses … is an error the user sees").
 *
 * Limits (https://docs.github.com/rest/checks/runs): `output.summary` and `output.text` ≤ 65535
 * UTF-8 bytes (GitHub counts bytes: github/docs#35252). Callers cut with the ledger renderer; a text
 * that still arrives too long is cut here with a visible notice and a warning, so the verdict is
 * posted rather than refused with 422. `output.title` is clamped to {@link CHECK_RUN_TITLE_MAX_CHARS}.
 * `output.annotations` go at most {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} per request ("To create more
 * than 50 annotations, you have to make multiple requests to the Update a check run endpoint"): the first
 * batch rides on the completing write, the rest follow in further updates ({@link CheckRunClient.complete}).
 *
 * Idempotence: one check run per name and head SHA. A create that GitHub may have carried out before it
 * failed (5xx, no answer) is never blindly repeated: the client looks the check run up by its
 * `external_id` (the run id, unique per leg) first ({@link CheckRunClient.create}); a re-run of the job
 * takes over the check run an earlier run left ({@link CheckRunClient.findReusable}).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isRunId } from "../core/run-id.js";
import { CHECK_RUN_TEXT_MAX_BYTES, truncateUtf8, utf8Bytes } from "../ledger/byte-budget.js";
import { type GateOctokit, SERVER_ERROR_RETRIES, serverErrorBackoffMs } from "./octokit.js";

/** The conclusions an integration may set (GitHub sets `stale` itself). */
export type CheckRunConclusion =
  | "success"
  | "failure"
  | "neutral"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "action_required";

export const CHECK_RUN_TITLE_MAX_CHARS = 255;
export { CHECK_RUN_TEXT_MAX_BYTES };
/** "The Checks API limits the number of annotations to a maximum of 50 per API request." */
export const CHECK_RUN_ANNOTATIONS_PER_REQUEST = 50;
/**
 * An annotation's `message` and `raw_details`: "The maximum size is 64 KB". Cut to 64 000 UTF-8 bytes, which
 * is within the limit whichever kilobyte GitHub means.
 */
export const ANNOTATION_TEXT_MAX_BYTES = 64_000;

/** One line range of one file, marked on the check run and in the pull request's "Files changed". */
export interface CheckRunAnnotation {
  /** Repository-relative path with `/` separators, e.g. `src/sum.ts` or `.github/workflows/gate.yml`. */
  readonly path: string;
  /** 1-based. */
  readonly startLine: number;
  readonly endLine: number;
  /** 1-based; sent only when the annotation is on one line (GitHub refuses columns across lines). */
  readonly startColumn?: number;
  readonly endColumn?: number;
  readonly level: "notice" | "warning" | "failure";
  /** Cut to {@link ANNOTATION_TEXT_MAX_BYTES}. */
  readonly message: string;
  /** Cut to 255 characters. */
  readonly title?: string;
  /** Cut to {@link ANNOTATION_TEXT_MAX_BYTES}. */
  readonly rawDetails?: string;
}

const OVERSIZE_NOTICE =
  "**Cut by evidence-gate:** this text exceeded GitHub's 65535-byte limit for check runs. " +
  "The full ledger is in the job summary and the run's ledger artifact.";

export interface CheckRunRef {
  readonly id: number;
  /** The check run's page on GitHub (`html_url`; GitHub may return `null`). */
  readonly htmlUrl: string | null;
}

export interface ExistingCheckRun extends CheckRunRef {
  readonly status: "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";
  readonly conclusion: string | null;
  readonly externalId: string | null;
  readonly appId: number | null;
  /** The check run's `output.summary` (Markdown), `null` when it has none. */
  readonly summary: string | null;
  /** `output.annotations_count`: annotations posted so far (they cannot be removed). */
  readonly annotationsCount: number;
}

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

export interface UpdateCheckRunInput {
  readonly title: string;
  readonly summary: string;
  readonly text?: string;
}

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

export type CheckRunOperation = "create" | "update" | "restart" | "complete" | "annotate" | "find" | "get";

/** The request a failed write sent (never its headers: they hold the token). */
export interface FailedCheckRunRequest {
  readonly operation: CheckRunOperation;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
}

/** A check-run API call GitHub refused or never answered. */
export class CheckRunWriteError extends Error {
  override readonly name = "CheckRunWriteError";
  /** HTTP status; `undefined` when no response arrived (network failure). */
  readonly status: number | undefined;
  readonly request: FailedCheckRunRequest;
  /** GitHub's own `message` (and validation `errors`), when it sent one. */
  readonly githubMessage: string | undefined;

  constructor(init: {
    message: string;
    status: number | undefined;
    request: FailedCheckRunRequest;
    githubMessage: string | undefined;
    cause: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.status = init.status;
    this.request = init.request;
    this.githubMessage = init.githubMessage;
  }
}

export interface CheckRunClientOptions {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  /** Told when a text had to be cut here (a caller bug: the renderer should have cut it). */
  readonly warn?: (message: string) => void;
  /** Applied to every title, summary and text before it leaves the process (SPEC §9: redact secrets). */
  readonly redact?: (text: string) => string;
  /** Clock for `started_at` / `completed_at`. */
  readonly now?: () => Date;
}

/** `output.title` clamped to 255 characters (code points), ending in `…` when cut. */
export function clampCheckRunTitle(title: string): string {
  const chars = Array.from(title);
  if (chars.length <= CHECK_RUN_TITLE_MAX_CHARS) return title;
  return `${chars.slice(0, CHECK_RUN_TITLE_MAX_CHARS - 1).join("")}…`;
}

/** `items` in consecutive batches of at most {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST}. */
function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST)
    out.push(items.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  return out;
}

/** GitHub's documented timestamp form, `YYYY-MM-DDTHH:MM:SSZ`. */
function githubTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

interface RequestErrorLike {
  readonly status?: unknown;
  readonly response?: { readonly data?: unknown };
  readonly message?: unknown;
}

function githubMessageOf(error: unknown): string | undefined {
  const data = (error as RequestErrorLike | null)?.response?.data;
  if (typeof data !== "object" || data === null) return undefined;
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  if (typeof message !== "string") return undefined;
  if (!Array.isArray(errors) || errors.length === 0) return message;
  const details = errors.map((e) =>
    typeof e === "object" && e !== null && "message" in e ? String(e.message) : JSON.stringify(e),
  );
  return `${message}: ${details.join("; ")}`;
}

function describeFailure(
  what: string,
  status: number | undefined,
  githubMessage: string | undefined,
  hasResponse: boolean,
): string {
  if (!hasResponse) {
    return `${what}: no answer from the GitHub API (${githubMessage ?? "network error"}).`;
  }
  const said = githubMessage === undefined ? "" : ` "${githubMessage}"`;
  const answered = `${what}: GitHub answered ${status}${said}.`;
  if ((status === 403 || status === 429) && /rate limit/i.test(githubMessage ?? "")) {
    return `${answered} The API rate limit was hit and the retries ran out; run the job again later.`;
  }
  if (status === 403 || status === 404) {
    return (
      `${answered} Writing check runs needs the token permission \`checks: write\`: add ` +
      "`permissions: { checks: write }` to the job (a GitHub App needs the Checks write permission). " +
      "On a pull request from a fork the GITHUB_TOKEN is read-only whatever the workflow asks for: use the " +
      "two-stage mode there (this workflow uploads the ledger artifact, and a `workflow_run` workflow on the " +
      "base repository posts it with `mode: report`)."
    );
  }
  return answered;
}

/** Writes one repository's check runs. Construct once per run; methods are independent calls. */
export class CheckRunClient {
  readonly #octokit: GateOctokit;
  readonly #owner: string;
  readonly #repo: string;
  readonly #warn: (message: string) => void;
  readonly #redact: (text: string) => string;
  readonly #now: () => Date;

  constructor(options: CheckRunClientOptions) {
    this.#octokit = options.octokit;
    this.#owner = options.owner;
    this.#repo = options.repo;
    this.#warn = options.warn ?? ((message) => console.warn(message));
    this.#redact = options.redact ?? ((text) => text);
    this.#now = options.now ?? (() => new Date());
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
        const made = await this.#find(
          input.name,
          input.headSha,
          (run) => run.externalId === input.externalId,
          { filter: "all" },
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
    const [first = [], ...rest] = batches(input.annotations ?? []);
    const output = this.#output(input);
    const ref = await this.#patch("complete", id, {
      status: "completed" as const,
      conclusion: input.conclusion,
      completed_at: githubTimestamp(this.#now()),
      output: first.length === 0 ? output : { ...output, annotations: first.map((a) => this.#annotation(a)) },
      ...(input.externalId === undefined ? {} : { external_id: input.externalId }),
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
    for (const batch of rest) {
      await this.#patch("annotate", id, {
        output: {
          title: output.title,
          summary: output.summary,
          annotations: batch.map((a) => this.#annotation(a)),
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
    return {
      id: data.id,
      htmlUrl: data.html_url,
      status: data.status,
      conclusion: data.conclusion,
      externalId: data.external_id,
      appId: data.app?.id ?? null,
      summary: data.output?.summary ?? null,
      annotationsCount: data.output?.annotations_count ?? 0,
    };
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
    return this.#find(
      input.name,
      input.headSha,
      (run) => input.appId === undefined || run.appId === input.appId,
      { filter: "latest", ...(input.appId === undefined ? {} : { app_id: input.appId }) },
    );
  }

  /**
   * The check run a new run on `headSha` takes over instead of creating a second one (SPEC §6: "a re-run
   * finds the existing check run by name and head SHA … and updates it"), or `undefined` when a new one
   * must be created. It is the newest check run named `name` whose `external_id` is an evidence-gate run
   * id (`YYYYMMDD-HHMMSS-<6 hex>`) — that test keeps a same-named check run evidence-gate did not create
   * (GitHub's own check run for a job called like the check, another tool's) out of reach. It is taken over
   * even when it carries annotations: GitHub appends annotations and offers no way to remove them, so the
   * caller says in the new run's summary that those marks are an earlier run's (`annotationsCount`).
   *
   * Re-runs: every leg mints a new run id, so "Re-run jobs" (same `GITHUB_RUN_ID`, next
   * `GITHUB_RUN_ATTEMPT`), a new workflow run on the same commit (`reopened`, a manual dispatch) and a
   * second workflow naming the same check all land on this one check run; `external_id` then names the
   * newest run, which is how the post step of an older one knows it was taken over.
   */
  async findReusable(input: {
    readonly name: string;
    readonly headSha: string;
  }): Promise<ExistingCheckRun | undefined> {
    const newest = await this.#find(
      input.name,
      input.headSha,
      (run) => run.externalId !== null && isRunId(run.externalId),
      { filter: "all" },
    );
    return newest;
  }

  /**
   * The newest check run named `name` on `headSha` that `accept`s, among the first 100 GitHub lists for
   * `filter` (`all`: every run; `latest`: the newest per app and name) and `app_id`.
   */
  async #find(
    name: string,
    headSha: string,
    accept: (run: ExistingCheckRun) => boolean,
    filters: { readonly filter: "all" | "latest"; readonly app_id?: number },
  ): Promise<ExistingCheckRun | undefined> {
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
      .map(
        (run): ExistingCheckRun => ({
          id: run.id,
          htmlUrl: run.html_url,
          status: run.status,
          conclusion: run.conclusion,
          externalId: run.external_id,
          appId: run.app?.id ?? null,
          summary: run.output?.summary ?? null,
          annotationsCount: run.output?.annotations_count ?? 0,
        }),
      )
      .filter(accept)
      .sort((a, b) => b.id - a.id)[0];
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
      const error = cause as RequestErrorLike & { request?: { method?: string; url?: string } };
      const hasResponse = error?.response !== undefined;
      const status = typeof error?.status === "number" && hasResponse ? error.status : undefined;
      const githubMessage =
        githubMessageOf(cause) ?? (typeof error?.message === "string" ? error.message : undefined);
      const [method = "", path = ""] = route.split(" ");
      throw new CheckRunWriteError({
        message: describeFailure(what, status, githubMessage, hasResponse),
        status,
        request: {
          operation,
          method: error?.request?.method ?? method,
          url: error?.request?.url ?? path,
          body,
        },
        githubMessage,
        cause,
      });
    }
  }

  #output(input: UpdateCheckRunInput): { title: string; summary: string; text?: string } {
    return {
      title: clampCheckRunTitle(this.#redact(input.title)),
      summary: this.#fit("summary", this.#redact(input.summary)),
      ...(input.text === undefined ? {} : { text: this.#fit("text", this.#redact(input.text)) }),
    };
  }

  /** GitHub's annotation object: redacted, cut to its limits, columns only on one line. */
  #annotation(a: CheckRunAnnotation): Record<string, unknown> {
    const oneLine = a.startLine === a.endLine;
    const cut = (text: string) =>
      truncateUtf8(this.#redact(text), ANNOTATION_TEXT_MAX_BYTES, "… (cut by evidence-gate: over 64 KB)");
    return {
      path: a.path,
      start_line: a.startLine,
      end_line: a.endLine,
      ...(oneLine && a.startColumn !== undefined ? { start_column: a.startColumn } : {}),
      ...(oneLine && a.endColumn !== undefined ? { end_column: a.endColumn } : {}),
      annotation_level: a.level,
      message: cut(a.message),
      ...(a.title === undefined ? {} : { title: clampCheckRunTitle(this.#redact(a.title)) }),
      ...(a.rawDetails === undefined ? {} : { raw_details: cut(a.rawDetails) }),
    };
  }

  /** The defensive byte cut; the ledger renderer should already have cut (and said where the rest is). */
  #fit(field: "summary" | "text", value: string): string {
    const bytes = utf8Bytes(value);
    if (bytes <= CHECK_RUN_TEXT_MAX_BYTES) return value;
    this.#warn(
      `check run output.${field} was ${bytes} bytes, over GitHub's ${CHECK_RUN_TEXT_MAX_BYTES}; cut here with a notice ` +
        "(the caller should have cut it with the ledger renderer).",
    );
    return truncateUtf8(value, CHECK_RUN_TEXT_MAX_BYTES, OVERSIZE_NOTICE);
  }

  #slug(): string {
    return `${this.#owner}/${this.#repo}`;
  }
}
