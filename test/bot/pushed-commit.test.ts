/**
 * The decision behind `push: true` with `report-to: bot` (`src/bot/pushed-commit.ts`): the App posts the
 * verdict on the commit a ledger says the run pushed only when GitHub shows that commit with the run's head
 * as its first parent and the ledger's tree, on a same-repository pull request.
 */
import { describe, expect, it } from "vitest";
import { pushedCommitProblem } from "../../src/bot/pushed-commit.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const PUSHED = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
const TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const OTHER = "9999999999999999999999999999999999999999";
const claimed = { sha: PUSHED, tree: TREE, description: `${PUSHED.slice(0, 7)} (pushed)` };
const context = { headSha: HEAD, fromFork: false, repository: "octo-org/widgets" };
const real = { sha: PUSHED, tree: TREE, parents: [HEAD] };

describe("pushedCommitProblem", () => {
  it("accepts the commit GitHub shows with the head as first parent and the ledger's tree (SHAs in any case)", () => {
    expect(pushedCommitProblem(claimed, context, real)).toBeNull();
    expect(
      pushedCommitProblem(
        { ...claimed, sha: PUSHED.toUpperCase(), tree: TREE.toUpperCase() },
        { ...context, headSha: HEAD.toUpperCase() },
        real,
      ),
    ).toBeNull();
    // A merge commit whose first parent is the head is still on top of it.
    expect(pushedCommitProblem(claimed, context, { ...real, parents: [HEAD, OTHER] })).toBeNull();
  });

  it("refuses, naming what differs: no such commit, another first parent, a root commit, another tree", () => {
    expect(pushedCommitProblem(claimed, context, null)).toBe(
      `the ledger says the run pushed commit ${PUSHED}, but octo-org/widgets has no such commit`,
    );
    expect(pushedCommitProblem(claimed, context, { ...real, parents: [OTHER, HEAD] })).toBe(
      `the ledger says the run pushed commit ${PUSHED} on top of ${HEAD}, but that commit's first parent is ${OTHER}`,
    );
    expect(pushedCommitProblem(claimed, context, { ...real, parents: [] })).toContain(
      "first parent is none (a root commit)",
    );
    expect(pushedCommitProblem(claimed, context, { ...real, tree: OTHER })).toBe(
      `the ledger says the run pushed commit ${PUSHED} with tree ${TREE}, but that commit's tree is ${OTHER}`,
    );
  });

  it("refuses a fork's claim and malformed SHAs whatever GitHub would say", () => {
    expect(pushedCommitProblem(claimed, { ...context, fromFork: true }, real)).toContain(
      "the run is a fork's pull request, whose branch evidence-gate never pushes to",
    );
    expect(pushedCommitProblem({ ...claimed, sha: "../../pulls" }, context, real)).toContain(
      "is not a pair of full 40-hex SHAs",
    );
    expect(pushedCommitProblem({ ...claimed, tree: TREE.slice(0, 12) }, context, real)).toContain(
      "is not a pair of full 40-hex SHAs",
    );
  });
});
