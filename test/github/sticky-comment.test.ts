/**
 * The sticky PR comment (SPEC §11) against the OpenAPI-validating GitHub server: created once, then
 * updated in place; found on a later page of the comment list; a person's comment carrying the marker is
 * never taken for ours; a refused write is a `StickyCommentError` naming the permission; secrets and PR
 * text never reach the body unredacted or unescaped.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NOTHING_SPENT } from "../../src/core/ledger-row.js";
import { createRedactor } from "../../src/core/redact.js";
import { createOctokit } from "../../src/github/octokit.js";
import { StickyCommentError, upsertStickyComment } from "../../src/github/sticky-comment.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { commentMarker, renderCommentBody } from "../../src/ledger/render-comment.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const PR = 7;
const SECRET = "sk-ant-stickyCommentSecret-000000000000";
let github: GitHubServer;

beforeEach(async () => {
  github = await startGitHubServer();
  github.state.addPullRequest({
    number: PR,
    headSha: "a".repeat(40),
    baseSha: "b".repeat(40),
  });
});
afterEach(async () => {
  github.assertNoViolations();
  await github.close();
});

const target = () => ({
  octokit: createOctokit({ token: "ghs_test", baseUrl: github.url, timing: TEST_TIMING }),
  owner: "octo-org",
  repo: "widgets",
  issueNumber: PR,
});
const marker = commentMarker("evidence-gate");
const upsert = (body: string) =>
  upsertStickyComment({
    ...target(),
    marker,
    body: `${marker}\n${body}`,
    redact: createRedactor([SECRET]).text,
  });

describe("upsertStickyComment", () => {
  it("creates the comment on the first run and updates the same one on the second (no second create)", async () => {
    const first = await upsert("run one");
    const second = await upsert("run two");
    expect(first.action).toBe("created");
    expect(second).toMatchObject({ action: "updated", id: first.id });
    expect(github.callsTo("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments")).toHaveLength(1);
    expect(github.callsTo("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}")).toHaveLength(1);
    expect(github.state.comments.map((c) => c.body)).toEqual([`${marker}\nrun two`]);
  });

  it("finds its marker on page 2 of the comments, and ignores a person's comment that pastes the marker", async () => {
    github.state.addComment({
      issueNumber: PR,
      body: `${marker}\nplanted by a person`,
      user: { login: "mallory", id: 666, type: "User" },
    });
    for (let i = 0; i < 120; i++)
      github.state.addComment({
        issueNumber: PR,
        body: `chatter ${i}`,
        user: { login: "dev", id: 5, type: "User" },
      });
    const ours = github.state.addComment({ issueNumber: PR, body: `${marker}\nold ledger` });
    const ref = await upsert("new ledger");
    expect(ref).toMatchObject({ action: "updated", id: ours.id });
    const lists = github.callsTo("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments");
    expect(lists.map((c) => c.query.page ?? "1")).toEqual(["1", "2"]);
    expect(github.state.comments.find((c) => c.user.login === "mallory")?.body).toBe(
      `${marker}\nplanted by a person`,
    );
    expect(github.callsTo("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments")).toHaveLength(0);
  });

  it("a 403 on the write is a StickyCommentError that names pull-requests: write", async () => {
    github.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      status: 403,
    });
    const error = await upsert("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StickyCommentError);
    expect((error as StickyCommentError).status).toBe(403);
    expect((error as Error).message).toContain("`pull-requests: write`");
    expect(github.state.comments).toHaveLength(0);
  });

  it("redacts known secrets from the body before it is sent", async () => {
    await upsert(`the key is ${SECRET}`);
    const sent = github.callsTo("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments")[0]!.body as {
      body: string;
    };
    expect(sent.body).not.toContain(SECRET);
    expect(sent.body).toContain("the key is ***");
  });
});

describe("renderCommentBody", () => {
  const row = { ...NOTHING_SPENT, sink: true, detail: "" };
  const ledger = {
    rows: [
      { ...row, nodeId: "build", verdict: "PASS", qualifier: "verified" },
      { ...row, nodeId: "lint", verdict: "PASS", qualifier: "self-reported" },
      { ...row, nodeId: "lint", verdict: "PASS", qualifier: "verified" },
      {
        ...row,
        nodeId: "x|<img src=x>",
        verdict: "FAIL",
        cause: "verify_failed",
        detail: "exit 1 <!-- hidden --> **bold**",
      },
      { ...row, nodeId: "docs", verdict: "SKIPPED", reason: "an ancestor failed" },
    ],
    conclusion: {
      conclusion: "failure",
      outcome: "failed",
      rule: "node-failed",
      title: "1 node <b>failed</b>",
      reason: "",
    },
  } as unknown as Ledger;

  it("starts with the marker, gives counts, the qualifier tally, each non-PASS row escaped, and the check run link", () => {
    const body = renderCommentBody(ledger, {
      checkName: "evidence-gate",
      checkRunUrl: "https://github.com/o/r/runs/1",
    });
    expect(body.startsWith("<!-- evidence-gate:evidence-gate -->\n")).toBe(true);
    expect(body).toContain("`failure`");
    expect(body).toContain("**3 passed · 1 failed · 1 skipped**");
    expect(body).toContain("PASS: 2 verified, 1 self-reported");
    expect(body).toContain("| docs | SKIPPED | an ancestor failed |");
    expect(body).toContain("[The whole ledger is on the check run](https://github.com/o/r/runs/1)");
    // Untrusted text cannot open HTML, a comment (a second marker) or a table cell.
    expect(body).not.toMatch(/<img|<!-- hidden|<b>/);
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body).toContain("x\\|&lt;img");
    expect(body).not.toContain("| build |");
  });

  it("keeps a check name from closing the marker early", () => {
    expect(commentMarker("a --> b")).toBe("<!-- evidence-gate:a _-_ b -->");
  });
});
