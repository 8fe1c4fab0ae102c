/**
 * `mode: resume` finds an earlier run's directory artifact through the REST API and downloads it (SPEC §4,
 * §11), against the local GitHub server (every request and response held to GitHub's description): the
 * newest usable artifact of the exact name, never a fork's; the download's redirect taken without the
 * token; size and digest enforced.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOctokit, type GateOctokit } from "../../src/github/octokit.js";
import {
  downloadRunArtifact,
  findRunArtifact,
  type RunArtifact,
  RunArtifactError,
} from "../../src/github/run-artifact-download.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";
import { buildZip } from "../support/zip-builder.js";

const TOKEN = "ghs_downloadTestToken";
const NAME = "evidence-gate-run-20250101-000000-abcdef";
const HEAD = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const TARGET = { owner: "octo-org", repo: "widgets", name: NAME };
const LIST = "/repos/{owner}/{repo}/actions/artifacts";
const DOWNLOAD = "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}";

let github: GitHubServer;
let octokit: GateOctokit;

beforeEach(async () => {
  github = await startGitHubServer({ token: TOKEN });
  octokit = createOctokit({ token: TOKEN, baseUrl: github.url, timing: TEST_TIMING });
});
afterEach(async () => {
  github.assertNoViolations();
  await github.close();
});

const zip = (text: string) => buildZip([{ name: "state.json", content: text }]);

describe("findRunArtifact", () => {
  it("picks the newest non-expired artifact of exactly that name, skipping expired ones and a fork's upload of the same name", async () => {
    github.state.addArtifact({
      name: NAME,
      zip: zip("old"),
      headSha: HEAD,
      createdAt: "2025-01-01T00:00:00Z",
    });
    const wanted = github.state.addArtifact({
      name: NAME,
      zip: zip("new"),
      headSha: HEAD,
      createdAt: "2025-01-02T00:00:00Z",
    });
    github.state.addArtifact({
      name: NAME,
      zip: zip("gone"),
      headSha: HEAD,
      expired: true,
      createdAt: "2025-01-03T00:00:00Z",
    });
    const fork = github.state.addArtifact({
      name: NAME,
      zip: zip("forged"),
      headSha: HEAD,
      fromFork: true,
      createdAt: "2025-01-04T00:00:00Z",
    });
    github.state.addArtifact({ name: `${NAME}-other`, zip: zip("x"), headSha: HEAD });

    const found = await findRunArtifact(octokit, TARGET);

    expect(found.artifact).toMatchObject({
      id: wanted.id,
      name: NAME,
      headSha: HEAD,
      workflowRunId: wanted.workflowRun.id,
      digest: wanted.digest,
    });
    expect(found.skipped).toEqual([
      `artifact ${fork.id} was uploaded by a workflow run of a fork (workflow run ${fork.workflowRun.id})`,
      expect.stringMatching(/has expired$/),
    ]);
    expect(github.callsTo("GET", LIST)[0]!.query).toMatchObject({ name: NAME, per_page: "100" });
  });

  it("no artifact of that name is no artifact (not an error)", async () => {
    expect(await findRunArtifact(octokit, TARGET)).toEqual({ artifact: null, skipped: [] });
  });

  it("a refused listing (403) is a RunArtifactError naming the permission actions: read", async () => {
    github.failNext({ method: "GET", pathPattern: LIST, status: 403 });
    const error = await findRunArtifact(octokit, TARGET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunArtifactError);
    expect((error as RunArtifactError).status).toBe(403);
    expect((error as Error).message).toContain("`actions: read`");
  });
});

describe("downloadRunArtifact", () => {
  async function found(): Promise<RunArtifact> {
    const result = await findRunArtifact(octokit, TARGET);
    return result.artifact!;
  }

  it("follows the 302 to the storage URL without the token and returns the zip", async () => {
    const stored = github.state.addArtifact({ name: NAME, zip: zip("{}"), headSha: HEAD });
    const bytes = await downloadRunArtifact({
      octokit,
      owner: "octo-org",
      repo: "widgets",
      artifact: await found(),
    });
    expect(bytes.equals(stored.zip)).toBe(true);
    const api = github.callsTo("GET", DOWNLOAD);
    expect(api.map((c) => [c.status, c.authorization])).toEqual([[302, `token ${TOKEN}`]]);
    expect(github.blobRequests).toEqual([
      { method: "GET", path: `/_artifact-blobs/${stored.id}.zip`, status: 200, authorization: undefined },
    ]);
  });

  it("bytes that do not match the listed sha256 digest are refused", async () => {
    github.state.addArtifact({
      name: NAME,
      zip: zip("{}"),
      headSha: HEAD,
      digest: `sha256:${"0".repeat(64)}`,
    });
    await expect(
      downloadRunArtifact({ octokit, owner: "octo-org", repo: "widgets", artifact: await found() }),
    ).rejects.toThrow(/does not match its digest/);
  });

  it("an artifact listed over the limit is refused before any download; one that streams over it is cut off", async () => {
    github.state.addArtifact({ name: NAME, zip: zip("x".repeat(5000)), headSha: HEAD, digest: null });
    const artifact = await found();
    await expect(
      downloadRunArtifact({ octokit, owner: "octo-org", repo: "widgets", artifact, maxBytes: 100 }),
    ).rejects.toThrow(/is \d+ bytes; a run directory artifact may be at most 100 bytes/);
    expect(github.callsTo("GET", DOWNLOAD)).toHaveLength(0);
    // The listing understated the size: the stream is what counts.
    await expect(
      downloadRunArtifact({
        octokit,
        owner: "octo-org",
        repo: "widgets",
        artifact: { ...artifact, sizeInBytes: 10 },
        maxBytes: 100,
      }),
    ).rejects.toThrow(/is over 100 bytes/);
  });

  it("an expired artifact (410) is a RunArtifactError with GitHub's status", async () => {
    const stored = github.state.addArtifact({ name: NAME, zip: zip("{}"), headSha: HEAD, expired: true });
    const artifact: RunArtifact = {
      id: stored.id,
      name: NAME,
      sizeInBytes: stored.sizeInBytes,
      createdAt: null,
      digest: null,
      workflowRunId: null,
      headSha: HEAD,
    };
    const error = await downloadRunArtifact({ octokit, owner: "octo-org", repo: "widgets", artifact }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunArtifactError);
    expect((error as RunArtifactError).status).toBe(410);
  });
});
