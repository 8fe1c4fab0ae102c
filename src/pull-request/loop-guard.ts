/**
 * The push loop guard (SPEC §10 "Push"): a commit that push mode made carries the trailer
 * `Evidence-Gate-Run: <run id>`. When a push token that starts workflows pushed it, GitHub triggers the
 * workflow again (`push`, or `pull_request` `synchronize`); that run must do nothing — no model call, no
 * check run touched (the pushing run already posted the verdict on that commit) — and say so.
 *
 * The head commit's message comes from the `push` payload (`head_commit.message`), or for `synchronize` from
 * the checkout (`git cat-file`) when it holds the commit, else from the API (`GET
 * /repos/{owner}/{repo}/git/commits/{sha}`). A message that cannot be read is a warning and the run goes on:
 * the guard only ever stops runs, it never widens one.
 */
import { z } from "zod";
import type { EventContext } from "../github/event-context.js";
import { writeJobSummary } from "../github/job-summary.js";
import { apiUrlFromEnv, createOctokit } from "../github/octokit.js";
import { GitError, git } from "../proc/git.js";
import type { Runner } from "./runner.js";

/** The trailer key push mode writes on its commits (`finish-run.ts` writes `Evidence-Gate-Run: <run id>`). */
export const RUN_TRAILER_KEY = "Evidence-Gate-Run";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The run id in `message`'s `Evidence-Gate-Run:` trailer, or `null`. Trailers are `Key: value` lines in the
 * message's last paragraph (git-interpret-trailers); the key is matched case-insensitively, as git does.
 */
export function runTrailerOf(message: string): string | null {
  const paragraphs = message
    .replace(/\r\n/g, "\n")
    .trimEnd()
    .split(/\n[ \t]*\n/);
  if (paragraphs.length < 2) return null;
  const last = paragraphs.at(-1) ?? "";
  for (const line of last.split("\n")) {
    const match = /^Evidence-Gate-Run:[ \t]*(\S+)[ \t]*$/i.exec(line);
    if (match !== null) return match[1]!;
  }
  return null;
}

const pushPayload = z.object({
  head_commit: z.object({ id: z.string(), message: z.string() }).nullable().optional(),
});

/** The triggering head commit's SHA and message, when this trigger can be a push mode's own push. */
async function headCommitOf(
  env: Env,
  event: EventContext,
  token: string | undefined,
): Promise<{ readonly sha: string; readonly message: string } | null> {
  if (event.kind === "other") {
    if (event.eventName !== "push") return null;
    const parsed = pushPayload.safeParse(event.payload);
    const head = parsed.success ? parsed.data.head_commit : null;
    return head ? { sha: head.id, message: head.message } : null;
  }
  if (event.kind !== "pull_request" || event.action !== "synchronize") return null;
  const sha = event.headSha;
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
  try {
    const raw = await git(["cat-file", "commit", sha], { cwd: workspace, baseEnv: env });
    const at = raw.indexOf("\n\n");
    return { sha, message: at < 0 ? "" : raw.slice(at + 2) };
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
  }
  if (token === undefined || token === "") return null;
  const octokit = createOctokit({ token, baseUrl: apiUrlFromEnv(env) });
  const { data } = await octokit.rest.git.getCommit({
    owner: event.owner,
    repo: event.repo,
    commit_sha: sha,
  });
  return { sha, message: data.message };
}

/**
 * Stops the run when its trigger is push mode's own push: writes the job summary and a notice, sets
 * no output (SPEC §10 has no outcome for "nothing ran"; like any other "nothing to do" trigger), and touches no check run. `token` reads the head commit through the API when the
 * checkout does not hold it.
 *
 * @returns true when the run was stopped (the caller returns at once).
 */
export async function stopOnOwnPush(
  runner: Runner,
  env: Env,
  event: EventContext,
  token: string | undefined,
): Promise<boolean> {
  let head: Awaited<ReturnType<typeof headCommitOf>>;
  try {
    head = await headCommitOf(env, event, token);
  } catch (error) {
    runner.warning(
      `loop guard: could not read the head commit's message (${error instanceof Error ? error.message : String(error)}); the run goes on`,
    );
    return false;
  }
  const runId = head === null ? null : runTrailerOf(head.message);
  if (head === null || runId === null) return false;
  const message = `The head commit ${head.sha.slice(0, 7)} carries \`${RUN_TRAILER_KEY}: ${runId}\`: evidence-gate run ${runId} pushed it and posted its verdict on it. This run does nothing (loop guard): no model call, no check run.`;
  await writeJobSummary(`## evidence-gate: nothing to do\n\n${message}\n`, { env });
  runner.notice(`evidence-gate: ${message}`);
  return true;
}
