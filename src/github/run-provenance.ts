/**
 * Whether a pull request's workflow run ran the **base branch's** workflow definition (issue 22 item 1;
 * docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md). On `pull_request`, GitHub runs the
 * workflow file as the pull request's merge commit has it, so a pull request that edits that file (or a local
 * action or reusable workflow it uses, or the policy file) decides what its run uploads: its ledger is data
 * the pull request wrote, not evidence the gate produced. `mode: report` and the App post a ledger as a
 * verdict only when {@link checkRunProvenance} says `base`.
 *
 * Decided from GitHub's own data, never from the artifact:
 *
 * - the pull request: `workflow_run.pull_requests` when GitHub linked one (same repository), else — a fork's
 *   run, whose list is empty — the open pull requests whose head is `<head owner>:<head branch>`
 *   (`GET /repos/{o}/{r}/pulls?head=…`), kept only when their head repository and head SHA are the run's;
 * - what it changes: `GET /repos/{o}/{r}/pulls/{n}/files` (paginated, 100 a page; GitHub lists at most 3000
 *   files, so a listing that reaches 3000 is "unknown"), with renames' old names too;
 * - what the run used: the workflow file that ran (`workflow_run.path`), the policy file, and every local
 *   action (`uses: ./dir`: any file under it) and local reusable workflow (`uses: ./.github/workflows/x.yml`)
 *   that the **base's** copy of the workflow names — read through the contents API at the pull request's
 *   base SHA, following local actions' own `action.yml` and reusable workflows (at most
 *   {@link MAX_DEFINITION_FILES} files).
 *
 * https://docs.github.com/rest/pulls/pulls#list-pull-requests-files ;
 * https://docs.github.com/actions/writing-workflows/choosing-when-your-workflow-runs/events-that-trigger-workflows#pull_request
 */
import { posix } from "node:path";
import { parse as parseYaml } from "yaml";
import { POLICY_FILE } from "../policy/policy-file.js";
import { BaseRefReadError, readBaseRefFile, statusOf } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";
import type { WorkflowRunEvent } from "./workflow-run-event.js";

/** GitHub's cap on `GET /pulls/{n}/files`: "Responses include a maximum of 3000 files". */
export const PULL_REQUEST_FILES_CAP = 3000;

/** How many workflow and action files are read from the base to find local `uses:` (a bound, not a limit hit in practice). */
export const MAX_DEFINITION_FILES = 32;

/** One file of the workflow's definition the pull request changes. */
export interface RewrittenFile {
  /** The changed path (repository-relative). */
  readonly path: string;
  /** What it is to the run, plain text: `the workflow file that ran`, `the local action ./x it uses`, … */
  readonly role: string;
}

/** What {@link checkRunProvenance} found. */
export type RunProvenance =
  /** No pull request of the run changes any file of its definition: the base's workflow ran. */
  | { readonly kind: "base"; readonly pullRequests: readonly number[] }
  /** Pull request `pullRequest` changes `files`: its run decided what it uploaded. */
  | { readonly kind: "rewritten"; readonly pullRequest: number; readonly files: readonly RewrittenFile[] }
  /**
   * It could not be told (no open pull request has this head, over 3000 files, the base's workflow file
   * unreadable, an API refusal): never a verdict. `apiStatus` is the HTTP status of a refused call.
   */
  | { readonly kind: "unknown"; readonly reason: string; readonly apiStatus: number | null };

export interface RunProvenanceOptions {
  readonly octokit: GateOctokit;
  /** The repository the run ran in (the base repository). */
  readonly owner: string;
  readonly repo: string;
  /** The trusted `workflow_run` event. */
  readonly upstream: WorkflowRunEvent;
  /**
   * The commit the run pushed onto the pull request's branch, once GitHub showed it on top of the run's head
   * (`src/bot/pushed-commit.ts`): the pull request's head may be it rather than the run's head.
   */
  readonly pushedSha?: string;
}

interface PullRequestRef {
  readonly number: number;
  readonly baseSha: string;
  readonly baseRef: string;
}

class Unknown extends Error {
  constructor(
    message: string,
    readonly apiStatus: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Decides whether the run's workflow definition is the base branch's (see the module comment).
 * @returns `base`, `rewritten` (naming each changed file and its role), or `unknown` with the reason; never
 *   throws for GitHub's refusals (they are `unknown` with `apiStatus`).
 */
export async function checkRunProvenance(o: RunProvenanceOptions): Promise<RunProvenance> {
  try {
    const workflow = o.upstream.workflowPath;
    if (workflow === null || workflow === "") {
      throw new Unknown(`workflow run ${o.upstream.runId} names no workflow file (workflow_run.path)`);
    }
    const pulls = await pullRequestsOf(o);
    for (const pull of pulls) {
      const changed = await changedFiles(o, pull.number);
      const definition = await definitionOf(o, pull, workflowFile(workflow));
      const files = rewritten(changed, definition);
      if (files.length > 0) return { kind: "rewritten", pullRequest: pull.number, files };
    }
    return { kind: "base", pullRequests: pulls.map((p) => p.number) };
  } catch (error) {
    if (error instanceof Unknown)
      return { kind: "unknown", reason: error.message, apiStatus: error.apiStatus };
    throw error;
  }
}

/** `workflow_run.path` without a `@ref` suffix (GitHub adds one for some runs). */
function workflowFile(path: string): string {
  const at = path.indexOf("@");
  return at === -1 ? path : path.slice(0, at);
}

function apiRefusal(what: string, error: unknown): Unknown {
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return new Unknown(
    `${what} failed (${status === null ? "no answer" : `HTTP ${status}`}: ${message})`,
    status,
  );
}

/** The run's open pull requests whose head is the run's head commit (see the module comment). */
async function pullRequestsOf(o: RunProvenanceOptions): Promise<PullRequestRef[]> {
  const { upstream } = o;
  const found: PullRequestRef[] = [];
  const keep = (p: {
    number: number;
    head: { sha: string; repo: { full_name: string } | null };
    base: { sha: string; ref: string };
  }) => {
    const headRepository = p.head.repo?.full_name ?? null;
    const head = p.head.sha.toLowerCase();
    if (head !== upstream.headSha && head !== o.pushedSha?.toLowerCase()) return;
    if (headRepository === null || upstream.headRepository === null) return;
    if (headRepository.toLowerCase() !== upstream.headRepository.toLowerCase()) return;
    found.push({ number: p.number, baseSha: p.base.sha, baseRef: p.base.ref });
  };
  if (upstream.pullRequests.length > 0) {
    for (const number of upstream.pullRequests) {
      try {
        const { data } = await o.octokit.rest.pulls.get({
          owner: o.owner,
          repo: o.repo,
          pull_number: number,
        });
        keep(data);
      } catch (error) {
        throw apiRefusal(`reading pull request #${number}`, error);
      }
    }
  } else {
    if (upstream.headRepository === null || upstream.headBranch === null) {
      throw new Unknown(
        `workflow run ${upstream.runId} names no head repository or branch (the fork was deleted?), so its pull request cannot be found`,
      );
    }
    const headOwner = upstream.headRepository.split("/")[0]!;
    const head = `${headOwner}:${upstream.headBranch}`;
    try {
      for await (const page of o.octokit.paginate.iterator(o.octokit.rest.pulls.list, {
        owner: o.owner,
        repo: o.repo,
        state: "open",
        head,
        per_page: 100,
      })) {
        for (const p of page.data) keep(p);
      }
    } catch (error) {
      throw apiRefusal(`listing the open pull requests with head ${head}`, error);
    }
  }
  if (found.length === 0) {
    throw new Unknown(
      `no open pull request of ${o.owner}/${o.repo} has head ${upstream.headRepository ?? "(deleted)"}:${upstream.headBranch ?? "(none)"} at ${upstream.headSha}: it was closed, or its head moved on since this run (the newer head's run reports on that commit)`,
    );
  }
  return found;
}

/** Every path pull request `number` adds, changes, removes or renames (renames: both names). */
async function changedFiles(o: RunProvenanceOptions, number: number): Promise<Set<string>> {
  const paths = new Set<string>();
  let listed = 0;
  try {
    for await (const page of o.octokit.paginate.iterator(o.octokit.rest.pulls.listFiles, {
      owner: o.owner,
      repo: o.repo,
      pull_number: number,
      per_page: 100,
    })) {
      for (const f of page.data) {
        listed += 1;
        paths.add(f.filename);
        if (f.previous_filename !== undefined) paths.add(f.previous_filename);
      }
    }
  } catch (error) {
    throw apiRefusal(`listing pull request #${number}'s files`, error);
  }
  if (listed >= PULL_REQUEST_FILES_CAP) {
    throw new Unknown(
      `pull request #${number} changes ${PULL_REQUEST_FILES_CAP} files or more, and GitHub lists at most ${PULL_REQUEST_FILES_CAP}, so whether it changes the workflow that ran cannot be told`,
    );
  }
  return paths;
}

/** A file or folder of the run's definition: `exact` paths match one file, folders (`exact: false`) any file under them. */
interface DefinitionPart {
  readonly path: string;
  readonly exact: boolean;
  readonly role: string;
}

/**
 * The workflow file, the policy file, and every local action and reusable workflow the base's copy names,
 * followed through local actions' `action.yml` and reusable workflows (breadth first, bounded).
 */
async function definitionOf(
  o: RunProvenanceOptions,
  pull: PullRequestRef,
  workflow: string,
): Promise<DefinitionPart[]> {
  const parts: DefinitionPart[] = [
    { path: workflow, exact: true, role: "the workflow file that ran" },
    { path: POLICY_FILE, exact: true, role: "the policy file" },
  ];
  const queue: string[] = [workflow];
  const seen = new Set<string>([workflow]);
  let read = 0;
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (read >= MAX_DEFINITION_FILES) {
      throw new Unknown(
        `the workflow names more than ${MAX_DEFINITION_FILES} local workflow and action files; they were not all read`,
      );
    }
    read += 1;
    const text = await baseFile(o, pull, file);
    if (text === null) continue;
    for (const uses of localUses(text, file)) {
      if (seen.has(uses.path)) continue;
      seen.add(uses.path);
      if (uses.kind === "workflow") {
        parts.push({ path: uses.path, exact: true, role: `the reusable workflow ./${uses.path} it uses` });
        queue.push(uses.path);
        continue;
      }
      const root = uses.path === ".";
      parts.push({
        path: uses.path,
        exact: false,
        role: root
          ? "the repository's root action (uses: ./), which it uses"
          : `the local action ./${uses.path} it uses`,
      });
      const dir = root ? "" : `${uses.path}/`;
      queue.push(`${dir}action.yml`, `${dir}action.yaml`);
    }
  }
  return parts;
}

/** `path` at the pull request's base SHA, or `null` when the base has no such file (an added file is caught as changed). */
async function baseFile(o: RunProvenanceOptions, pull: PullRequestRef, path: string): Promise<string | null> {
  try {
    const file = await readBaseRefFile(
      o.octokit,
      { owner: o.owner, repo: o.repo, ref: pull.baseRef, sha: pull.baseSha },
      path,
      { maxBytes: 1024 * 1024 },
    );
    if (file.kind === "missing") return null;
    if (file.kind !== "file") {
      throw new Unknown(`the base's ${path} (at ${pull.baseSha}) cannot be read: ${file.kind}`);
    }
    return file.bytes.toString("utf8");
  } catch (error) {
    if (!(error instanceof BaseRefReadError)) throw error;
    throw new Unknown(
      `reading the base's ${path} at ${pull.baseSha} failed (${error.status === null ? "no answer" : `HTTP ${error.status}`}: ${error.message})`,
      error.status,
    );
  }
}

/**
 * The local `uses:` of a workflow or action file: `./…` values anywhere in it, repository-relative,
 * `workflow` when the path is a `.yml`/`.yaml` file under `.github/workflows/`, else an action folder.
 * @throws {Unknown} when the file is not YAML, or a local path leaves the repository.
 */
export function localUses(
  text: string,
  file: string,
): { readonly path: string; readonly kind: "workflow" | "action" }[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new Unknown(
      `the base's ${file} is not YAML (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
    );
  }
  const found: { path: string; kind: "workflow" | "action" }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "uses" && typeof value === "string" && value.trim().startsWith("./")) {
        const path = posix.normalize(value.trim().replace(/@.*$/, "")).replace(/\/+$/, "");
        if (path === ".." || path.startsWith("../")) {
          throw new Unknown(`the base's ${file} uses ${JSON.stringify(value)}, outside the repository`);
        }
        const workflow = path.startsWith(".github/workflows/") && /\.ya?ml$/.test(path);
        found.push({ path, kind: workflow ? "workflow" : "action" });
      } else {
        walk(value);
      }
    }
  };
  walk(doc);
  return found;
}

/** The definition parts `changed` touches, one entry per changed path, in the definition's order. */
function rewritten(changed: ReadonlySet<string>, definition: readonly DefinitionPart[]): RewrittenFile[] {
  const files: RewrittenFile[] = [];
  for (const part of definition) {
    for (const path of changed) {
      // `uses: ./` is the repository root as an action: every file is part of it.
      const hit = part.exact ? path === part.path : part.path === "." || path.startsWith(`${part.path}/`);
      if (hit && !files.some((f) => f.path === path)) files.push({ path, role: part.role });
    }
  }
  return files;
}
