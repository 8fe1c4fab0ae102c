/**
 * A check run as GitHub returns it, in the fields the client keeps (the REST API's check-run object:
 * https://docs.github.com/en/rest/checks/runs), and the conclusions an integration may set.
 */

/** The conclusions an integration may set (GitHub sets `stale` itself). */
export type CheckRunConclusion =
  | "success"
  | "failure"
  | "neutral"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "action_required";

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

/** The fields of GitHub's check-run object that {@link ExistingCheckRun} keeps. */
export interface CheckRunData {
  readonly id: number;
  readonly html_url: string | null;
  readonly status: ExistingCheckRun["status"];
  readonly conclusion: string | null;
  readonly external_id: string | null;
  readonly app?: { readonly id?: number } | null;
  readonly output?: { readonly summary?: string | null; readonly annotations_count?: number } | null;
}

/** The {@link ExistingCheckRun} of a check-run object the API returned. */
export function existingCheckRunOf(data: CheckRunData): ExistingCheckRun {
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
