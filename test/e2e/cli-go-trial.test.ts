/**
 * A new user's trial of Go-CLI graphs (issue 26, acceptance: "three of the Go CLI's shipped graphs and two
 * new ones run"), end to end: release-gate, one of the five graphs in test/fixtures/go-trial/ (README.md
 * there), is run with `node dist/cli.js run` and `resume --approve` in a real git repository, with the real
 * pinned `claude` CLI playing the scripted model server — as README.md and docs/graph-format.md tell a user
 * to. It is the one that exercises the most of a run: a verify_failed retry, a feedback round, a gate that
 * pauses, a resume that approves it, and `--commit`.
 *
 * The five graphs themselves — lint, splicing, edges, handoffs, verify commands, prompts as interpolated,
 * each `result_matches` against the replies scripted here — are checked in-process in
 * test/graph/go-trial.test.ts (issue 24 item 2: one end-to-end run; the rest where it is what they show).
 */
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { CLAUDE_BIN, type CliHarness, cliHarness, rowWords } from "../support/cli-harness.js";
import type { ModelScript } from "../support/model-server/index.js";
import { makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/go-trial/", import.meta.url));

/** A committed repository holding `files`. */
function repoWith(files: Record<string, string>): () => Promise<TempRepo> {
  return () => makeTempRepo({ files, commit: true });
}

/** One `Write` turn, then the reply. */
function writes(file: string, content: string, reply: string) {
  return [{ tool_calls: [{ name: "Write", input: { file_path: file, content } }] }, { text: reply }];
}

/** The harness with the fixture folder copied beside the scratch dir (outside the repository); the graph's path. */
async function trial(
  name: string,
  files: Record<string, string>,
  script: (repo: TempRepo) => ModelScript,
): Promise<{ h: CliHarness; graph: string }> {
  const h = await cliHarness({ makeRepo: repoWith(files), script });
  cpSync(FIXTURE, join(h.scratch, "graphs"), { recursive: true });
  return { h, graph: join(h.scratch, "graphs", `${name}.yaml`) };
}

test("release-gate (new): a verify_failed retry, a feedback round, a gate that pauses (exit 2), then resume --approve concludes success", async () => {
  const { h, graph } = await trial("release-gate", { VERSION: "0.9.0\n" }, (repo) => {
    const notes = join(repo.dir, "NOTES.md");
    return {
      conversations: [
        {
          name: "bump-2",
          match: ["Set the project's version to 1.0.0", "RETRY: attempt 2"],
          turns: writes(join(repo.dir, "VERSION"), "1.0.0\n", "DONE now 1.0.0"),
        },
        {
          name: "bump-1",
          match: "Set the project's version to 1.0.0",
          turns: writes(join(repo.dir, "VERSION"), "1.0.0-rc\n", "DONE"),
        },
        {
          name: "notes-2",
          match: ["Write release notes for 1.0.0", "feedback round 1/2 from node review", "add one bullet"],
          turns: writes(notes, "# 1.0.0\n\n- first stable release\n", "DONE second draft"),
        },
        {
          name: "notes-1",
          match: "Write release notes for 1.0.0",
          turns: writes(notes, "# 1.0.0\n", "DONE first draft"),
        },
        {
          name: "review-2",
          match: ["Review NOTES.md for release 1.0.0", "second draft"],
          turns: [{ text: "APPROVED" }],
        },
        {
          name: "review-1",
          match: "Review NOTES.md for release 1.0.0",
          turns: [{ text: "1. add one bullet" }],
        },
        {
          name: "tag",
          match: "Release 1.0.0 was signed off",
          turns: [
            {
              tool_calls: [
                {
                  name: "Edit",
                  input: {
                    file_path: notes,
                    old_string: "stable release\n",
                    new_string: "stable release\nreleased\n",
                  },
                },
              ],
            },
            { text: "DONE" },
          ],
        },
      ],
    };
  });

  const first = await h.runGraph(graph, ["--input", "version=1.0.0", "--commit"]);

  expect(first.exitCode, `${first.stderr}\n${first.stdout}`).toBe(2);
  expect(rowWords(first.ledger!)).toEqual([
    "bump FAIL verify_failed superseded",
    "bump PASS (verified)",
    "notes PASS (verified)",
    "notes PASS (verified)",
    "review FAIL result_mismatch superseded",
    "review PASS (verified)",
    "sign-off SKIPPED", // WAITING in the table: a gate that waits for a person
    "tag SKIPPED",
  ]);
  const runId = first.runDir!.split("/").at(-1)!;
  expect(first.stdout).toContain(
    `evidence-gate resume ${runId} --repo ${h.repo.dir} --claude-path ${CLAUDE_BIN} --approve sign-off`,
  );

  const second = await h.resume(runId, ["--approve", "sign-off", "--by", "octocat", "--commit"]);

  expect(second.exitCode, `${second.stderr}\n${second.stdout}`).toBe(0);
  expect(rowWords(second.ledger!).slice(-2)).toEqual(["sign-off PASS (approved)", "tag PASS (verified)"]);
  expect(second.stdout).toContain("CONCLUSION:    success");
  expect(readFileSync(join(h.repo.dir, "NOTES.md"), "utf8")).toBe(
    "# 1.0.0\n\n- first stable release\nreleased\n",
  );
  expect(await h.repo.read("VERSION")).toBe("1.0.0\n");
});
