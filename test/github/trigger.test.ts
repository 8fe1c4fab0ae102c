/**
 * Which pull request a run gates, and whether it runs at all, for the triggers other than a plain
 * `pull_request` (SPEC §9, §10, §11): `resolveTrigger` in-process, with GitHub's own webhook example
 * payloads (test/support/scenarios/pr-heads.ts) read through `readEventContext` as the action reads them,
 * against the local GitHub server (every request and response held to GitHub's OpenAPI description).
 *
 * The decisions are here; test/e2e/action-triggers.test.ts runs one of each kind through `node dist/index.js`
 * (a refused comment, a writer's and a fork's accepted comment, a dispatch with `pr`, pull_request_target,
 * an unsupported event) and what the step then does with it. test/github/trigger-actions.test.ts holds the
 * `pull_request` actions.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { readEventContext } from "../../src/github/event-context.js";
import { createOctokit } from "../../src/github/octokit.js";
import {
  resolveTrigger,
  SUPPORTED_EVENTS,
  type Trigger,
  type TriggerInputs,
} from "../../src/github/trigger.js";
import {
  DEFAULT_REPOSITORY,
  type GitHubServer,
  startGitHubServer,
  TEST_TIMING,
} from "../support/github-server/index.js";
import { commentPayload, dispatchPayload, PR_NUMBER, pushPayload } from "../support/scenarios/pr-heads.js";

const HEAD = "a1".repeat(20);
const BASE = "b2".repeat(20);
const STALE = "c3".repeat(20);
const COMMENT_ID = 1_100_200_300;
const FORK = "contributor/widgets";
const POLICY = ".github/evidence-gate.yml";
const PERMISSION = "/repos/{owner}/{repo}/collaborators/{username}/permission";
const VERIFY: TriggerInputs = { mode: { kind: "verify" }, allowPullRequestTarget: false, allowedBots: [] };

const dir = mkdtempSync(join(tmpdir(), "eg-trigger-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: GitHubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A GitHub server holding pull request 42 (a fork's when `fork`), `maintainer` (write) and `reader` (read). */
async function github(o: { fork?: boolean; policy?: string } = {}): Promise<GitHubServer> {
  server = await startGitHubServer();
  server.state.addPullRequest({
    number: PR_NUMBER,
    headSha: HEAD,
    baseSha: BASE,
    title: "Fix sum()",
    body: "Please merge.",
    ...(o.fork ? { headRepository: FORK } : {}),
  });
  server.state.setCollaborator("maintainer", "write");
  server.state.setCollaborator("reader", "read");
  if (o.policy !== undefined) server.state.addFile({ ref: BASE, path: POLICY, content: o.policy });
  return server;
}

/** `resolveTrigger` for event `name` with `payload`, as the action calls it; the warnings it gave. */
async function decide(
  gh: GitHubServer,
  name: string,
  payload: Record<string, unknown>,
  inputs: Partial<TriggerInputs> = {},
): Promise<{ trigger: Trigger; warnings: string[] }> {
  const path = join(dir, `${name}-${Date.now()}-${Math.random()}.json`);
  writeFileSync(path, JSON.stringify(payload));
  const event = readEventContext({
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: path,
    GITHUB_REPOSITORY: DEFAULT_REPOSITORY,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: gh.url,
    GITHUB_RUN_ID: "7654321",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW: "evidence-gate",
    GITHUB_ACTOR: "mona",
    GITHUB_SHA: BASE,
    GITHUB_REF: "refs/heads/main",
  });
  const warnings: string[] = [];
  const trigger = await resolveTrigger({
    event,
    inputs: { ...VERIFY, ...inputs },
    warn: (m) => warnings.push(m),
    octokit: createOctokit({ token: "ghs_triggerTestToken", baseUrl: gh.url, timing: TEST_TIMING }),
  });
  return { trigger, warnings };
}

function reactions(gh: GitHubServer): string[] {
  return gh.state.reactions.map((r) => `${r.commentId}:${r.content}`);
}

/** A refusal before any check run: the step fails, nothing ran, and the text says `words`. */
function expectRefused(trigger: Trigger, words: string): void {
  expect(trigger.kind).toBe("refused");
  if (trigger.kind !== "refused") return;
  expect(`${trigger.title}\n${trigger.message}`).toContain(words);
  expect(trigger.message).toContain("Nothing ran; no check run was touched.");
}

describe("/evidence-gate run comments (SPEC §9, §11)", () => {
  it("a read-only user's command is refused after one permission lookup, with a -1 reaction", async () => {
    const gh = await github();
    const { trigger } = await decide(
      gh,
      "issue_comment",
      commentPayload({ body: "/evidence-gate run", login: "reader" }),
    );
    expectRefused(trigger, "reader's role on octo-org/widgets is read");
    expect(gh.callsTo("GET", PERMISSION)).toHaveLength(1);
    expect(reactions(gh)).toEqual([`${COMMENT_ID}:-1`]);
    gh.assertNoViolations();
  });

  it("a bot that is not allow-listed is refused; the same bot in allowed-bots runs, never looked up as a collaborator", async () => {
    const gh = await github();
    const payload = commentPayload({ body: "/evidence-gate run", login: "renovate[bot]", type: "Bot" });
    expectRefused(
      (await decide(gh, "issue_comment", payload)).trigger,
      "renovate[bot] is a bot, and bots may not start runs unless allow-listed",
    );
    const { trigger } = await decide(gh, "issue_comment", payload, { allowedBots: ["renovate[bot]"] });
    expect(trigger).toMatchObject({
      kind: "run",
      subject: { trigger: "issue_comment", number: PR_NUMBER, headSha: HEAD, checkoutHead: true },
    });
    expect(gh.callsTo("GET", PERMISSION)).toHaveLength(0);
    expect(reactions(gh)).toEqual([`${COMMENT_ID}:-1`, `${COMMENT_ID}:eyes`]);
    gh.assertNoViolations();
  });

  it("comment-commands: false in the base branch's policy refuses a writer's command", async () => {
    const gh = await github({ policy: "comment-commands: false\n" });
    const { trigger } = await decide(
      gh,
      "issue_comment",
      commentPayload({ body: "/evidence-gate run", login: "maintainer" }),
    );
    expectRefused(trigger, "sets comment-commands: false");
    gh.assertNoViolations();
  });

  it("on a fork's pull request the command must name the reviewed head: without @sha, or with a stale one, it is refused; with the current head it runs", async () => {
    const gh = await github({ fork: true });
    const comment = (body: string) => commentPayload({ body, login: "maintainer" });
    expectRefused(
      (await decide(gh, "issue_comment", comment("/evidence-gate run"))).trigger,
      `Comment \`/evidence-gate run @${HEAD.slice(0, 7)}\``,
    );
    expectRefused(
      (await decide(gh, "issue_comment", comment(`/evidence-gate run @${STALE.slice(0, 7)}`))).trigger,
      `pull request #${PR_NUMBER}'s head is now ${HEAD.slice(0, 7)}`,
    );
    const { trigger } = await decide(
      gh,
      "issue_comment",
      comment(`/evidence-gate run @${HEAD.slice(0, 10)}`),
    );
    expect(trigger).toMatchObject({
      kind: "run",
      subject: { headSha: HEAD, isFork: true, checkoutHead: true },
    });
    expect(reactions(gh)).toEqual([`${COMMENT_ID}:-1`, `${COMMENT_ID}:-1`, `${COMMENT_ID}:eyes`]);
    gh.assertNoViolations();
  });

  it("a plain comment and a command on an issue are nothing to do, with no API call at all", async () => {
    const gh = await github();
    for (const payload of [
      commentPayload({ body: "Looks good to me", login: "maintainer" }),
      commentPayload({ body: "/evidence-gate run", login: "maintainer", onPullRequest: false }),
    ]) {
      const { trigger } = await decide(gh, "issue_comment", payload);
      expect(trigger.kind).toBe("nothing");
      if (trigger.kind === "nothing") expect(trigger.message).toContain("nothing to do");
    }
    expect(gh.calls).toHaveLength(0);
  });
});

describe("workflow_dispatch, pull_request_target, other events (SPEC §10, §11)", () => {
  it("workflow_dispatch with pr runs on that pull request's head, read through the API; without pr it is a usage error naming the input", async () => {
    const gh = await github();
    const { trigger } = await decide(gh, "workflow_dispatch", dispatchPayload({ pr: String(PR_NUMBER) }));
    expect(trigger).toMatchObject({
      kind: "run",
      subject: { trigger: "workflow_dispatch", number: PR_NUMBER, headSha: HEAD, checkoutHead: true },
    });
    expect(gh.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")).toHaveLength(1);

    const without = (await decide(gh, "workflow_dispatch", dispatchPayload({}))).trigger;
    expect(without.kind).toBe("usage-error");
    if (without.kind === "usage-error") expect(without.message).toContain("`pr`");
    gh.assertNoViolations();
  });

  it("an unsupported event (push) is a usage error naming the supported ones, with no API call", async () => {
    const gh = await github();
    const { trigger } = await decide(gh, "push", pushPayload());
    expect(trigger).toEqual({
      kind: "usage-error",
      message: `evidence-gate runs on ${SUPPORTED_EVENTS}; this run was triggered by push.`,
    });
    expect(gh.calls).toHaveLength(0);
  });
});
