/**
 * The runner's context as the action sees it: `GITHUB_*` variables and the webhook payload file.
 * The fixture is checked against GitHub's own webhook schema, so the parser is tested on the real shape.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EventContextError, readEventContext } from "../../src/github/event-context.js";
import { validateComponent } from "../support/github-server/index.js";

const FIXTURE = new URL("../fixtures/events/pull_request.opened.json", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "event-context-"));

/** The parts of the payload these tests edit. */
interface Payload {
  pull_request: {
    body: string | null;
    draft: boolean;
    head: { sha: string; repo: { full_name: string } | null };
    base: { ref?: string };
  };
}

function fixture(): Payload {
  return JSON.parse(readFileSync(FIXTURE, "utf8")) as Payload;
}

let files = 0;
function writePayload(payload: unknown): string {
  files += 1;
  const path = join(dir, `event-${files}.json`);
  writeFileSync(path, JSON.stringify(payload));
  return path;
}

function runnerEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: writePayload(fixture()),
    GITHUB_REPOSITORY: "octo-org/widgets",
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_API_URL: "https://api.github.com",
    GITHUB_RUN_ID: "13809471234",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW: "evidence",
    GITHUB_ACTOR: "mona",
    GITHUB_SHA: "b".repeat(40),
    ...overrides,
  };
}

function errorOf(env: Record<string, string | undefined>): EventContextError {
  try {
    readEventContext(env);
  } catch (error) {
    expect(error).toBeInstanceOf(EventContextError);
    return error as EventContextError;
  }
  throw new Error("expected readEventContext to throw");
}

describe("the pull_request fixture", () => {
  it("matches GitHub's webhook schema for pull_request opened (from the REST API description)", () => {
    expect(validateComponent("webhook-pull-request-opened", fixture())).toEqual([]);
  });

  it("the schema check can fail: a payload without pull_request.head.sha is rejected", () => {
    const payload = fixture() as unknown as { pull_request: { head: Record<string, unknown> } };
    delete payload.pull_request.head.sha;
    expect(validateComponent("webhook-pull-request-opened", payload)).toEqual([
      "webhook-pull-request-opened/pull_request/head: must have required property 'sha'",
    ]);
  });
});

describe("readEventContext: pull_request", () => {
  it("reads the PR's identity from a real-shaped pull_request.opened payload", () => {
    const context = readEventContext(runnerEnv());
    expect(context).toEqual({
      kind: "pull_request",
      owner: "octo-org",
      repo: "widgets",
      number: 42,
      headSha: "9f3c1e2d4b5a69788766554433221100ffeeddcc",
      headRef: "retry-exporter",
      headRepoFullName: "octo-org/widgets",
      baseSha: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
      baseRef: "main",
      title: "Add retry to the widget exporter",
      body: "Retries the export when the upstream API answers 503.\n\nCloses #41.",
      isFork: false,
      isDependabot: false,
      draft: false,
      action: "opened",
      author: { login: "mona", type: "User" },
      htmlUrl: "https://github.com/octo-org/widgets/pull/42",
      run: {
        serverUrl: "https://github.com",
        apiUrl: "https://api.github.com",
        runId: "13809471234",
        runAttempt: 1,
        workflow: "evidence",
        actor: "mona",
        sha: "b".repeat(40),
        runUrl: "https://github.com/octo-org/widgets/actions/runs/13809471234",
      },
    });
  });

  it("a head repository other than the base makes the PR a fork PR", () => {
    const payload = fixture();
    payload.pull_request.head.repo = { full_name: "mona/widgets" };
    const context = readEventContext(runnerEnv({ GITHUB_EVENT_PATH: writePayload(payload) }));
    expect(context).toMatchObject({ kind: "pull_request", isFork: true, headRepoFullName: "mona/widgets" });
  });

  it("the fork test reads repository ids when the payload has them: a renamed head repository with the base's id is no fork, another id under the base's name is one", () => {
    const payload = fixture() as unknown as {
      pull_request: {
        head: { repo: { id: number; full_name: string } };
        base: { repo: { id: number; full_name: string } };
      };
    };
    const baseId = payload.pull_request.base.repo.id;
    payload.pull_request.head.repo = {
      ...payload.pull_request.head.repo,
      id: baseId,
      full_name: "octo-org/widgets-old-name",
    };
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_PATH: writePayload(payload) }))).toMatchObject({
      isFork: false,
    });
    payload.pull_request.head.repo = {
      ...payload.pull_request.head.repo,
      id: baseId + 1,
      full_name: "octo-org/widgets",
    };
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_PATH: writePayload(payload) }))).toMatchObject({
      isFork: true,
    });
  });

  it("a deleted head repository (head.repo null) counts as a fork PR", () => {
    const payload = fixture();
    payload.pull_request.head.repo = null;
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_PATH: writePayload(payload) }))).toMatchObject({
      isFork: true,
      headRepoFullName: null,
    });
  });

  it("a null body reads as empty text, and a draft is reported", () => {
    const payload = fixture();
    payload.pull_request.body = null;
    payload.pull_request.draft = true;
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_PATH: writePayload(payload) }))).toMatchObject({
      body: "",
      draft: true,
    });
  });

  it("a run triggered by Dependabot is flagged (read-only token, no secrets)", () => {
    expect(readEventContext(runnerEnv({ GITHUB_ACTOR: "dependabot[bot]" }))).toMatchObject({
      isDependabot: true,
    });
  });

  it("pull_request_target is its own kind, never mistaken for pull_request", () => {
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_NAME: "pull_request_target" })).kind).toBe(
      "pull_request_target",
    );
  });
});

describe("readEventContext: other events", () => {
  it("any other event yields kind other with its name and raw payload", () => {
    const path = writePayload({ ref: "refs/heads/main", after: "c".repeat(40) });
    expect(readEventContext(runnerEnv({ GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: path }))).toMatchObject(
      {
        kind: "other",
        eventName: "push",
        owner: "octo-org",
        repo: "widgets",
        payload: { ref: "refs/heads/main" },
      },
    );
  });

  it("without GITHUB_EVENT_PATH another event still reads, with a null payload", () => {
    expect(
      readEventContext(runnerEnv({ GITHUB_EVENT_NAME: "workflow_dispatch", GITHUB_EVENT_PATH: undefined })),
    ).toMatchObject({
      kind: "other",
      payload: null,
    });
  });
});

describe("readEventContext: errors name the variable at fault", () => {
  it("every missing or malformed variable is reported at once, each by name", () => {
    const error = errorOf(
      runnerEnv({
        GITHUB_EVENT_NAME: undefined,
        GITHUB_REPOSITORY: "widgets",
        GITHUB_RUN_ID: "abc",
        GITHUB_API_URL: "not a url",
      }),
    );
    expect(error.issues.map((i) => i.variable)).toEqual([
      "GITHUB_EVENT_NAME",
      "GITHUB_REPOSITORY",
      "GITHUB_RUN_ID",
      "GITHUB_API_URL",
    ]);
    expect(error.message).toContain('- GITHUB_REPOSITORY: expected OWNER/NAME, got "widgets"');
  });

  it("an unreadable event file names GITHUB_EVENT_PATH and the path", () => {
    const error = errorOf(runnerEnv({ GITHUB_EVENT_PATH: join(dir, "missing.json") }));
    expect(error.issues).toEqual([
      { variable: "GITHUB_EVENT_PATH", message: `cannot read ${join(dir, "missing.json")} (ENOENT)` },
    ]);
  });

  it("a pull_request payload with a malformed field names GITHUB_EVENT_PATH and the field", () => {
    const payload = fixture();
    payload.pull_request.head.sha = "main";
    delete payload.pull_request.base.ref;
    const path = writePayload(payload);
    const error = errorOf(runnerEnv({ GITHUB_EVENT_PATH: path }));
    expect(error.issues.map((i) => i.message)).toEqual([
      `${path}: pull_request.head.sha: expected a 40-hex commit SHA`,
      expect.stringMatching(new RegExp(`^${path}: pull_request\\.base\\.ref: `)),
    ]);
  });

  it("a pull_request event without GITHUB_EVENT_PATH is refused, naming the variable", () => {
    expect(errorOf(runnerEnv({ GITHUB_EVENT_PATH: undefined })).issues).toEqual([
      { variable: "GITHUB_EVENT_PATH", message: "not set; a pull_request event needs its webhook payload" },
    ]);
  });

  it("a payload for another repository than GITHUB_REPOSITORY is refused", () => {
    expect(errorOf(runnerEnv({ GITHUB_REPOSITORY: "octo-org/gadgets" })).issues[0]?.variable).toBe(
      "GITHUB_REPOSITORY",
    );
  });
});
