/**
 * `push: true` end to end (SPEC §6, §10 "Push", §11; ADR 0008): the bundled action, the real `claude` CLI
 * against the scripted model server, the OpenAPI-validating GitHub server, and the "PR branch" in a real bare
 * repository served by `git http-backend` on loopback (`GITHUB_SERVER_URL`), which refuses any request
 * without the push token. The checkout is what `actions/checkout` leaves on `pull_request` with
 * `persist-credentials: false`: a shallow, detached test merge commit.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  actionTestResources,
  checkRunWrites,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
} from "../support/action-harness.js";
import type { GitHttpServer } from "../support/git-http-server.js";
import type { ModelScript } from "../support/model-server/index.js";
import { fixSumScript, MARKS, PASS_PATTERN } from "../support/scenarios/fix-sum.js";
import {
  BRANCH,
  makePushWorld,
  PUSH_BASIC,
  PUSH_TOKEN,
  type PushWorld,
} from "../support/scenarios/push-world.js";

const GOAL = `${MARKS.plannerGoal}.`;
const GRAPH = ".github/evidence-gate/fix.yml";

const open = actionTestResources();
let gitServer: GitHttpServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await gitServer?.close();
  gitServer = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-push-e2e-"));
  dirs.push(dir);
  return dir;
}

/** The fix-sum scenario (planner → implement edits src/sum.js → check replies PASS). */
function script(repoDir: string): ModelScript {
  return fixSumScript({ repoDir });
}

/**
 * The fix-sum scenario as a hand-written graph (mode run, read from the base ref) whose check node may run
 * `env` (planned nodes may not: the planned allowlist has no such grant), so the reply the model server
 * records is the environment a node's tools see.
 */
function envGraph(verifyEnv: string): string {
  return [
    "name: fix-sum-graph",
    "nodes:",
    "  - id: implement",
    `    prompt: "${MARKS.implement} so that sum(a, b) returns a + b. Edit only that file."`,
    "    allowed_tools: [Read, Edit]",
    "  - id: check",
    "    depends_on: [implement]",
    `    prompt: "${MARKS.check} and reply with exactly PASS if it looks right, else FAIL."`,
    '    allowed_tools: ["Bash(env)"]',
    "    success_check:",
    `      result_matches: '${PASS_PATTERN}'`,
    "      verify:",
    `        command: "env > '${verifyEnv}' && npm test"`,
    "",
  ].join("\n");
}

function envScript(repoDir: string): ModelScript {
  return {
    conversations: fixSumScript({ repoDir }).conversations.map((c) =>
      c.name === "check"
        ? { ...c, turns: [{ tool_calls: [{ name: "Bash", input: { command: "env" } }] }, { text: "PASS" }] }
        : c,
    ),
  };
}

/** Claude settings whose hooks touch `<markers>/<who>-<event>` when a session starts or a prompt is sent. */
function hookSettings(markers: string, who: string): string {
  const hook = (event: string) => [
    { hooks: [{ type: "command", command: `touch ${markers}/${who}-${event}` }] },
  ];
  return `${JSON.stringify({ hooks: { SessionStart: hook("SessionStart"), UserPromptSubmit: hook("UserPromptSubmit") } }, null, 2)}\n`;
}

/** {@link makePushWorld}, its repositories and git server removed after the test. */
function world(o: Parameters<typeof makePushWorld>[1] = {}): Promise<PushWorld> {
  return makePushWorld(
    {
      repo: open.keep,
      server: (server) => {
        gitServer = server;
      },
    },
    o,
  );
}

/** Runs the action in push mode on `w`, with a verify command that also records its environment in `verifyEnv`. */
async function runPush(w: PushWorld, verifyEnv: string, inputs: Record<string, string> = {}) {
  const { github, model } = await open.servers(script(w.workspace.dir));
  const result = await open.run({
    workspace: w.workspace.dir,
    inputs: {
      goal: GOAL,
      "verify-cmd": `env > '${verifyEnv}' && npm test`,
      push: "true",
      "push-token": PUSH_TOKEN,
      ...inputs,
    },
    github,
    model,
    headSha: w.headSha,
    baseSha: w.baseSha,
    githubSha: w.mergeSha,
    env: { GITHUB_SERVER_URL: w.git.url },
  });
  return { result, github, model };
}

describe("action push: true (SPEC §10)", () => {
  it("checks out the PR head itself, pushes the verified fix with the trailer, posts success on the pushed commit (its tree named) and supersedes the old head's check run; the push token never reaches a node, the verify command or .git/config", async () => {
    const w = await world();
    const verifyEnv = join(scratch(), "verify-env");

    const { result, github } = await runPush(w, verifyEnv);

    expect(result.exitCode, stepDebug(result)).toBe(0);
    const runId = result.outputs["run-id"]!;
    const pushed = result.outputs["pushed-sha"]!;
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(pushed).toMatch(/^[0-9a-f]{40}$/);
    // The branch on the remote is the pushed commit, whose parent is the PR head (never the merge).
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(pushed);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^@`])).toBe(w.headSha);
    const message = await w.git.gitIn(TEST_REPOSITORY, ["log", "-1", "--format=%B", pushed]);
    expect(message).toMatch(/^evidence-gate: Make npm test pass by fixing sum\(\)/);
    expect(message.trim().split("\n").at(-1)).toBe(`Evidence-Gate-Run: ${runId}`);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["log", "-1", "--format=%an <%ae>", pushed])).toBe(
      "evidence-gate <evidence-gate@users.noreply.github.com>",
    );
    const tree = await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^{tree}`]);
    expect(result.outputs["evidence-tree"]).toBe(tree);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["show", `${pushed}:src/sum.js`])).toContain("return a + b;");

    // Two check runs: the old head's superseded (neutral), the pushed commit's the verdict.
    const [old, next] = github.state.checkRuns;
    expect(github.state.checkRuns).toHaveLength(2);
    expect(old).toMatchObject({ headSha: w.headSha, status: "completed", conclusion: "neutral" });
    expect(old!.output.title).toBe(`Superseded by ${pushed.slice(0, 7)}`);
    expect(old!.output.summary).toContain(`## Superseded by ${pushed.slice(0, 7)}`);
    expect(old!.output.summary).toContain(pushed);
    expect(next).toMatchObject({
      headSha: pushed,
      status: "completed",
      conclusion: "success",
      externalId: runId,
    });
    expect(next!.output.summary).toContain(tree.slice(0, 12));
    expect(next!.output.summary).toContain(`pushed to ${BRANCH}`);
    expect(result.outputs["check-run-id"]).toBe(String(next!.id));
    // The post step now watches the pushed commit's check run, which the main step completed.
    expect(result.state).toMatchObject({ "check-run-id": String(next!.id), "check-run-completed": "true" });
    const writes = checkRunWrites(result);
    expect(writes.filter((w) => w.method === "POST").map((w) => w.body.head_sha)).toEqual([
      w.headSha,
      pushed,
    ]);

    // The git server saw the head fetched (full history) and the push, every request with the token.
    expect(w.git.requests.some((r) => r.url.includes("service=git-upload-pack"))).toBe(true);
    expect(w.git.requests.some((r) => r.url.endsWith("/git-receive-pack"))).toBe(true);
    expect(w.git.requests.every((r) => r.authorized && r.authorizationHeaders === 1)).toBe(true);
    expect(await w.workspace.git(["rev-parse", "--is-shallow-repository"])).toBe("false");

    // The push token: not in the verify command's environment, not in .git/config — each checked to hold
    // other things, so the search can fail.
    const verifySaw = readFileSync(verifyEnv, "utf8");
    expect(verifySaw).toContain("PATH=");
    const gitConfig = readFileSync(join(w.workspace.dir, ".git", "config"), "utf8");
    expect(gitConfig).toContain("[core]");
    for (const [where, text] of [
      ["verify", verifySaw],
      [".git/config", gitConfig],
    ] as const) {
      for (const secret of [PUSH_TOKEN, PUSH_BASIC, TEST_GITHUB_TOKEN]) {
        expect(text.includes(secret), `${where} holds ${secret.slice(0, 8)}…`).toBe(false);
      }
    }
    expect(gitConfig).not.toMatch(/extraheader/i);
    // Only the masking command itself names the token (the runner then hides it in the log).
    const unmasked = result.stdout.split("\n").filter((l) => !l.startsWith("::add-mask::"));
    expect(unmasked.some((l) => l.includes(PUSH_TOKEN) || l.includes(PUSH_BASIC))).toBe(false);
    github.assertNoViolations();
  });

  it("mode run pushes too, with agent configuration from the base: the PR head's .claude/settings.json hooks never run, the base's does; the push token is in no node's environment (what its `env` tool call saw), no verify command's, and not in .git/config; the pushed commit keeps the PR's own settings and gets the check run", async () => {
    const markers = scratch();
    const verifyEnv = join(scratch(), "verify-env");
    const SETTINGS = ".claude/settings.json";
    const baseSettings = hookSettings(markers, "base");
    const prSettings = hookSettings(markers, "pr");
    const w = await world({
      baseFiles: { [SETTINGS]: baseSettings },
      headFiles: { [SETTINGS]: prSettings },
    });
    expect(await w.git.gitIn(TEST_REPOSITORY, ["show", `${w.baseSha}:${SETTINGS}`])).toBe(
      baseSettings.trimEnd(),
    );
    expect(await w.git.gitIn(TEST_REPOSITORY, ["show", `${w.headSha}:${SETTINGS}`])).toBe(
      prSettings.trimEnd(),
    );
    const { github, model } = await open.servers(envScript(w.workspace.dir));
    // The API serves the same base commit (the checkout may not hold it).
    github.state.addFile({ ref: w.baseSha, path: GRAPH, content: envGraph(verifyEnv) });
    github.state.addFile({ ref: w.baseSha, path: SETTINGS, content: baseSettings });

    const result = await open.run({
      workspace: w.workspace.dir,
      inputs: { graph: GRAPH, push: "true", "push-token": PUSH_TOKEN },
      github,
      model,
      headSha: w.headSha,
      baseSha: w.baseSha,
      githubSha: w.mergeSha,
      env: { GITHUB_SERVER_URL: w.git.url },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    // The hooks: the base's ran, the pull request's never did.
    const fired = readdirSync(markers).sort();
    expect(fired.filter((m) => m.startsWith("pr-"))).toEqual([]);
    expect(fired).toContain("base-SessionStart");
    expect(result.stdout).toContain(
      `Agent configuration came from the base ref main (${w.baseSha.slice(0, 7)})`,
    );

    // The pushed commit: on the PR head, the fix only — its tree holds the PR's own settings, not the base's.
    const pushed = result.outputs["pushed-sha"]!;
    expect(pushed).toMatch(/^[0-9a-f]{40}$/);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(pushed);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^@`])).toBe(w.headSha);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["log", "-1", "--format=%s", pushed])).toBe(
      "evidence-gate: fix-sum-graph",
    );
    expect(await w.git.gitIn(TEST_REPOSITORY, ["show", `${pushed}:${SETTINGS}`])).toBe(prSettings.trimEnd());
    expect(await w.git.gitIn(TEST_REPOSITORY, ["diff", "--name-only", w.headSha, pushed])).toBe("src/sum.js");
    expect(result.outputs["evidence-tree"]).toBe(
      await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^{tree}`]),
    );
    // The pull request's copy is back in the checkout afterwards.
    expect(await w.workspace.read(SETTINGS)).toBe(prSettings);

    // The push token: in no node's, verify command's or .git/config's text — each checked to hold other
    // things, so the search can fail.
    const nodeSaw = JSON.stringify(
      result.modelRequests.filter((r) => r.conversation === "check").map((r) => r.body),
    );
    expect(nodeSaw).toContain("PATH=");
    const verifySaw = readFileSync(verifyEnv, "utf8");
    expect(verifySaw).toContain("PATH=");
    const gitConfig = readFileSync(join(w.workspace.dir, ".git", "config"), "utf8");
    expect(gitConfig).toContain("[core]");
    for (const [where, text] of [
      ["node", nodeSaw],
      ["verify", verifySaw],
      [".git/config", gitConfig],
    ] as const) {
      for (const secret of [PUSH_TOKEN, PUSH_BASIC]) {
        expect(text.includes(secret), `${where} holds ${secret.slice(0, 8)}…`).toBe(false);
      }
    }

    // The verdict is on the pushed commit; the old head's check run is superseded.
    expect(github.state.checkRuns.map((c) => [c.headSha, c.status, c.conclusion])).toEqual([
      [w.headSha, "completed", "neutral"],
      [pushed, "completed", "success"],
    ]);
    expect(result.outputs["check-run-id"]).toBe(String(github.state.checkRuns[1]!.id));
    github.assertNoViolations();
  });
});
