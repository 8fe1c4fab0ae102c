/**
 * `evidence-gate auto` in-process (SPEC §2, §5, §6, §8–§10; issue 24: the CLI's decisions in the fast
 * tier): the CLI's dispatcher with the model calls played by the scripted stand-in
 * (test/support/cli-in-process.ts) against a real git repository. Every model reply is scripted (a node's
 * edits are its play's `writes`); every git object, verify command, run-directory file and check-run
 * payload is real. Moved from test/e2e/cli-auto.test.ts, which keeps one real end-to-end run (the real
 * `claude` editing through its tools, committed with --commit).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { checkRunsOf, rowWords } from "../support/cli-run-result.js";
import { refusedTwoNodePlan, reviewOnlyPlan, twoNodePlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import {
  BUGGY_SUM,
  makeFixedSampleRepo,
  makeMergeCheckout,
  makeTempRepo,
  SAMPLE_TEST_NAME,
} from "../support/temp-repo.js";

const NO_EVIDENCE_WORDS = "every verdict below is the model's, about its own work";
const NOT_ON_COMMIT = "the evidence is for a patch that is not on this commit";

function row(ledger: Ledger, nodeId: string): LedgerRow {
  const found = ledger.rows.find((r) => r.nodeId === nodeId);
  if (found === undefined) throw new Error(`no row for ${nodeId}: ${JSON.stringify(rowWords(ledger))}`);
  return found;
}

describe("build evidence decides before any model call (SPEC §5)", () => {
  test("a repository with package.json and neither --verify-cmd nor --accept-no-build-evidence is refused: exit 3, 0 model requests, nothing spent, check run action_required", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const head = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run([]);

    expect(r.exitCode).toBe(3);
    expect(h.calls()).toHaveLength(0);
    expect(r.stderr).toContain("package.json");
    expect(r.stderr).toContain("--verify-cmd 'npm test'");
    expect(r.stderr).toContain("--accept-no-build-evidence");
    expect(r.stderr).toMatch(/nothing was spent/i);
    expect(h.runDirs()).toEqual([]);
    expect(r.ledger).toBeNull();

    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.headSha).toBe(head);
    expect(runs[0]!.completions.map((c) => c.conclusion)).toEqual(["action_required"]);
    expect(runs[0]!.completions[0]!.summary).toContain("package.json");
    expect(r.checkRunRequests!.at(-1)!.body).toMatchObject({
      status: "completed",
      conclusion: "action_required",
    });
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(head);
  });

  test("--verify-cmd together with --accept-no-build-evidence is a usage error naming both: exit 64, 0 model requests, no run directory", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run(["--verify-cmd", "npm test", "--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--verify-cmd");
    expect(r.stderr).toContain("--accept-no-build-evidence");
    expect(r.stderr).toMatch(/one or the other/);
    expect(h.calls()).toHaveLength(0);
    expect(existsSync(join(h.repo.dir, ".evidence-gate"))).toBe(false);
    expect(h.runDirs()).toEqual([]);
    expect(r.ledgerPath).toBeNull();
    expect(r.ledger).toBeNull();
  });

  test("a --repo that is not a git checkout, or has no commit yet, is a usage error: exit 64, 0 model requests, no run directory", async () => {
    const plain = await cliInProcess({
      makeRepo: () => makeTempRepo({ noGit: true, files: { "notes.txt": "no git here\n" } }),
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });
    const r1 = await plain.run(["--verify-cmd", "true"], { checkRunOut: false });
    expect(r1.exitCode).toBe(64);
    expect(r1.stderr).toContain("is not inside a git working tree");
    expect(plain.calls()).toHaveLength(0);
    expect(plain.runDirs()).toEqual([]);

    const unborn = await cliInProcess({
      makeRepo: () => makeTempRepo({ files: { "notes.txt": "not committed yet\n" } }),
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });
    const r2 = await unborn.run(["--verify-cmd", "true"], { checkRunOut: false });
    expect(r2.exitCode).toBe(64);
    expect(r2.stderr).toContain("no commit yet");
    expect(unborn.calls()).toHaveLength(0);
    expect(unborn.runDirs()).toEqual([]);
  });

  test("--accept-no-build-evidence runs on the record: the summary carries the exact NONE line, conclusion neutral, exit 0", async () => {
    const h = await cliInProcess({
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(0);
    // Said once, on the build-evidence line (the ledger printed and the summary alike).
    const said = (text: string) => text.split("\n").filter((line) => /build evidence:/i.test(line));
    expect(said(r.summary!)).toEqual([
      "**Build evidence: NONE** (`declared`) — accept-no-build-evidence was given although package.json (Node.js (npm)) says this repository builds; every verdict below is the model's, about its own work.",
    ]);
    expect(said(r.stdout.slice(r.stdout.indexOf("\nRun ")))).toEqual([
      `Build evidence: NONE (declared) — accept-no-build-evidence was given although package.json (Node.js (npm)) says this repository builds; ${NO_EVIDENCE_WORDS}`,
    ]);
    const ledger = r.ledger!;
    expect(ledger.plan.buildEvidence.kind).toBe("declared");
    expect(rowWords(ledger)).toEqual(["review PASS (exit-only)"]);
    expect(ledger.conclusion?.conclusion).toBe("neutral");
    expect(ledger.evidenceTree).toBeNull();
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => run.completions.map((c) => c.conclusion))).toEqual([["neutral"]]);
    expect(r.stdout).not.toContain("PASS (verified)");
  });
});

describe("the two-node plan (SPEC §4–§6)", () => {
  test("without --commit the verified fix is action_required: patch.diff in the run directory holds the fix and the ledger says the evidence is for a patch not on this commit", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    const startTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);

    const r = await h.run(["--verify-cmd", "npm test"]);

    expect(r.exitCode, r.stderr).toBe(4);
    const ledger = r.ledger!;
    expect(rowWords(ledger)).toEqual(["implement PASS (exit-only)", "check PASS (verified)"]);
    expect(ledger.conclusion?.conclusion).toBe("action_required");
    expect(ledger.conclusion?.reason).toContain(NOT_ON_COMMIT);
    expect(r.summary).toContain(NOT_ON_COMMIT);
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(ledger.postedCommit).toBeUndefined();
    const evidence = row(ledger, "check").verify!.evidenceTree;
    expect(evidence).not.toBeNull();
    expect(evidence).not.toBe(startTree);

    const patchPath = join(r.runDir!, "patch.diff");
    expect(ledger.patch?.path).toBe(patchPath);
    const patch = readFileSync(patchPath, "utf8");
    expect(patch).toContain("--- a/src/sum.js");
    expect(patch).toContain("-  return a - b;");
    expect(patch).toContain("+  return a + b;");

    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["action_required"]],
    ]);
  });

  test("a review-only plan with a passing verify is success on the starting commit, and --commit makes no commit when nothing changed; the verify command's environment holds no GitHub token, no INPUT_* variable, no model credential and no variable whose value is the token (SPEC §9); git runs with the run's environment: a file the run's git config ignores is not in the evidence tree, not committed and not patched", async () => {
    const h = await cliInProcess({
      makeRepo: makeFixedSampleRepo,
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });
    const outDir = mkdtempSync(join(tmpdir(), "eg-e2e-env-"));
    onTestFinished(() => rmSync(outDir, { recursive: true, force: true }));
    const dump = join(outDir, "verify-env.txt");
    const token = "ghs_secretE2Etoken0123456789abcdefABCDEF";
    const inputKey = "sk-ant-input-secret-e2e-4242";
    const modelKey = "sk-ant-model-secret-e2e-1717";
    // /proc/$$/environ is exactly what the engine passed to the shell, whatever names the shell keeps.
    const verifyCmd = `{ tr '\\0' '\\n' < /proc/$$/environ || env; } > '${dump}' && npm test`;
    // The run's git config (GIT_CONFIG_GLOBAL) ignores a file of the operator's in the working tree.
    writeFileSync(join(outDir, "ignore"), "eg-operator-scratch.txt\n");
    writeFileSync(join(outDir, "config"), `[core]\n\texcludesFile = ${join(outDir, "ignore")}\n`);
    await h.repo.write("eg-operator-scratch.txt", "the operator's notes, ignored by their git config\n");
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    const startTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);

    const r = await h.run(["--verify-cmd", verifyCmd, "--commit"], {
      env: {
        GITHUB_TOKEN: token,
        "INPUT_ANTHROPIC-API-KEY": inputKey,
        INPUT_ANTHROPIC_API_KEY: inputKey,
        ANTHROPIC_API_KEY: modelKey,
        TOKEN_MIRROR: token,
        EG_E2E_PLAIN: "visible-to-verify",
        GIT_CONFIG_GLOBAL: join(outDir, "config"),
      },
    });

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    expect(rowWords(ledger)).toEqual(["review PASS (verified)"]);
    expect(ledger.conclusion?.conclusion).toBe("success");
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(ledger.postedCommit).toBeUndefined();
    expect(ledger.patch).toBeUndefined();
    expect(ledger.startingCommit).toMatchObject({ sha: start, tree: startTree });
    expect(ledger.evidenceTree).toBe(startTree);
    expect(row(ledger, "review").verify?.evidenceTree).toBe(startTree);
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["success"]],
    ]);
    // --commit is never silent: with nothing to commit it says so (issue 26).
    expect(r.stdout).toContain(
      `--commit: nothing to commit: the nodes changed no file (HEAD stays ${start.slice(0, 7)})`,
    );

    // The model CLI was called with the credential it was given (the planner and the node ran).
    expect(h.calls().length).toBeGreaterThanOrEqual(2);
    const env = readFileSync(dump, "utf8");
    expect(env).toContain("EG_E2E_PLAIN=visible-to-verify");
    const names = env.split("\n").map((line) => line.split("=", 1)[0]);
    expect(names).not.toContain("GITHUB_TOKEN");
    expect(names).not.toContain("INPUT_ANTHROPIC-API-KEY");
    expect(names).not.toContain("INPUT_ANTHROPIC_API_KEY");
    expect(names).not.toContain("ANTHROPIC_API_KEY");
    expect(names).not.toContain("TOKEN_MIRROR");
    expect(names.filter((n) => n?.startsWith("ANTHROPIC_") || n?.startsWith("INPUT_"))).toEqual([]);
    expect(env).not.toContain(token);
    expect(env).not.toContain(inputKey);
    expect(env).not.toContain(modelKey);
  });

  test("a planner reply with no plan in it ends the run 'planning failed', never 'engine error': exit 1, failure, no node ran (issue 26)", async () => {
    const h = await cliInProcess({
      plays: fixSumPlays({ plannerReplies: ["I would rather not plan today."] }),
    });

    const r = await h.run(["--verify-cmd", "npm test"]);

    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.ledger?.rows).toEqual([]);
    expect(r.ledger?.conclusion).toMatchObject({
      conclusion: "failure",
      outcome: "failed",
      rule: "planning-failed",
      title: "Failed: planning failed (no usable plan)",
    });
    expect(`${r.stdout}${r.stderr}${r.summary}`).not.toMatch(/engine error/i);
  });

  // One run shows both: what a failed sink says, and that --commit never commits it.
  test("a sink whose verify fails is FAIL verify_failed with the exit code and output tail, even when the node replies PASS: conclusion failure, exit 1; --commit never commits it: HEAD stays, the broken change is kept in patch.diff and the CLI says so", async () => {
    const h = await cliInProcess({
      plays: fixSumPlays({ newBody: "return a * b;", checkReply: "PASS" }),
    });
    const start = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode).toBe(1);
    expect(await h.repo.read("src/sum.js")).toBe(BUGGY_SUM.replace("a - b", "a * b"));
    const ledger = r.ledger!;
    expect(rowWords(ledger)).toEqual(["implement PASS (exit-only)", "check FAIL verify_failed"]);
    const check = row(ledger, "check");
    expect(check.verify?.command).toBe("npm test");
    expect(check.verify?.exitCode).toBe(1);
    expect(check.verify?.outcome).toBe("failed");
    expect(check.verify?.outputTail).toContain(SAMPLE_TEST_NAME);
    expect(ledger.conclusion?.conclusion).toBe("failure");
    expect(r.stdout).toMatch(/^check +FAIL verify_failed /m);
    expect(r.stdout).not.toContain("PASS (verified)");
    expect(r.summary).not.toContain("PASS (verified)");
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["failure"]],
    ]);
    // --commit on a failed run.
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(ledger.postedCommit).toBeUndefined();
    expect(ledger.patch?.path).toBe(join(r.runDir!, "patch.diff"));
    expect(readFileSync(join(r.runDir!, "patch.diff"), "utf8")).toContain("+  return a * b;");
    expect(r.stdout).toContain("--commit: nothing was committed because the run did not pass");
  });
});

describe("the planner's reply is untrusted (SPEC §8)", () => {
  const fence = /<<<DATA refusals nonce=([^>\s]+)>>>\n([\s\S]*?)\n<<<END DATA nonce=([^>\s]+)>>>/;

  test("a plan granting Bash(*) and carrying success_check.verify is refused for both reasons; one repair call quotes both inside a nonce fence, and the repaired plan runs to success", async () => {
    const h = await cliInProcess({
      plays: fixSumPlays({ plannerReplies: [refusedTwoNodePlan(), twoNodePlan()] }),
    });

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    // The first planner call, then one repair call (the model server told them apart by this wording).
    const planner = h.madeFor("planner");
    expect(planner.map((c) => c.prompt.includes("Your previous plan was refused"))).toEqual([false, true]);
    const prompt = planner[1]!.prompt;
    const fenced = fence.exec(prompt);
    expect(fenced, prompt).not.toBeNull();
    expect(fenced![3]).toBe(fenced![1]);
    const quoted = fenced![2]!;
    expect(quoted).toContain('"Bash(*)"');
    expect(quoted).toContain("success_check.verify");
    // The first call carried no refusals at all.
    expect(planner[0]!.prompt).not.toContain("<<<DATA refusals");

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    const refusals = ledger.plan.repaired?.refusals ?? [];
    expect(refusals.some((x) => x.includes('"Bash(*)"'))).toBe(true);
    expect(refusals.some((x) => x.includes("success_check.verify"))).toBe(true);
    expect(r.stdout).toContain("re-planned once after a refusal");
    expect(rowWords(ledger)).toEqual(["implement PASS (exit-only)", "check PASS (verified)"]);
    expect(ledger.conclusion?.conclusion).toBe("success");
  });

  test("a repair reply that is refused again fails the run: exit 1, exactly 2 planner calls, rejected.json kept, no node ran", async () => {
    const h = await cliInProcess({
      plays: fixSumPlays({ plannerReplies: [refusedTwoNodePlan(), refusedTwoNodePlan()] }),
    });

    const r = await h.run(["--verify-cmd", "npm test"]);

    expect(r.exitCode).toBe(1);
    // The planner call and its repair call (the model server told them apart by the repair's wording).
    expect(h.calls().map((c) => c.label)).toEqual(["planner", "planner"]);
    expect(h.madeFor("planner").map((c) => c.prompt.includes("Your previous plan was refused"))).toEqual([
      false,
      true,
    ]);
    const ledger = r.ledger!;
    expect(ledger.conclusion?.conclusion).toBe("failure");
    expect(ledger.rows).toEqual([]);
    const rejected = JSON.parse(readFileSync(join(r.runDir!, "rejected.json"), "utf8")) as {
      refusals: string[];
      rejected: { nodes: { id: string; allowed_tools: string[]; success_check?: { verify?: unknown } }[] };
    };
    expect(rejected.refusals.some((x) => x.includes('"Bash(*)"'))).toBe(true);
    expect(rejected.refusals.some((x) => x.includes("success_check.verify"))).toBe(true);
    const checkNode = rejected.rejected.nodes.find((n) => n.id === "check");
    expect(checkNode?.allowed_tools).toContain("Bash(*)");
    expect(checkNode?.success_check?.verify).toEqual({ command: "true" });
    expect(readdirSync(join(r.runDir!, "nodes"))).toEqual([]);
    expect(existsSync(join(r.runDir!, "graph.json"))).toBe(false);
    expect(await h.repo.read("src/sum.js")).toBe(BUGGY_SUM);
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => run.completions.map((c) => c.conclusion))).toEqual([["failure"]]);
  });
});

describe("processes and secrets (SPEC §9)", () => {
  test("a verify command that prints the GitHub token and the model key (as read from /proc) reaches no output: stdout, --json, --summary-out, the check run and every run-directory file are redacted; patch.diff keeps the nodes' bytes and the ledger says it holds a secret", async () => {
    const token = "ghs_leakedThroughProc0123456789abcdefXYZ";
    const modelKey = "sk-ant-leaked-model-key-0123456789";
    const h = await cliInProcess({
      plays: fixSumPlays({ newBody: `return a + b; // ${token}` }),
    });
    const outDir = mkdtempSync(join(tmpdir(), "eg-e2e-leak-"));
    onTestFinished(() => rmSync(outDir, { recursive: true, force: true }));
    // Stands in for /proc/$PPID/environ: the verify command cannot get the values from its own environment.
    const leak = join(outDir, "parent-environ.txt");
    writeFileSync(leak, `GITHUB_TOKEN=${token}\nANTHROPIC_API_KEY=${modelKey}\n`);
    const verifyCmd = `cat '${leak}'; printf '%s' '${token}' | base64; npm test; exit 1`;

    const r = await h.run(["--verify-cmd", verifyCmd, "--json"], {
      env: { GITHUB_TOKEN: token, ANTHROPIC_API_KEY: modelKey },
    });

    expect(r.exitCode, r.stderr).toBe(1);
    // The model CLI still got its credential through set (value scrubbing would have dropped it).
    expect(h.madeFor("implement").length).toBeGreaterThan(0);
    // Under --json, stdout is the ledger alone.
    const ledger = JSON.parse(r.stdout) as Ledger;
    const runDir = join(ledger.patch!.path, "..");
    expect(row(ledger, "check").verify?.outputTail).toContain("GITHUB_TOKEN=***");
    expect(row(ledger, "check").verify?.outputTail).toContain("ANTHROPIC_API_KEY=***");
    const forms = [token, modelKey, Buffer.from(token).toString("base64").slice(0, 40)];
    const surfaces: Record<string, string> = {
      stdout: r.stdout,
      stderr: r.stderr,
      summary: r.summary ?? "",
      checkRun: JSON.stringify(r.checkRunRequests),
    };
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      );
    for (const file of walk(runDir)) {
      if (!file.endsWith("patch.diff")) surfaces[file] = readFileSync(file, "utf8");
    }
    expect(Object.keys(surfaces)).toEqual(
      expect.arrayContaining([expect.stringMatching(/ledger\.json$/), expect.stringMatching(/state\.json$/)]),
    );
    for (const [name, text] of Object.entries(surfaces)) {
      for (const form of forms) expect(text, `${name} holds ${form}`).not.toContain(form);
    }
    // The patch is the nodes' content byte for byte; its preview is redacted and says why.
    expect(readFileSync(join(runDir, "patch.diff"), "utf8")).toContain(token);
    expect(ledger.patch).toMatchObject({ holdsSecret: true });
    expect(ledger.patch?.preview).toContain("return a + b; // ***");
    expect(r.summary).toContain("The patch holds a known secret value");
    // The surfaces really carried the printed output, redacted.
    expect(r.summary).toContain("GITHUB_TOKEN=***");
    expect(JSON.stringify(r.checkRunRequests)).toContain("GITHUB_TOKEN=***");
  });
});

describe("the evidence tree on GitHub's merge checkout (SPEC §6)", () => {
  test("a review-only run on a merge commit names the starting commit and its tree, and the sink's evidence tree equals HEAD^{tree}: success", async () => {
    const h = await cliInProcess({
      makeRepo: makeMergeCheckout,
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });
    const merge = await h.repo.git(["rev-parse", "HEAD"]);
    const mergeTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);
    expect(await h.repo.git(["rev-list", "--parents", "-n", "1", "HEAD"])).toMatch(/^\S+ \S+ \S+$/);

    const r = await h.run(["--verify-cmd", "test -f feature.txt && test -f base.txt"]);

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    expect(ledger.startingCommit?.sha).toBe(merge);
    expect(ledger.startingCommit?.tree).toBe(mergeTree);
    expect(ledger.startingCommit?.description).toContain(merge.slice(0, 7));
    expect(rowWords(ledger)).toEqual(["review PASS (verified)"]);
    expect(row(ledger, "review").verify?.evidenceTree).toBe(mergeTree);
    expect(ledger.evidenceTree).toBe(mergeTree);
    expect(ledger.conclusion?.conclusion).toBe("success");
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(merge);
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [merge, ["success"]],
    ]);
  });
});
