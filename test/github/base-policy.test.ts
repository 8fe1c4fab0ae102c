/**
 * The maintainers' policy file read from the pull request's base ref (SPEC §9, §11; src/github/base-policy.ts)
 * in-process, against the local GitHub server (every request and response held to GitHub's OpenAPI
 * description): what a malformed file, a refused read and a pull request's own copy come to.
 *
 * test/e2e/action-policy.test.ts runs the bundled action on a base policy that requires evidence, gives the
 * verify command, or is absent while the pull request adds one — and what the step does with each.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PolicyReadError, prCopyNote, readBaseRefPolicy } from "../../src/github/base-policy.js";
import { createOctokit } from "../../src/github/octokit.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const POLICY = ".github/evidence-gate.yml";
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const FROM_BASE = `${POLICY} (base ref main, commit ${BASE_SHA.slice(0, 7)})`;
const TARGET = { owner: "octo-org", repo: "widgets", ref: "main", sha: BASE_SHA };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
let server: GitHubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The GitHub server with `content` as the policy file at the base SHA (none when null), and a client of it. */
async function github(content: string | null) {
  server = await startGitHubServer();
  if (content !== null) server.state.addFile({ ref: BASE_SHA, path: POLICY, content });
  return {
    gh: server,
    octokit: createOctokit({ token: "ghs_policyTestToken", baseUrl: server.url, timing: TEST_TIMING }),
  };
}

/** A checkout whose policy file holds `content` (none when null). */
function checkout(content: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-base-policy-"));
  dirs.push(dir);
  if (content !== null) {
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, POLICY), content);
  }
  return dir;
}

describe("readBaseRefPolicy", () => {
  it("a malformed policy is an error naming the file on the base ref, the unknown key and the known ones", async () => {
    const { gh, octokit } = await github("require-evidence: true\nrequire_evidence: false\n");
    const base = await readBaseRefPolicy(octokit, TARGET);
    expect(base.result.ok).toBe(false);
    const errors = base.result.ok ? [] : base.result.errors.join("\n");
    expect(errors).toContain(`${FROM_BASE}: unknown key "require_evidence"`);
    expect(errors).toContain("the known keys are require-evidence, verify-cmd, planned-tools");
    expect(gh.calls.map((c) => `${c.method} ${c.path}?ref=${c.query.ref} ${c.status}`)).toEqual([
      `GET /repos/octo-org/widgets/contents/${POLICY}?ref=${BASE_SHA} 200`,
    ]);
    gh.assertNoViolations();
  });

  it("a 403 is a PolicyReadError naming the file, the status and contents: read — never the defaults", async () => {
    const { gh, octokit } = await github("require-evidence: true\n");
    gh.failNext({ method: "GET", pathPattern: "/repos/{owner}/{repo}/contents/{path}", status: 403 });
    const error = await readBaseRefPolicy(octokit, TARGET).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PolicyReadError);
    expect((error as PolicyReadError).status).toBe(403);
    expect((error as PolicyReadError).message).toContain(
      `could not read ${FROM_BASE} through the API (HTTP 403`,
    );
    expect((error as PolicyReadError).message).toContain("contents: read");
    // Not retried: a refused read is reported.
    expect(gh.calls).toHaveLength(1);
  });

  it("no file on the base ref (404) is the defaults, with no bytes to compare", async () => {
    const { gh, octokit } = await github(null);
    const base = await readBaseRefPolicy(octokit, TARGET);
    expect(base.result).toMatchObject({ ok: true, source: { kind: "none" } });
    expect(base.bytes).toBeNull();
    expect(gh.calls.map((c) => c.status)).toEqual([404]);
  });
});

describe("prCopyNote: the pull request's own copy is compared, never read for its values", () => {
  it("a copy saying require-evidence: false beside the base's true: ignored, and the note names the base ref", async () => {
    const { octokit } = await github("require-evidence: true\n");
    const base = await readBaseRefPolicy(octokit, TARGET);
    expect(base.result).toMatchObject({ ok: true, policy: { requireEvidence: true } });
    expect(await prCopyNote(checkout("require-evidence: false\nverify-cmd: 'true'\n"), base)).toBe(
      `This pull request's copy of ${POLICY} differs from the base ref's and was ignored: the policy comes from ${FROM_BASE}. A change to the policy takes effect once it is merged.`,
    );
  });

  it("the same bytes as the base's: no note", async () => {
    const { octokit } = await github("require-evidence: true\n");
    const base = await readBaseRefPolicy(octokit, TARGET);
    expect(await prCopyNote(checkout("require-evidence: true\n"), base)).toBeNull();
  });
});
