/**
 * The writer check (src/github/writer-check.ts): one rule for the action's comment commands and the App's
 * buttons. The table is the rule on GitHub's two fields; the rest asks the local GitHub server (OpenAPI-checked)
 * as both surfaces do.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOctokit } from "../../src/github/octokit.js";
import {
  accessWords,
  checkWriter,
  PermissionLookupError,
  writerByRole,
} from "../../src/github/writer-check.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

describe("writerByRole: role_name first, the legacy permission for custom roles", () => {
  it.each([
    [{ role_name: "admin", permission: "admin" }, true, "admin"],
    [{ role_name: "maintain", permission: "write" }, true, "maintain"],
    [{ role_name: "write", permission: "write" }, true, "write"],
    [{ role_name: "triage", permission: "read" }, false, "triage"],
    [{ role_name: "read", permission: "read" }, false, "read"],
    // An organisation's custom role: its name says nothing, its base role (permission) decides.
    [{ role_name: "security-engineer", permission: "write" }, true, "security-engineer"],
    [{ role_name: "auditor", permission: "read" }, false, "auditor"],
    // A GitHub that sends no role_name (older GHES): the permission alone.
    [{ permission: "write" }, true, "write"],
    [{ permission: "none" }, false, "none"],
    [{ role_name: "Maintain", permission: "WRITE" }, true, "maintain"],
  ])("%j → writer %s, role %s", (answer, isWriter, role) => {
    const check = writerByRole(answer);
    expect(check.isWriter).toBe(isWriter);
    expect(check.role).toBe(role);
  });
});

describe("checkWriter against the GitHub API", () => {
  let github: GitHubServer | undefined;
  afterEach(async () => {
    github?.assertNoViolations();
    await github?.close();
    github = undefined;
  });
  const ask = async (login: string) => {
    github ??= await startGitHubServer();
    const octokit = createOctokit({ token: "ghs_t", baseUrl: github.url, timing: TEST_TIMING });
    return checkWriter(octokit, { owner: "octo-org", repo: "widgets", login });
  };

  it("a maintainer is a writer (role maintain, permission write); a triager is not (words: read access)", async () => {
    github = await startGitHubServer();
    github.state.setCollaborator("mae", "maintain");
    github.state.setCollaborator("tri", "triage");
    expect(await ask("mae")).toEqual({ isWriter: true, role: "maintain", permission: "write" });
    const triager = await ask("tri");
    expect(triager).toEqual({ isWriter: false, role: "triage", permission: "read" });
    expect(accessWords(triager.permission)).toBe("read access");
  });

  it("not a collaborator (404) is no access, not an error", async () => {
    expect(await ask("stranger")).toEqual({ isWriter: false, role: "none", permission: "none" });
    expect(accessWords("none")).toBe("no access");
  });

  it("any other failure throws PermissionLookupError with the status and the user named (callers fail closed)", async () => {
    github = await startGitHubServer();
    github.failNext({
      method: "GET",
      pathPattern: "/repos/{owner}/{repo}/collaborators/{username}/permission",
      status: 403,
    });
    const error = await ask("mae").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionLookupError);
    expect((error as PermissionLookupError).status).toBe(403);
    expect((error as Error).message).toMatch(
      /^could not read mae's permission on octo-org\/widgets \(HTTP 403/,
    );
  });
});
