/**
 * Which `pull_request` actions run (SPEC §11; GitHub Docs, "Events that trigger workflows"): the decision
 * `resolveTrigger` makes from the payload, for every action the event carries. The action end to end
 * (test/e2e/action-triggers.test.ts) runs one action of each kind through `node dist/index.js`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEventContext } from "../../src/github/event-context.js";
import { createOctokit } from "../../src/github/octokit.js";
import { PULL_REQUEST_RUN_ACTIONS, resolveTrigger } from "../../src/github/trigger.js";

const FIXTURE = new URL("../fixtures/events/pull_request.opened.json", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "trigger-actions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function decide(action: string) {
  const payload = JSON.parse(readFileSync(FIXTURE, "utf8")) as { action: string };
  payload.action = action;
  const path = join(dir, `${action}.json`);
  writeFileSync(path, JSON.stringify(payload));
  const event = readEventContext({
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: path,
    GITHUB_REPOSITORY: "octo-org/widgets",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: "https://api.github.invalid",
    GITHUB_RUN_ID: "13809471234",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW: "evidence",
    GITHUB_ACTOR: "mona",
    GITHUB_SHA: "b".repeat(40),
  });
  const warnings: string[] = [];
  // A pull_request decision reads only the payload: an API call would fail on the .invalid host.
  const octokit = createOctokit({ token: "unused", baseUrl: "https://api.github.invalid" });
  const trigger = await resolveTrigger({
    event,
    inputs: { mode: { kind: "verify" }, allowPullRequestTarget: false, allowedBots: [] },
    warn: (m) => warnings.push(m),
    octokit,
  });
  return { trigger, warnings };
}

describe("which pull_request actions run (SPEC §11)", () => {
  it.each([...PULL_REQUEST_RUN_ACTIONS])("%s runs on the payload's pull request and head", async (action) => {
    const { trigger, warnings } = await decide(action);
    expect(trigger.kind).toBe("run");
    if (trigger.kind !== "run") return;
    expect(trigger.subject).toMatchObject({ trigger: "pull_request", checkoutHead: false, number: 42 });
    expect(trigger.subject.headSha).toMatch(/^[0-9a-f]{40}$/);
    expect(warnings).toEqual([]);
  });

  it.each(["labeled", "unlabeled", "edited", "converted_to_draft", "closed", "assigned", "review_requested"])(
    "%s is nothing to do, and says so naming the actions that run",
    async (action) => {
      const { trigger } = await decide(action);
      expect(trigger).toEqual({
        kind: "nothing",
        message: `pull_request ${action}: nothing to do (evidence-gate runs on opened, synchronize, reopened, ready_for_review); no check run was touched`,
      });
    },
  );
});
