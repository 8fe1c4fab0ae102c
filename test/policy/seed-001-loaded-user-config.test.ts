/**
 * Seed 001 §3 (ADR "a planned node may carry the operator's configuration, if the operator says so"): the
 * thirteen tests the implementation owes, written against this project (SPEC §8, §11), each titled with
 * its seed number. The opt-in is `--accept-loaded-user-config` / input `accept-loaded-user-config`, the
 * engine option `acceptLoadedUserConfig`; it drops layers 1 and 4 of every planned node and nothing else.
 *
 * Real parts: the pinned `claude` and `codex` CLIs against the scripted model server, real git
 * repositories, real verify commands. Where a test must see the spawned argv or environment, the
 * executable is a tiny `sh` wrapper in the temp directory that records its argv and its environment and
 * `exec`s the real pinned CLI; the model environment is the CLI's own builder (`cliSecrets`) over a
 * runner-like environment (GitHub token, `INPUT_*`, `ACTIONS_*`, the other runtime's credentials).
 *
 * - Test 8 (a goal loop's later cycles print the slot) has no counterpart: this project has no goal loop
 *   (no `--max-cycles`, no assessor, no re-planning cycle — `auto` plans once). There is no test for it and
 *   no stand-in. Every plan this project makes goes through `planAuto` (src/engine/auto-plan.ts), whose
 *   slot tests 6 and 7 pin.
 * - Test 12's "chat" is, here, every other surface that could carry the choice: the policy file, a
 *   planner reply, `resume`, and the action's other modes. PR text and the goal are planner input only
 *   (test 1's isolated run has the flag's words in its goal). This project has no comment commands yet.
 * - Test 5: this project has neither agent mapping nor skill activation. What guarantees they stay off is
 *   asserted instead: a plan naming an `agent` or granting `Skill` is refused, the policy file cannot add
 *   `Skill`, and no opted-in node's `--tools` can hold it.
 * - Test 11's neighbour claim (managed policy survives) gets no test, as the seed says: no machine here has
 *   a managed settings file.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readActionInputs } from "../../src/action/inputs.js";
import { parseAutoFlags, parsePlanFlags } from "../../src/cli/parse-auto-flags.js";
import { parseResumeFlags } from "../../src/cli/parse-resume-flags.js";
import { runCliPlan } from "../../src/cli/plan-command.js";
import type { AutoRunResult } from "../../src/engine/auto-run.js";
import type { RunHooks } from "../../src/engine/leg.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { validatePlannedSpec } from "../../src/plan/planned-rules.js";
import { DEFAULT_PLANNED_ALLOWLIST, extendAllowlist } from "../../src/policy/allowlist.js";
import { plannedNodePolicies, plannedNodePolicy } from "../../src/policy/ceiling.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { handWrittenDisclosure, plannedRunDisclosure } from "../../src/policy/disclosure.js";
import { parsePolicyFile } from "../../src/policy/policy-file.js";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { cliSecrets } from "../../src/run/credentials.js";
import { buildClaudeArgv } from "../../src/runtime/claude-argv.js";
import { buildCodexArgv } from "../../src/runtime/codex-argv.js";
import { type GraphHarness, startGraphHarness } from "../engine/graph-harness.js";
import { historyText, RUNTIMES } from "../engine/runtime-harness.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { CODEX_BIN } from "../runtime/real-codex.js";
import { cliHarness } from "../support/cli-harness.js";
import {
  claudeEnvFor,
  codexEnvFor,
  type ModelScript,
  type RecordedRequest,
} from "../support/model-server/index.js";
import { makeTempRepo } from "../support/temp-repo.js";

// ---- the disclosure literals (seed §3 test 6: whole literals, never a prefix) ------------------------

const CLI = {
  claudeIsolated:
    "Planned nodes run isolated: no user, project or local settings load for them, so no standing permission " +
    "grant widens a declared scope such as Bash(git *), and your CLAUDE.md, hooks and MCP servers are not " +
    "available to them. A declared scope is a command prefix, not a sandbox: a Bash(git …) grant is narrowed by " +
    "deny rules for git's known ways to run programs, write files or reach the network. SECURITY.md lists what " +
    "this isolation does not cover.",
  claudeLoaded:
    "Planned nodes run with your configuration (--accept-loaded-user-config): user, project and local settings " +
    "load, and with them your CLAUDE.md, hooks and MCP servers. Standing permission grants in those settings load " +
    "too, so a declared scope such as Bash(git *) is a declaration again, not a limit: a call those settings " +
    "allow will run. Each node's --tools set and deny list still bind, and enterprise or managed policy is " +
    "neither dropped nor widened by this choice. Agent mapping and skill activation stay off: this project " +
    "stages no agent or skill definition for a planned node, and a plan can neither name an agent nor grant " +
    "the Skill tool, so agents and skills your settings define load but no planned node is given them.",
  codexIsolated:
    "Planned Codex nodes run isolated: they ignore your user configuration (config.toml), the repository's rules, " +
    "project instructions such as AGENTS.md, and MCP servers. Not dropped: your own AGENTS.md in CODEX_HOME " +
    "(~/.codex/AGENTS.md by default) still reaches them, because codex's isolation flags leave that file in. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line either way.',
  codexLoaded:
    "Planned Codex nodes run with your configuration (--accept-loaded-user-config): user configuration " +
    "(config.toml), the repository's rules and AGENTS.md files, and the MCP servers they declare all load. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line, so this choice widens neither.',
} as const;

const ACTION = {
  claudeIsolated:
    "Planned nodes run isolated: no user, project or local settings load for them, so no standing permission " +
    "grant widens a declared scope such as Bash(git *), and the operator's CLAUDE.md, hooks and MCP servers " +
    "are not available to them. In this action each CLI runs with a fresh HOME, so the operator's configuration " +
    "is the base branch's project files only. A declared scope is a command prefix, not a sandbox: a Bash(git …) " +
    "grant is narrowed by deny rules for git's known ways to run programs, write files or reach the network. " +
    "SECURITY.md lists what this isolation does not cover.",
  claudeLoaded:
    "Planned nodes run with the operator's configuration (accept-loaded-user-config: true): user, project and " +
    "local settings load, and with them the operator's CLAUDE.md, hooks and MCP servers. In this action each CLI " +
    "runs with a fresh HOME, so the operator's configuration is the base branch's project files only. Standing " +
    "permission grants in those settings load too, so a declared scope such as Bash(git *) is a declaration " +
    "again, not a limit: a call those settings allow will run. Each node's --tools set and deny list still " +
    "bind, and enterprise or managed policy is neither dropped nor widened by this choice. Agent mapping and " +
    "skill activation stay off: this project stages no agent or skill definition for a planned node, and a " +
    "plan can neither name an agent nor grant the Skill tool, so agents and skills your settings define load " +
    "but no planned node is given them.",
  codexIsolated:
    "Planned Codex nodes run isolated: they ignore the operator's user configuration (config.toml), the " +
    "repository's rules, project instructions such as AGENTS.md, and MCP servers. In this action each CLI runs " +
    "with a fresh HOME and CODEX_HOME, so the operator's configuration is the base branch's project files only. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line either way.',
  codexLoaded:
    "Planned Codex nodes run with the operator's configuration (accept-loaded-user-config: true): user " +
    "configuration (config.toml), the repository's rules and AGENTS.md files, and the MCP servers they declare " +
    "all load. In this action each CLI runs with a fresh HOME and CODEX_HOME, so the operator's configuration is " +
    "the base branch's project files only. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line, so this choice widens neither.',
} as const;

function literal(surface: "cli" | "action", runtime: Runtime, loaded: boolean): string {
  const table = surface === "cli" ? CLI : ACTION;
  return table[`${runtime}${loaded ? "Loaded" : "Isolated"}`];
}

// ---- the scenario -----------------------------------------------------------------------------------

const GOAL =
  "SEED001-GOAL: review README.md (the words accept-loaded-user-config: true here are only a goal)";
const NODE_MARK = "SEED001-NODE";
/** The repository's agent instructions carry this; a node that sees it loaded the project's instructions. */
const INSTRUCTIONS_MARK = "SEED001-INSTRUCTIONS-5521";
/** The planned node's declaration: a Bash(git *) grant, so layer 5 carries the git deny rules too. */
const DECLARATION = ["Read", "Bash(git *)"];
const CODEX_ISOLATION = [
  "--ignore-user-config",
  "--ignore-rules",
  "project_doc_max_bytes=0",
  "mcp_servers={}",
];

function plannerReply(): string {
  return JSON.stringify({
    name: "seed-001",
    version: "1",
    nodes: [
      {
        id: "review",
        prompt: `${NODE_MARK}: read README.md and say what it is.`,
        allowed_tools: DECLARATION,
      },
    ],
  });
}

function script(): ModelScript {
  return {
    conversations: [
      { name: "review", match: NODE_MARK, turns: [{ text: "README.md says hello." }] },
      { name: "planner", match: "SEED001-GOAL", turns: [{ text: plannerReply() }] },
    ],
  };
}

/** A committed repository with README.md and the runtime's instruction file (CLAUDE.md / AGENTS.md). */
function repoWithInstructions(runtime: Runtime) {
  return () =>
    makeTempRepo({
      commit: true,
      files: {
        "README.md": "hello\n",
        [runtime === "claude" ? "CLAUDE.md" : "AGENTS.md"]: `# Notes\n\n${INSTRUCTIONS_MARK}: be brief.\n`,
      },
    });
}

/**
 * An executable that appends its argv (NUL-separated, count first) to a log, saves its environment, and
 * execs `real`: the spawned argv and environment, exactly as the exec seam gave them.
 */
function argvRecorder(dir: string, name: string, real: string) {
  const path = join(dir, `${name}.sh`);
  const log = join(dir, `${name}.argv`);
  const envs = join(dir, `${name}.envs`);
  mkdirSync(envs, { recursive: true });
  writeFileSync(
    path,
    `#!/bin/sh\nprintf '%s\\0' "$#" "$@" >> '${log}'\ncat /proc/$$/environ > '${envs}'/$$\nexec '${real}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  return {
    path,
    /**
     * The environment of every call, as the exec seam gave it (`/proc/PID/environ`: `sh` itself would drop
     * names it cannot hold, such as GitHub's `INPUT_ANTHROPIC-API-KEY`).
     */
    envCalls(): Record<string, string>[] {
      return readdirSync(envs).map((file) =>
        Object.fromEntries(
          readFileSync(join(envs, file), "utf8")
            .split("\0")
            .filter((entry) => entry.includes("="))
            .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
        ),
      );
    },
    calls(): string[][] {
      if (!existsSync(log)) return [];
      const parts = readFileSync(log, "utf8").split("\0");
      parts.pop();
      const calls: string[][] = [];
      for (let i = 0; i < parts.length; ) {
        const n = Number(parts[i++]);
        calls.push(parts.slice(i, i + n));
        i += n;
      }
      return calls;
    },
    /** The calls whose prompt (the last argument) is the planned node's. */
    nodeCalls(): string[][] {
      return this.calls().filter((argv) => argv.at(-1)?.includes(NODE_MARK) === true);
    },
    clear(): void {
      rmSync(log, { force: true });
      rmSync(envs, { recursive: true, force: true });
      mkdirSync(envs);
    },
  };
}

/** Variables the verify command must never get (seed §2.8, SPEC §9), set in the run's base environment. */
const CREDENTIALS = {
  ANTHROPIC_API_KEY: "sk-ant-seed001-key",
  ANTHROPIC_AUTH_TOKEN: "seed001-auth-token",
  OPENAI_API_KEY: "sk-openai-seed001",
  CODEX_API_KEY: "seed001-codex-key",
  GITHUB_TOKEN: "ghs_seed001token",
  GH_TOKEN: "gho_seed001token",
};

/**
 * What a runner's environment holds besides the model's own: the GitHub token, action inputs (which carry
 * the secrets), runner service tokens and the other runtime's credentials. None may reach a model CLI.
 */
const RUNNER_ONLY = {
  GITHUB_TOKEN: "ghs_seed001token",
  GH_TOKEN: "gho_seed001token",
  "INPUT_ANTHROPIC-API-KEY": "sk-ant-seed001-input",
  "INPUT_OPENAI-API-KEY": "sk-openai-seed001-input",
  INPUT_GITHUB_TOKEN: "ghs_seed001input",
  // Not secret-like by name: only the INPUT_ / ACTIONS_ rules keep these out.
  "INPUT_ACCEPT-LOADED-USER-CONFIG": "seed001-input-opt-in",
  INPUT_GOAL: "seed001-input-goal",
  ACTIONS_CACHE_URL: "https://cache.example/seed001",
  ACTIONS_STEP_DEBUG: "seed001-step-debug",
  ACTIONS_RUNTIME_TOKEN: "seed001-runtime-token",
  ACTIONS_ID_TOKEN_REQUEST_URL: "https://token.example/seed001",
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: "seed001-id-token",
};
const OTHER_CREDENTIALS: Readonly<Record<Runtime, Readonly<Record<string, string>>>> = {
  claude: { OPENAI_API_KEY: "sk-openai-seed001", CODEX_API_KEY: "seed001-codex-key" },
  codex: { ANTHROPIC_API_KEY: "sk-ant-seed001-key", ANTHROPIC_AUTH_TOKEN: "seed001-auth-token" },
};
/** The runtime's own credential variables (each runtime's `credentialVariables`). */
const OWN_CREDENTIALS: Readonly<Record<Runtime, readonly string[]>> = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};

/**
 * The product's model-environment builder (`cliSecrets(env).modelEnv`) over a runner-like environment:
 * the harness's route to the scripted server and its own credential (claude: the harness's one home;
 * codex: a fresh `CODEX_HOME` per call), plus {@link RUNNER_ONLY} and the other runtime's credentials.
 */
function productModelEnv(h: GraphHarness) {
  return (label: string, runtime: Runtime): Readonly<Record<string, string>> => {
    const route =
      runtime === "claude"
        ? claudeEnvFor(h.server.url, h.home)
        : codexEnvFor(h.server.url, mkdtempSync(join(h.scratch, `codex-home-${label}-`)));
    const runnerEnv = { ...hermeticBase(), ...RUNNER_ONLY, ...OTHER_CREDENTIALS[runtime], ...route };
    return cliSecrets(runnerEnv).modelEnv(label, runtime);
  };
}

function hermeticBase(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

function rawState(runDir: string): {
  tool_policies: Record<string, Record<string, unknown>>;
  legs: unknown[];
  plan: { disclosure: string } | null;
} {
  return JSON.parse(readFileSync(join(runDir, "state.json"), "utf8"));
}

function finished(result: AutoRunResult | { kind: string }): { ledger: Ledger; runDir: string } {
  if (result.kind !== "finished") throw new Error(`did not finish: ${JSON.stringify(result)}`);
  return result as unknown as { ledger: Ledger; runDir: string };
}

function rowWords(ledger: Ledger): string[] {
  return ledger.rows.map((r) =>
    r.verdict === "PASS"
      ? `${r.nodeId} PASS (${r.qualifier})`
      : r.verdict === "FAIL"
        ? `${r.nodeId} FAIL ${r.cause}${r.superseded ? " superseded" : ""}`
        : `${r.nodeId} SKIPPED`,
  );
}

/** One auto run (its verify fails: a file is missing) and its `resume --retry-failed` (the file is there). */
interface Scenario {
  readonly first: { readonly ledger: Ledger; readonly runDir: string };
  readonly resumed: { readonly ledger: Ledger; readonly runDir: string };
  readonly stateAfterFirst: ReturnType<typeof rawState>;
  readonly stateAfterResume: ReturnType<typeof rawState>;
  /** What the first leg's hooks saw, in order: `plan <disclosure>` and `started <node>`. */
  readonly firstEvents: readonly string[];
  readonly resumedEvents: readonly string[];
  readonly firstNodeArgv: readonly (readonly string[])[];
  readonly resumedNodeArgv: readonly (readonly string[])[];
  /** `env` as the first leg's verify command saw it. */
  readonly verifyEnv: string;
  /** The environment of each model CLI call (planner and node) of the first leg, as the CLI got it. */
  readonly cliEnvs: readonly Record<string, string>[];
  /** The model requests of the planned node in the first leg. */
  readonly nodeRequests: readonly RecordedRequest[];
}

async function runScenario(h: GraphHarness, loaded: boolean): Promise<Scenario> {
  const label = loaded ? "loaded" : "isolated";
  const rec = argvRecorder(h.scratch, `cli-${label}`, h.runtime === "claude" ? CLAUDE_BIN : CODEX_BIN);
  const go = join(h.scratch, `go-${label}`);
  const envFile = join(h.scratch, `env-${label}.txt`);
  const recorder = (events: string[]): RunHooks => ({
    onPlan: (plan) => {
      events.push(`plan ${plan.disclosure}`);
    },
    onNodeStarted: (id) => {
      events.push(`started ${id}`);
    },
  });
  const firstEvents: string[] = [];
  const requestsBefore = h.server.requests.length;
  const first = finished(
    await h.auto({
      goal: GOAL,
      verifyCmd: `env > '${envFile}' && test -f '${go}'`,
      acceptLoadedUserConfig: loaded,
      baseEnv: { ...hermeticBase(), ...CREDENTIALS },
      hooks: recorder(firstEvents),
      modelEnv: productModelEnv(h),
      ...(h.runtime === "claude" ? { claudeExecutable: rec.path } : { codexExecutable: rec.path }),
    }),
  );
  const nodeRequests = h.server.requests.slice(requestsBefore).filter((r) => r.conversation === "review");
  const stateAfterFirst = rawState(first.runDir);
  const verifyEnv = readFileSync(envFile, "utf8");
  const firstNodeArgv = rec.nodeCalls();
  const cliEnvs = rec.envCalls();
  rec.clear();
  writeFileSync(go, "");
  const resumedEvents: string[] = [];
  const resumed = await h.resume(
    first.ledger.runId,
    { kind: "retry-failed" },
    { executable: rec.path, hooks: recorder(resumedEvents) },
  );
  return {
    first,
    resumed,
    stateAfterFirst,
    stateAfterResume: rawState(resumed.runDir),
    firstEvents,
    resumedEvents,
    firstNodeArgv,
    resumedNodeArgv: rec.nodeCalls(),
    verifyEnv,
    cliEnvs,
    nodeRequests,
  };
}

/** Whether `argv` holds `flag` immediately followed by `value`. */
function hasPair(argv: readonly string[], flag: string, value: string): boolean {
  return argv.some((a, i) => a === flag && argv[i + 1] === value);
}

// ---- engine level, both runtimes ----------------------------------------------------------------------

describe.each(RUNTIMES)("seed 001 on %s (engine, real CLI)", (runtime) => {
  let h: GraphHarness;
  let isolated: Scenario;
  let loaded: Scenario;
  beforeAll(async () => {
    h = await startGraphHarness({ runtime, makeRepo: repoWithInstructions(runtime), script });
    isolated = await runScenario(h, false);
    loaded = await runScenario(h, true);
  }, 240_000);
  afterAll(async () => {
    await h?.cleanup();
  });

  test("10: the resumed leg does not erase the choice — state.json still omits settingSources for every planned node", () => {
    expect(rowWords(loaded.resumed.ledger)).toEqual([
      "review FAIL verify_failed superseded",
      "review PASS (verified)",
    ]);
    expect(loaded.stateAfterResume.legs).toHaveLength(2);
    for (const state of [loaded.stateAfterFirst, loaded.stateAfterResume]) {
      expect(Object.keys(state.tool_policies)).toEqual(["review"]);
      expect(Object.hasOwn(state.tool_policies.review!, "settingSources")).toBe(false);
      expect(state.tool_policies.review!.strictMcpConfig).toBe(false);
    }
    // The isolated run's record survives its resumed leg just the same.
    expect(isolated.stateAfterResume.tool_policies.review).toMatchObject({
      settingSources: "",
      strictMcpConfig: true,
    });
  });

  test('1: default is off — an auto run without the opt-in records settingSources "" and strict MCP config for every planned node (policy map)', () => {
    expect(parseAutoFlags(["--goal", "g", "--verify-cmd", "true"])).toMatchObject({
      ok: true,
      flags: { acceptLoadedUserConfig: false },
    });
    const inputs = readActionInputs({ "INPUT_GITHUB-TOKEN": "ghs_x", INPUT_GOAL: "g" });
    expect(inputs.ok && inputs.inputs.acceptLoadedUserConfig).toBe(false);
    // The goal carries the flag's words; only the launch option sets it.
    const policies = isolated.stateAfterFirst.tool_policies;
    expect(Object.keys(policies)).toEqual(["review"]);
    for (const policy of Object.values(policies)) {
      expect(policy.settingSources).toBe("");
      expect(policy.strictMcpConfig).toBe(true);
    }
  });

  test("2: the opt-in drops layers 1 and 4 and nothing else — allowedTools, tools and disallowedTools byte-identical to the isolated run's", () => {
    const off = isolated.stateAfterFirst.tool_policies.review!;
    const on = loaded.stateAfterFirst.tool_policies.review!;
    expect(Object.keys(off).sort()).toEqual([
      "allowedTools",
      "disallowedTools",
      "settingSources",
      "strictMcpConfig",
      "tools",
    ]);
    expect(Object.keys(on).sort()).toEqual(["allowedTools", "disallowedTools", "strictMcpConfig", "tools"]);
    expect(JSON.stringify(on.allowedTools)).toBe(JSON.stringify(off.allowedTools));
    expect(JSON.stringify(on.tools)).toBe(JSON.stringify(off.tools));
    expect(JSON.stringify(on.disallowedTools)).toBe(JSON.stringify(off.disallowedTools));
    expect(on.allowedTools).toEqual(DECLARATION);
    expect(on.tools).toEqual(["Read", "Bash"]);
    // Observable, not only recorded: the opted-in node saw the repository's instructions; the isolated one did not.
    expect(loaded.nodeRequests.length).toBeGreaterThan(0);
    expect(isolated.nodeRequests.length).toBeGreaterThan(0);
    for (const r of loaded.nodeRequests) expect(historyText(r)).toContain(INSTRUCTIONS_MARK);
    for (const r of isolated.nodeRequests) expect(historyText(r)).not.toContain(INSTRUCTIONS_MARK);
  });

  test("6: the run's disclosure slot is the runtime's loaded or isolated literal, from the policies — never both", () => {
    expect(loaded.first.ledger.plan.disclosure).toBe(literal("cli", runtime, true));
    expect(isolated.first.ledger.plan.disclosure).toBe(literal("cli", runtime, false));
    expect(loaded.firstEvents.filter((e) => e.startsWith("plan "))).toEqual([
      `plan ${literal("cli", runtime, true)}`,
    ]);
  });

  test("9: resume inherits and discloses — the loaded line before anything runs, argv without isolation; an isolated plan resumes isolated", () => {
    // Before anything runs in the resumed leg: the slot, then the node.
    expect(loaded.resumedEvents).toEqual([`plan ${literal("cli", runtime, true)}`, "started review"]);
    expect(loaded.resumed.ledger.plan.disclosure).toBe(literal("cli", runtime, true));
    expect(isolated.resumedEvents).toEqual([`plan ${literal("cli", runtime, false)}`, "started review"]);
    expect(isolated.resumed.ledger.plan.disclosure).toBe(literal("cli", runtime, false));
    expect(loaded.resumedNodeArgv.length).toBeGreaterThan(0);
    expect(isolated.resumedNodeArgv.length).toBeGreaterThan(0);
    for (const argv of [...loaded.firstNodeArgv, ...loaded.resumedNodeArgv]) {
      if (runtime === "claude") {
        expect(argv).not.toContain("--setting-sources");
        expect(argv).not.toContain("--strict-mcp-config");
        expect(hasPair(argv, "--tools", "Read,Bash")).toBe(true);
      } else {
        for (const item of CODEX_ISOLATION) expect(argv).not.toContain(item);
        expect(hasPair(argv, "--sandbox", "workspace-write")).toBe(true);
        expect(hasPair(argv, "--config", 'approval_policy="never"')).toBe(true);
      }
    }
    for (const argv of isolated.resumedNodeArgv) {
      if (runtime === "claude") {
        expect(hasPair(argv, "--setting-sources", "")).toBe(true);
        expect(argv).toContain("--strict-mcp-config");
      } else {
        for (const item of CODEX_ISOLATION) expect(argv).toContain(item);
      }
    }
  });

  test("11: the verify command's environment is scrubbed the same way under the opt-in as isolated", () => {
    const names = (env: string) =>
      env
        .split("\n")
        .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
        .map((line) => line.slice(0, line.indexOf("=")))
        .sort();
    for (const env of [loaded.verifyEnv, isolated.verifyEnv]) {
      const present = names(env);
      expect(present).toContain("PATH");
      for (const name of Object.keys(CREDENTIALS)) expect(present).not.toContain(name);
      for (const value of Object.values(CREDENTIALS)) expect(env).not.toContain(value);
    }
    expect(names(loaded.verifyEnv)).toEqual(names(isolated.verifyEnv));
  });

  test("11: the model CLI's environment is the same under the opt-in as isolated — no GitHub token, INPUT_* or ACTIONS_*, its own credential only", () => {
    const names = (env: Record<string, string>) => Object.keys(env).sort();
    // The planner's call and the planned node's, in each run.
    expect(loaded.cliEnvs).toHaveLength(2);
    expect(isolated.cliEnvs).toHaveLength(2);
    for (const env of [...loaded.cliEnvs, ...isolated.cliEnvs]) {
      const present = names(env);
      expect(present).toContain("PATH");
      for (const name of present) expect(name).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN$|GH_TOKEN$)/);
      for (const value of [...Object.values(RUNNER_ONLY), ...Object.values(OTHER_CREDENTIALS[runtime])])
        expect(JSON.stringify(env)).not.toContain(value);
      for (const name of Object.keys(OTHER_CREDENTIALS[runtime])) expect(present).not.toContain(name);
      // Its own credential, and it reached the model server with it (both runs passed).
      expect(present.filter((n) => OWN_CREDENTIALS[runtime].includes(n))).toEqual([
        runtime === "claude" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
      ]);
    }
    expect(loaded.cliEnvs.map(names)).toEqual(isolated.cliEnvs.map(names));
  });

  test("13: a hand-written run is untouched — its own allowedTools only, no isolation, the hand-written disclosure", async () => {
    const rec = argvRecorder(h.scratch, "cli-hand", runtime === "claude" ? CLAUDE_BIN : CODEX_BIN);
    const run = await h.run(
      `version: "1"\nnodes:\n  - id: hand\n    prompt: "${NODE_MARK}: a hand-written review"\n    allowed_tools: [Read]\n`,
      { executable: rec.path },
    );
    expect(rowWords(run.ledger)).toEqual(["hand PASS (exit-only)"]);
    expect(rawState(run.runDir).tool_policies).toEqual({
      hand: { allowedTools: ["Read"], strictMcpConfig: false, disallowedTools: [] },
    });
    expect(run.ledger.plan.disclosure).toBe(handWrittenDisclosure("cli", runtime));
    const [argv] = rec.nodeCalls();
    expect(argv).toBeDefined();
    if (runtime === "claude") {
      expect(hasPair(argv!, "--allowedTools", "Read")).toBe(true);
      for (const flag of ["--setting-sources", "--tools", "--strict-mcp-config", "--disallowedTools"])
        expect(argv).not.toContain(flag);
    } else {
      for (const item of CODEX_ISOLATION) expect(argv).not.toContain(item);
      expect(hasPair(argv!, "--sandbox", "workspace-write")).toBe(true);
    }
  });
});

// ---- pure parts -------------------------------------------------------------------------------------

const SID = "0b9e5b8c-2f6d-4e7a-9c1d-3a5f7e9b1c2d";
const ISOLATED = plannedNodePolicy(DECLARATION, { loadedUserConfig: false });
const LOADED = plannedNodePolicy(DECLARATION, { loadedUserConfig: true });

describe("seed 001 argv and rules", () => {
  test("3: codex argv — the four isolation items only without the opt-in; --sandbox and approval_policy always", () => {
    const argv = (policy: ToolPolicy) =>
      buildCodexArgv({ prompt: "p", permissionMode: "dontAsk", policy, session: { kind: "fresh" } });
    const base = [
      "exec",
      "--json",
      "--color",
      "never",
      "--skip-git-repo-check",
      "--sandbox",
      "workspace-write",
      "--config",
      'approval_policy="never"',
      // workspace-write's extent, pinned on every such node (a loaded config.toml cannot widen it).
      "--config",
      "sandbox_workspace_write.writable_roots=[]",
      "--config",
      "sandbox_workspace_write.network_access=false",
    ];
    expect(argv(ISOLATED)).toEqual([
      ...base,
      "--ignore-user-config",
      "--ignore-rules",
      "--config",
      "project_doc_max_bytes=0",
      "--config",
      "mcp_servers={}",
      "--",
      "p",
    ]);
    expect(argv(LOADED)).toEqual([...base, "--", "p"]);
    // Read-only nodes keep their floor under the opt-in too.
    const readOnly = buildCodexArgv({
      prompt: "p",
      permissionMode: "plan",
      policy: LOADED,
      session: { kind: "fresh" },
    });
    expect(hasPair(readOnly, "--sandbox", "read-only")).toBe(true);
    expect(hasPair(readOnly, "--config", 'approval_policy="never"')).toBe(true);
  });

  test("4: claude argv — neither --setting-sources nor --strict-mcp-config under the opt-in; --allowedTools, --tools, --disallowedTools always", () => {
    const argv = (policy: ToolPolicy) =>
      buildClaudeArgv({
        prompt: "p",
        permissionMode: "dontAsk",
        policy,
        session: { kind: "fresh", sessionId: SID },
      });
    const on = argv(LOADED);
    const off = argv(ISOLATED);
    expect(on).not.toContain("--setting-sources");
    expect(on).not.toContain("--strict-mcp-config");
    expect(hasPair(off, "--setting-sources", "")).toBe(true);
    expect(off).toContain("--strict-mcp-config");
    for (const a of [on, off]) {
      expect(hasPair(a, "--allowedTools", "Read,Bash(git *)")).toBe(true);
      expect(hasPair(a, "--tools", "Read,Bash")).toBe(true);
      expect(hasPair(a, "--disallowedTools", LOADED.disallowedTools.join(","))).toBe(true);
    }
    // Exactly the two layers differ.
    expect(off.filter((x) => !on.includes(x))).toEqual(["--setting-sources", "", "--strict-mcp-config"]);
  });

  test("5: agent mapping and skills stay off — a plan cannot name an agent or grant Skill, the policy file cannot add Skill, no opted-in node's --tools holds it", () => {
    const plan = (node: Record<string, unknown>) =>
      validatePlannedSpec(
        { version: "1", nodes: [{ id: "n", prompt: "do it", allowed_tools: ["Read"], ...node }] },
        { allowlist: DEFAULT_PLANNED_ALLOWLIST },
      );
    const agent = plan({ agent: "reviewer" });
    expect(agent.ok).toBe(false);
    expect(!agent.ok && agent.refusals).toEqual([
      'node "n": agent: a plan never chooses a subagent definition for a node it wrote',
    ]);
    const skill = plan({ allowed_tools: ["Read", "Skill"] });
    expect(!skill.ok && skill.refusals.join("\n")).toContain(
      "Skill would let the plan choose which local skill files load",
    );
    const extended = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, ["Skill"]);
    expect(extended.ok).toBe(false);
    // Every declaration the allowlist permits: its opted-in --tools never names Skill; Task and Agent are denied.
    const policies = plannedNodePolicies(
      DEFAULT_PLANNED_ALLOWLIST.map((tool, i) => ({ id: `n${i}`, allowed_tools: [tool] })),
      { loadedUserConfig: true },
    );
    for (const policy of Object.values(policies)) {
      expect(policy.tools).not.toContain("Skill");
      expect(policy.disallowedTools).toEqual(expect.arrayContaining(["Task", "Agent"]));
      const argv = buildClaudeArgv({
        prompt: "p",
        permissionMode: "dontAsk",
        policy,
        session: { kind: "fresh", sessionId: SID },
      });
      expect(argv).not.toContain("--agent");
      expect(argv).not.toContain("--agents");
      expect(argv).not.toContain("--plugin-dir");
    }
  });

  test("6: the slot says one or the other, never both, never neither — {claude, codex} × {off, on} × {cli, action}, whole literals", () => {
    const seen = new Set<string>();
    for (const surface of ["cli", "action"] as const) {
      for (const runtime of RUNTIMES) {
        const on = plannedRunDisclosure({ review: LOADED }, { runtime, surface });
        const off = plannedRunDisclosure({ review: ISOLATED }, { runtime, surface });
        expect(on).toBe(literal(surface, runtime, true));
        expect(off).toBe(literal(surface, runtime, false));
        expect(on).not.toContain("run isolated");
        expect(off).not.toContain("accept-loaded-user-config");
        seen.add(on).add(off);
      }
    }
    expect(seen.size).toBe(8);
    // Neither: a planned run with no policy, or with disagreeing ones, is an internal error, not a blank slot.
    expect(() => plannedRunDisclosure({}, { runtime: "claude", surface: "cli" })).toThrow(/Internal error/);
    expect(() =>
      plannedRunDisclosure({ a: LOADED, b: ISOLATED }, { runtime: "claude", surface: "cli" }),
    ).toThrow(/Internal error/);
  });

  test("12: no other surface reaches it — policy-file key, planner reply field, resume flag, action input outside auto", () => {
    const file = parsePolicyFile("accept-loaded-user-config: true\n", { kind: "base-ref", ref: "main" });
    expect(file.ok).toBe(false);
    expect(!file.ok && file.errors.join("\n")).toContain('unknown key "accept-loaded-user-config"');

    const reply = validatePlannedSpec(
      {
        version: "1",
        accept_loaded_user_config: true,
        nodes: [
          { id: "n", prompt: "p", allowed_tools: ["Read"], setting_sources: null, settingSources: "user" },
        ],
      },
      { allowlist: DEFAULT_PLANNED_ALLOWLIST },
    );
    expect(reply.ok).toBe(false);
    expect(!reply.ok && reply.refusals.join("\n")).toContain(
      '"accept_loaded_user_config" is not a plan field',
    );
    expect(!reply.ok && reply.refusals.join("\n")).toContain("settingSources");

    const resume = parseResumeFlags([
      "20260101-000000-abcdef",
      "--retry-failed",
      "--accept-loaded-user-config",
    ]);
    expect(resume.ok).toBe(false);
    expect(!resume.ok && resume.errors).toEqual([
      "--accept-loaded-user-config does not apply to resume: it is inherited from the run's first leg (its recorded tool policies), and a resumed leg cannot widen them",
    ]);

    const env = (inputs: Record<string, string>) =>
      Object.fromEntries(
        Object.entries({ "github-token": "ghs_x", "accept-loaded-user-config": "true", ...inputs }).map(
          ([k, v]) => [`INPUT_${k.toUpperCase()}`, v],
        ),
      );
    const run = readActionInputs(env({ graph: "g.yml" }));
    expect(!run.ok && run.errors).toEqual([
      "input `accept-loaded-user-config` does not apply to mode run: hand-written nodes run with only their own allowed_tools and never with a loaded user configuration; drop it",
    ]);
    const resumed = readActionInputs(
      env({ mode: "resume", "resume-run-id": "20260101-000000-abcdef", "retry-failed": "true" }),
    );
    expect(!resumed.ok && resumed.errors).toEqual([
      "input `accept-loaded-user-config` does not apply to mode resume: it is inherited from the run's first leg (recorded in its tool policies), and a resumed leg takes nothing that could widen them; drop it",
    ]);
    const lint = readActionInputs(env({ mode: "lint", graph: "g.yml" }));
    expect(lint.ok).toBe(false);
    // Mode auto is the one place it is meant for: the workflow's input, read as typed.
    expect(readActionInputs(env({ goal: "g" }))).toMatchObject({
      ok: true,
      inputs: { acceptLoadedUserConfig: true },
    });
    expect(readActionInputs(env({ goal: "g", "accept-loaded-user-config": "false" }))).toMatchObject({
      ok: true,
      inputs: { acceptLoadedUserConfig: false },
    });
    expect(
      parsePlanFlags(["--goal", "g", "--verify-cmd", "true", "--accept-loaded-user-config"]),
    ).toMatchObject({
      ok: true,
      flags: { acceptLoadedUserConfig: true },
    });
  });
});

// ---- the CLI, real claude ---------------------------------------------------------------------------

/** `evidence-gate plan …` in-process: stdout, stderr and the exit code. */
async function planCli(h: Awaited<ReturnType<typeof cliHarness>>, flags: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCliPlan(
    ["--goal", GOAL, "--verify-cmd", "true", "--repo", h.repo.dir, "--claude-path", CLAUDE_BIN, ...flags],
    {
      cwd: h.scratch,
      env: h.baseEnv(),
      out: { write: (t: string) => (stdout += t) },
      err: { write: (t: string) => (stderr += t) },
    },
  );
  return { code, stdout, stderr, lines: stdout.split("\n") };
}

describe("seed 001 through the CLI (real claude)", () => {
  test("7: `plan` prints the slot — loaded with the flag, isolated without — and runs no node, mints no run directory", async () => {
    const h = await cliHarness({ makeRepo: repoWithInstructions("claude"), script });
    const on = await planCli(h, ["--accept-loaded-user-config"]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.lines).toContain(`  ${CLI.claudeLoaded}`);
    expect(on.stdout).not.toContain(CLI.claudeIsolated);
    expect(on.lines).toContain("  review  [Read, Bash(git *)]  verify: true");
    expect(on.lines).toContain("plan only: no node ran and no run directory was made");
    const off = await planCli(h, []);
    expect(off.code, off.stderr).toBe(0);
    expect(off.lines).toContain(`  ${CLI.claudeIsolated}`);
    expect(off.stdout).not.toContain(CLI.claudeLoaded);
    // Only the planner was called; nothing was written under the repository.
    expect(h.server.requests.length).toBeGreaterThan(0);
    expect(h.server.requests.every((r) => r.conversation === "planner")).toBe(true);
    expect(existsSync(join(h.repo.dir, ".evidence-gate"))).toBe(false);
    expect(await h.repo.git(["status", "--porcelain"])).toBe("");
  });

  test('9: `resume` of an opted-in run prints the loaded line before anything runs and spawns without --setting-sources; an isolated run resumes with --setting-sources ""', async () => {
    const h = await cliHarness({ makeRepo: repoWithInstructions("claude"), script });
    for (const loaded of [true, false]) {
      const label = loaded ? "loaded" : "isolated";
      const rec = argvRecorder(h.scratch, `e2e-${label}`, CLAUDE_BIN);
      const go = join(h.scratch, `go-${label}`);
      const flags = ["--verify-cmd", `test -f '${go}'`, ...(loaded ? ["--accept-loaded-user-config"] : [])];
      const first = await h.run(flags, {
        goal: GOAL,
        claudePath: rec.path,
        checkRunOut: false,
        summaryOut: false,
      });
      expect(first.exitCode, first.stderr).toBe(1);
      // auto printed the slot with the plan.
      expect(first.stdout.split("\n")).toContain(`  ${literal("cli", "claude", loaded)}`);
      expect(first.stdout).not.toContain(literal("cli", "claude", !loaded));
      rec.clear();
      writeFileSync(go, "");
      const r = await h.resume(first.ledger!.runId, ["--retry-failed"], {
        claudePath: rec.path,
        checkRunOut: false,
        summaryOut: false,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const out = r.stdout.split("\n");
      const slot = out.indexOf(`  ${literal("cli", "claude", loaded)}`);
      const started = out.findIndex((line) => line.startsWith("▶ review"));
      expect(out[slot - 1]).toBe("tool ceiling (as the run's first leg chose it):");
      expect(slot).toBeGreaterThan(0);
      expect(started).toBeGreaterThan(slot);
      expect(r.stdout).not.toContain(literal("cli", "claude", !loaded));
      const argvs = rec.nodeCalls();
      expect(argvs.length).toBeGreaterThan(0);
      for (const argv of argvs) {
        expect(argv.includes("--setting-sources")).toBe(!loaded);
        if (!loaded) expect(hasPair(argv, "--setting-sources", "")).toBe(true);
        expect(argv.includes("--strict-mcp-config")).toBe(!loaded);
        for (const flag of ["--allowedTools", "--tools", "--disallowedTools"]) expect(argv).toContain(flag);
      }
    }
  });
});
