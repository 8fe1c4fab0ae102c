/**
 * A new user's trial of Go-CLI graphs (issue 26, acceptance: "three of the Go CLI's shipped graphs and two
 * new ones run"). The five graphs in test/fixtures/go-trial/ (README.md there: three shipped by the Go CLI
 * byte for byte, two written the way a Go-CLI user writes one) are linted with `node dist/cli.js lint` and
 * run with `evidence-gate run` (and `resume --approve` for the gate) in a real git repository, with the
 * real pinned `claude` CLI playing the scripted model server — as README.md and docs/graph-format.md tell a
 * user to, with the Go graphs' `{{ inputs.repo }}` given the repository's own path.
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { type CliHarness, cliHarness, DIST_CLI, rowWords } from "../support/cli-harness.js";
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

test("dist/cli.js lint: each of the five loads with no error, and only the advisories its shape earns", async () => {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const h = await cliHarness({
    makeRepo: repoWith({ "README.md": "x\n" }),
    // lint calls no model: a script that no request may match
    script: () => ({ conversations: [{ name: "unused", match: "NO-LINT-REQUEST", turns: [{ text: "x" }] }] }),
  });
  const cases: [string, string[], string[]][] = [
    [
      "haiku-smoke",
      ["dir=smoke"],
      ["critique is a sink (no node depends on it) without success_check.verify"],
    ],
    [
      "review-loop",
      ["repo=.", "task=x"],
      ["review is a sink (no node depends on it) without success_check.verify"],
    ],
    [
      "dev-review-pr",
      ["repo=."],
      [
        "e2e has handoff: session and retry",
        "pr is a sink (no node depends on it) without success_check.verify",
      ],
    ],
    ["two-lanes", ["repo=."], []],
    ["release-gate", ["version=1.0.0"], []],
  ];
  for (const [name, inputs, advisories] of cases) {
    const argv = ["lint", join(FIXTURE, `${name}.yaml`), ...inputs.flatMap((i) => ["--input", i]), "--json"];
    const dist = h.spawnDist(argv);
    const { code } = await dist.closed;
    const { stdout, stderr } = dist.output();
    expect(code, `${name}: ${stderr}${stdout}`).toBe(0);
    const report = JSON.parse(stdout) as {
      errors: unknown[];
      advisories: { nodeId: string | null; reason: string }[];
    };
    expect(report.errors, name).toEqual([]);
    const lines = report.advisories.map((a) => `${a.nodeId} ${a.reason}`);
    expect(
      lines.map((line, at) => line.slice(0, advisories[at]?.length ?? 0)),
      name,
    ).toEqual(advisories);
  }
});

test("haiku-smoke (Go, as shipped): write is verified by its test -f, critique reads it through {{ artifacts.write | inline }}", async () => {
  const { h, graph } = await trial("haiku-smoke", { "smoke/.keep": "" }, (repo) => ({
    conversations: [
      {
        name: "write",
        match: "Write a 3-line haiku about directed graphs",
        turns: writes(
          join(repo.dir, "smoke", "haiku.txt"),
          "edges point forward\nno cycle returns\nsinks wait\n",
          "DONE",
        ),
      },
      {
        name: "critique",
        match: ["A haiku was written in this directory", "the writer reported: DONE"],
        turns: [{ text: "The forward edges are a clean image." }],
      },
    ],
  }));

  const r = await h.runGraph(graph, ["--input", "dir=smoke"]);

  // Neutral (exit 0): the sink `critique` has no verify, as lint said.
  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(rowWords(r.ledger!)).toEqual(["write PASS (verified)", "critique PASS (exit-only)"]);
  expect(await h.repo.read("smoke/haiku.txt")).toContain("edges point forward");
  expect(r.stdout).toContain("verify `test -f haiku.txt` exited 0");
});

test("review-loop (Go, as shipped): the review sends impl back once with its findings, the second round ships", async () => {
  const { h, graph } = await trial("review-loop", { "README.md": "x\n" }, (repo) => {
    const file = join(repo.dir, "feature.txt");
    return {
      conversations: [
        {
          name: "impl-2",
          match: [
            "Implement this task: add feature.txt",
            "feedback round 1/2 from node review",
            "must say v2",
          ],
          turns: writes(file, "feature v2\n", "DONE second pass"),
        },
        {
          name: "impl-1",
          match: "Implement this task: add feature.txt",
          turns: writes(file, "feature v1\n", "DONE first pass"),
        },
        {
          name: "review-2",
          match: ["Review the working tree", "DONE second pass"],
          turns: [{ text: "ship it — v2." }],
        },
        {
          name: "review-1",
          match: "Review the working tree",
          turns: [{ text: "1. feature.txt must say v2" }],
        },
      ],
    };
  });

  const r = await h.runGraph(graph, ["--input", `repo=${h.repo.dir}`, "--input", "task=add feature.txt"]);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(rowWords(r.ledger!)).toEqual([
    "impl PASS (self-reported)",
    "impl PASS (self-reported)",
    "review FAIL result_mismatch superseded",
    "review PASS (self-reported)",
  ]);
  expect(await h.repo.read("feature.txt")).toBe("feature v2\n");
  expect(h.server.requests.map((request) => request.conversation)).toEqual([
    "impl-1",
    "impl-1",
    "review-1",
    "impl-2",
    "impl-2",
    "review-2",
  ]);
});

test("dev-review-pr (Go, as shipped, four fragments): e2e continues dev's session and is verified by make local; the session child's cost is known", async () => {
  const { h, graph } = await trial(
    "dev-review-pr",
    { Makefile: "local:\n\ttest -f feature.txt\n" },
    (repo) => ({
      conversations: [
        {
          name: "dev",
          match: "Implement the change described in the current issue/branch",
          turns: writes(join(repo.dir, "feature.txt"), "feature\n", "DONE wrote feature.txt"),
        },
        {
          name: "e2e",
          match: ["Continue the work", "run the end-to-end checks (make local)"],
          turns: [{ text: "PASS" }],
        },
        {
          name: "review-security",
          match: ["for security issues", "The e2e verdict was: PASS"],
          turns: [{ text: "CLEAN" }],
        },
        {
          name: "review-style",
          match: "for style, naming, and simplicity",
          turns: [{ text: "FINDINGS: - no trailing context" }],
        },
        {
          name: "pr",
          match: [
            "Open a pull request for the current branch",
            "Security review: CLEAN",
            "Style review:    FINDINGS:",
          ],
          turns: [{ text: "PR https://github.com/example/repo/pull/7" }],
        },
      ],
    }),
  );

  const r = await h.runGraph(graph, ["--input", `repo=${h.repo.dir}`]);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(rowWords(r.ledger!)).toEqual([
    "dev PASS (self-reported)",
    "e2e PASS (verified)",
    "review-security PASS (self-reported)",
    "review-style PASS (self-reported)",
    "pr PASS (self-reported)",
  ]);
  // handoff: session — e2e resumed dev's conversation (same session id), and its cost is counted.
  const rows = r.ledger!.rows;
  const [dev, e2e] = [rows[0]!, rows[1]!];
  expect(e2e.sessionId).toBe(dev.sessionId);
  expect(rows.every((row) => typeof row.costUsd === "number" && row.costUsd > 0)).toBe(true);
  expect(r.stdout).toMatch(/TOTAL COST: +\$0\.\d{4}\n/);
  expect(r.stdout).toContain('fragment: node "e2e" spliced from "e2e-verify"');
});

test("two-lanes (new, a fragment cited twice, two hops deep): both lanes write and check, summary reads each lane's exit; --commit makes it success", async () => {
  const { h, graph } = await trial("two-lanes", { "README.md": "x\n" }, (repo) => {
    const lane = (name: string) => [
      {
        name: `write-${name}`,
        match: `Write the single line "${name}"`,
        turns: writes(join(repo.dir, `${name}.txt`), `${name}\n`, "DONE"),
      },
      {
        name: `check-${name}`,
        match: `Read ${name}.txt and confirm`,
        turns: [{ text: `OK ${name}.txt says ${name}` }],
      },
    ];
    return {
      conversations: [
        ...lane("alpha"),
        ...lane("beta"),
        {
          name: "summary",
          match: ["Two lanes finished", "OK alpha.txt says alpha", "OK beta.txt says beta"],
          turns: [{ text: "SUMMARY both lanes wrote and checked their file" }],
        },
      ],
    };
  });

  const r = await h.runGraph(graph, ["--input", `repo=${h.repo.dir}`, "--commit"]);

  expect(r.exitCode, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(rowWords(r.ledger!).sort()).toEqual([
    "lane-a/check PASS (verified)",
    "lane-a/write PASS (self-reported)",
    "lane-b/check PASS (verified)",
    "lane-b/write PASS (self-reported)",
    "summary PASS (verified)",
  ]);
  expect(r.stdout).toContain("CONCLUSION:    success");
  expect(await h.repo.git(["show", "--stat", "--format=%s", "HEAD"])).toMatch(/alpha\.txt[\s\S]*beta\.txt/);
});

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
  expect(first.stdout).toContain(`evidence-gate resume ${runId} --repo ${h.repo.dir} --approve sign-off`);

  const second = await h.resume(runId, ["--approve", "sign-off", "--by", "octocat", "--commit"]);

  expect(second.exitCode, `${second.stderr}\n${second.stdout}`).toBe(0);
  expect(rowWords(second.ledger!).slice(-2)).toEqual(["sign-off PASS (approved)", "tag PASS (verified)"]);
  expect(second.stdout).toContain("CONCLUSION:    success");
  expect(readFileSync(join(h.repo.dir, "NOTES.md"), "utf8")).toBe(
    "# 1.0.0\n\n- first stable release\nreleased\n",
  );
  expect(await h.repo.read("VERSION")).toBe("1.0.0\n");
});
