/**
 * The measurement seed 001 §8 owes before `accept-loaded-user-config` is Accepted (seed 001 §7
 * falsifier 1; SPEC §8; docs/adr/0001-accept-loaded-user-config.md): when a planned node loads the
 * operator's configuration, do layer 3 (`--tools`) and layer 5 (`--disallowedTools`) still bind on Claude,
 * and does the sandbox still bind on Codex — and is the bill the disclosure states (a standing `Bash(*)`
 * makes `Bash(git *)` a declaration again) real?
 *
 * Real pinned CLIs (`claude` 2.1.332, `codex` 0.169.0 from node_modules/.bin) against the scripted model
 * server on loopback, offline. Each spawn gets a fresh HOME (= CODEX_HOME for codex) holding the arm's
 * "user configuration", and a workspace that is a real one-commit git repository. The argv is built by
 * this project's own code — `plannedNodePolicy` → `buildClaudeArgv` / `buildCodexArgv` — so what is
 * measured is the shipped argv. Three spawns per arm, run side by side; every spawn is compared with the
 * PRE-REGISTERED table below, which was written and committed before the suite was first run.
 *
 * No arm can pass vacuously: every spawn must show that each scripted tool call reached the CLI (the CLI
 * sent a tool result for it back to the server), and whether the arm's user configuration reached the
 * CLI is observed, not assumed (Claude: the settings file's `model` shows up in the request; Codex: the
 * config file's `developer_instructions` marker does). The control arms (`C1-ctl`, `X-ctl`) make the same
 * request with the tool or the sandbox allowing it, and the file IS created. Two ablation arms (`C1-L3`,
 * `C1-L5`) take one layer off the built policy to show each of layers 3 and 5 binds on its own, and `C3`
 * checks layer 5's scoped git deny rules (src/policy/git-deny.ts) against the loaded `Bash(*)` grant.
 *
 * `EVIDENCE_GATE_MEASURE_OUT=<path>`: also write every arm's argv and per-spawn observations there as JSON
 * (`npm run measure` sets it and renders docs/measurements/loaded-user-config.md from it).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unreachable } from "../../src/core/unreachable.js";
import { plannedNodePolicy } from "../../src/policy/ceiling.js";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { buildClaudeArgv, type PermissionMode } from "../../src/runtime/claude-argv.js";
import { buildCodexArgv } from "../../src/runtime/codex-argv.js";
import { runClaude } from "../runtime/real-claude.js";
import { makeRepoScratchFor, realCliRig, SCRATCH_GIT_IDENTITY, type Scratch } from "../runtime/real-cli.js";
import { runCodex } from "../runtime/real-codex.js";
import {
  bashCall,
  claudeToolExchanges,
  codexToolExchanges,
  type ToolExchange,
} from "../runtime/tool-exchanges.js";
import { codexConfigFor, type ModelServer, type ScriptedToolCall } from "../support/model-server/index.js";

// ---------------------------------------------------------------------------------------------------
// PRE-REGISTERED expected outcomes (written before the first run; do not edit to fit an observation —
// a differing observation is a finding: the test fails and the ADR's status follows it).
//
// Per scripted call:
//   ran              the target file exists afterwards (the call executed)
//   unavailable      Claude: file absent; the tool result is an error "No such tool available: …"
//                    (the tool is not in the session's tool set: layers 3/5)
//   denied           Claude: file absent; the call is in the result's permission_denials (a permission
//                    rule refused it: layer 2's missing grant, or one of layer 5's scoped deny rules)
//   sandbox-blocked  Codex: file absent; the command's output says "Read-only file system"
// userConfigReachedCli: the arm's user configuration file was loaded by the CLI (observed per spawn).
// ---------------------------------------------------------------------------------------------------
const PRE_REGISTERED = {
  /** §8's arm on Claude: settings grant Bash(*) and Write, the node declares Read, Edit. */
  C1: { userConfigReachedCli: true, calls: { bash: "unavailable", write: "unavailable" } },
  /** C1 with layer 5 taken off the built policy (Bash, Write left out of the deny list): layer 3 alone. */
  "C1-L3": { userConfigReachedCli: true, calls: { bash: "unavailable", write: "unavailable" } },
  /** C1 with layer 3 taken off the built policy (no `--tools`): layer 5 alone. */
  "C1-L5": { userConfigReachedCli: true, calls: { bash: "unavailable", write: "unavailable" } },
  /** Control for C1: same settings and request, the node declares both tools. */
  "C1-ctl": { userConfigReachedCli: true, calls: { bash: "ran", write: "ran" } },
  /** The bill: settings grant Bash(*), the node declares Bash(git *); `touch` runs. */
  C2: { userConfigReachedCli: true, calls: { bash: "ran" } },
  /** C2's node asks for a git alias that runs a program: layer 5's scoped git deny rules still bind. */
  C3: { userConfigReachedCli: true, calls: { gitAlias: "denied" } },
  /** C2 under the default (isolated) ceiling: the scope binds. */
  "C2-iso": { userConfigReachedCli: false, calls: { bash: "denied" } },
  /** §8's arm on Codex: a `plan` node (read-only sandbox) under a config.toml that tries to widen. */
  X1: { userConfigReachedCli: true, calls: { shell: "sandbox-blocked" } },
  /** X1 under the default (isolated) ceiling. */
  X2: { userConfigReachedCli: false, calls: { shell: "sandbox-blocked" } },
  /** Control for X1: same config and request from a workspace-write node; the file is created. */
  "X-ctl": { userConfigReachedCli: true, calls: { shell: "ran" } },
} as const;

type ArmId = keyof typeof PRE_REGISTERED;
type CallName = "bash" | "write" | "gitAlias" | "shell";
type Outcome = "ran" | "unavailable" | "denied" | "sandbox-blocked" | "unanswered" | "other";

/** Spawns per arm (seed 001 §8, matching measurement (j)'s shape). */
const SPAWNS = 3;

/**
 * Room for one arm's three side-by-side CLI runs on a contended 2-core machine (an arm took up to ~15 s at
 * load average 17 here); a hang still fails the test. Not a timing assertion.
 */
const ARM_TIMEOUT_MS = 180_000;

/** The user's Claude settings (`$HOME/.claude/settings.json`) in every Claude arm. */
const CLAUDE_SETTINGS = {
  // Observable proof that the file loaded: the request then names this model (argv passes no --model).
  model: "claude-sonnet-4-5",
  permissions: { allow: ["Bash(*)", "Write"] },
};

/** The marker `CODEX_CONFIG` plants; seen in a request only when codex loaded the file. */
const CODEX_MARKER = "EG-USER-CONFIG-LOADED-7f3a";

/** The user's Codex config (`$CODEX_HOME/config.toml`) in every Codex arm: it tries to widen the sandbox. */
const CODEX_CONFIG = [
  'sandbox_mode = "danger-full-access"',
  'approval_policy = "on-request"',
  `developer_instructions = "${CODEX_MARKER}"`,
  "",
].join("\n");

const PROMPT = "Please create the marker files.";

/** The file each scripted call tries to create, relative to the workspace. */
const TARGETS: Record<CallName, string> = {
  bash: "bash-ran",
  write: "write-ran",
  gitAlias: "git-ran",
  shell: "codex-ran",
};

interface ClaudeArm {
  readonly runtime: "claude";
  readonly id: ArmId;
  readonly title: string;
  /** The node's `allowed_tools`, fed to `plannedNodePolicy`. */
  readonly declaration: readonly string[];
  readonly loadedUserConfig: boolean;
  readonly calls: readonly ("bash" | "write" | "gitAlias")[];
  /**
   * Ablation: take one layer off the policy `plannedNodePolicy` built, to see whether the other binds on
   * its own (seed 001 §8: "layers 3 and 5 bind independently of settings"). Absent = the shipped policy.
   */
  readonly only?: "layer3" | "layer5";
}

interface CodexArm {
  readonly runtime: "codex";
  readonly id: ArmId;
  readonly title: string;
  readonly declaration: readonly string[];
  readonly loadedUserConfig: boolean;
  /** `plan` → `--sandbox read-only`; `dontAsk` → `workspace-write` (`codexSandboxFor`). */
  readonly permissionMode: PermissionMode;
  readonly calls: readonly "shell"[];
}

type Arm = ClaudeArm | CodexArm;

const ARMS: readonly Arm[] = [
  {
    runtime: "claude",
    id: "C1",
    title: "settings loaded; node declares Read, Edit; model asks Bash and Write",
    declaration: ["Read", "Edit"],
    loadedUserConfig: true,
    calls: ["bash", "write"],
  },
  {
    runtime: "claude",
    id: "C1-L3",
    title: "ablation of C1: layer 5 removed from the built policy, so only --tools narrows",
    declaration: ["Read", "Edit"],
    loadedUserConfig: true,
    calls: ["bash", "write"],
    only: "layer3",
  },
  {
    runtime: "claude",
    id: "C1-L5",
    title: "ablation of C1: layer 3 removed from the built policy, so only --disallowedTools removes",
    declaration: ["Read", "Edit"],
    loadedUserConfig: true,
    calls: ["bash", "write"],
    only: "layer5",
  },
  {
    runtime: "claude",
    id: "C1-ctl",
    title: "control: settings loaded; node declares Read, Edit, Write, Bash(touch *); same request",
    declaration: ["Read", "Edit", "Write", "Bash(touch *)"],
    loadedUserConfig: true,
    calls: ["bash", "write"],
  },
  {
    runtime: "claude",
    id: "C2",
    title: "settings loaded; node declares Read, Bash(git *); model asks Bash touch",
    declaration: ["Read", "Bash(git *)"],
    loadedUserConfig: true,
    calls: ["bash"],
  },
  {
    runtime: "claude",
    id: "C3",
    title: "settings loaded; node declares Read, Bash(git *); model asks a git alias that runs touch",
    declaration: ["Read", "Bash(git *)"],
    loadedUserConfig: true,
    calls: ["gitAlias"],
  },
  {
    runtime: "claude",
    id: "C2-iso",
    title: "isolated (default ceiling); node declares Read, Bash(git *); model asks Bash touch",
    declaration: ["Read", "Bash(git *)"],
    loadedUserConfig: false,
    calls: ["bash"],
  },
  {
    runtime: "codex",
    id: "X1",
    title: "config loaded; plan node (read-only); model asks a shell write",
    declaration: ["Read", "Grep"],
    loadedUserConfig: true,
    permissionMode: "plan",
    calls: ["shell"],
  },
  {
    runtime: "codex",
    id: "X2",
    title: "isolated (default ceiling); plan node (read-only); model asks a shell write",
    declaration: ["Read", "Grep"],
    loadedUserConfig: false,
    permissionMode: "plan",
    calls: ["shell"],
  },
  {
    runtime: "codex",
    id: "X-ctl",
    title: "control: config loaded; workspace-write node; same request",
    declaration: ["Read", "Edit"],
    loadedUserConfig: true,
    permissionMode: "dontAsk",
    calls: ["shell"],
  },
];

/** One scripted call as observed in one spawn. */
interface CallRecord {
  readonly call: CallName;
  readonly target: string;
  readonly outcome: Outcome;
  /** The tool result the CLI sent back to the model (workspace path shown as `<workspace>`), or null. */
  readonly toolResult: string | null;
}

/** One spawn as observed. */
interface SpawnRecord {
  readonly spawn: number;
  readonly argv: readonly string[];
  readonly exitCode: number | null;
  readonly userConfigReachedCli: boolean;
  readonly calls: readonly CallRecord[];
  readonly durationMs: number;
}

interface ArmRecord {
  readonly id: ArmId;
  readonly runtime: "claude" | "codex";
  readonly title: string;
  readonly declaration: readonly string[];
  readonly loadedUserConfig: boolean;
  /** A Claude ablation arm's removed layer: `layer3` = only layer 3 kept, `layer5` = only layer 5 kept. */
  readonly ablation: "layer3" | "layer5" | null;
  /** codex only: the node's permission mode (→ `--sandbox`). */
  readonly permissionMode: PermissionMode | null;
  readonly userConfig: { readonly path: string; readonly content: string };
  readonly expected: (typeof PRE_REGISTERED)[ArmId];
  readonly spawns: SpawnRecord[];
}

const records: ArmRecord[] = [];
const suiteStarted = Date.now();

afterAll(() => {
  const out = process.env.EVIDENCE_GATE_MEASURE_OUT;
  if (out === undefined || out === "") return;
  mkdirSync(dirname(out), { recursive: true });
  const result = {
    suite: "test/conformance/loaded-user-config.test.ts",
    startedAt: new Date(suiteStarted).toISOString(),
    durationMs: Date.now() - suiteStarted,
    spawnsPerArm: SPAWNS,
    preRegistered: PRE_REGISTERED,
    arms: records,
  };
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
});

const claudeRig = realCliRig("claude", () => makeRepoScratchFor("claude"));
const codexRig = realCliRig("codex", () => makeRepoScratchFor("codex"));

/** `text` with run-specific values replaced by stable placeholders. */
function normalize(text: string, scratch: Scratch, server: ModelServer, sessionId?: string): string {
  let out = text.split(scratch.workspace).join("<workspace>").split(server.url).join("<server>");
  if (sessionId !== undefined) out = out.split(sessionId).join("<session-uuid>");
  return out;
}

/** What became of one scripted call, from the file system and the tool result the CLI sent back. */
function outcomeOf(
  arm: Arm,
  call: CallName,
  exchange: ToolExchange | undefined,
  scratch: Scratch,
  deniedIds: ReadonlySet<string>,
): Outcome {
  if (existsSync(join(scratch.workspace, TARGETS[call]))) return "ran";
  if (exchange === undefined || exchange.result === null) return "unanswered";
  if (arm.runtime === "claude") {
    if (deniedIds.has(exchange.id)) return "denied";
    if (exchange.isError === true && /No such tool available/.test(exchange.result)) return "unavailable";
    return "other";
  }
  return /Read-only file system/.test(exchange.result) ? "sandbox-blocked" : "other";
}

function scriptedCall(call: CallName, scratch: Scratch): ScriptedToolCall {
  switch (call) {
    case "bash":
      return bashCall(`touch ${TARGETS.bash}`);
    case "write":
      return {
        name: "Write",
        input: { file_path: join(scratch.workspace, TARGETS.write), content: "written\n" },
      };
    case "gitAlias":
      return bashCall(`git -c alias.x='!touch ${TARGETS.gitAlias}' x`);
    case "shell":
      return { name: "exec_command", input: { cmd: `touch ${TARGETS.shell}` } };
    default:
      return unreachable(call);
  }
}

/** The built policy, minus the layer a Claude ablation arm takes off (the calls' tools stay where they were). */
function ablated(arm: Arm, policy: ToolPolicy): ToolPolicy {
  if (arm.runtime !== "claude" || arm.only === undefined) return policy;
  if (arm.only === "layer5") return { ...policy, tools: undefined };
  return { ...policy, disallowedTools: policy.disallowedTools.filter((t) => t !== "Bash" && t !== "Write") };
}

/** Each scripted call of `arm` with its outcome and tool result; `exchanges` are in call order. */
function callRecords(
  arm: Arm,
  exchanges: readonly ToolExchange[],
  scratch: Scratch,
  server: ModelServer,
  deniedIds: ReadonlySet<string>,
): CallRecord[] {
  return arm.calls.map((call, i) => {
    const result = exchanges[i]?.result ?? null;
    return {
      call,
      target: TARGETS[call],
      outcome: outcomeOf(arm, call, exchanges[i], scratch, deniedIds),
      toolResult: result === null ? null : normalize(result, scratch, server),
    };
  });
}

/** One spawn of `arm`: fresh HOME with the user configuration, fresh repo workspace, real CLI. */
async function spawnOnce(arm: Arm, spawn: number): Promise<SpawnRecord> {
  const rig = arm.runtime === "claude" ? claudeRig : codexRig;
  const { server, scratch } = await rig.setup((s) => ({
    conversations: [
      {
        name: arm.id,
        match: "create the marker files",
        turns: [{ tool_calls: arm.calls.map((call) => scriptedCall(call, s)) }, { text: "done" }],
      },
    ],
  }));
  const policy = ablated(arm, plannedNodePolicy(arm.declaration, { loadedUserConfig: arm.loadedUserConfig }));

  if (arm.runtime === "claude") {
    mkdirSync(join(scratch.home, ".claude"), { recursive: true });
    writeFileSync(join(scratch.home, ".claude", "settings.json"), JSON.stringify(CLAUDE_SETTINGS, null, 2));
    const sessionId = randomUUID();
    const argv = buildClaudeArgv({
      permissionMode: "dontAsk",
      policy,
      session: { kind: "fresh", sessionId },
      prompt: PROMPT,
    });
    const run = rig.timed(
      `${arm.id} #${spawn}`,
      await runClaude({ server, scratch, argv, env: SCRATCH_GIT_IDENTITY }),
    );
    if (run.outcome.kind !== "completed") {
      throw new Error(`${arm.id} #${spawn}: no result event: ${JSON.stringify(run.outcome)}\n${run.stderr}`);
    }
    const deniedIds = new Set(run.outcome.permissionDenials.map((d) => d.toolUseId));
    const exchanges = claudeToolExchanges(server.requests.at(-1));
    const firstModel = (server.requests[0]?.body as { model?: unknown } | undefined)?.model;
    return {
      spawn,
      argv: argv.map((a) => normalize(a, scratch, server, sessionId)),
      exitCode: run.exitCode,
      userConfigReachedCli: firstModel === CLAUDE_SETTINGS.model,
      calls: callRecords(arm, exchanges, scratch, server, deniedIds),
      durationMs: run.durationMs,
    };
  }

  writeFileSync(join(scratch.home, "config.toml"), CODEX_CONFIG);
  const argv = buildCodexArgv({
    permissionMode: arm.permissionMode,
    policy,
    session: { kind: "fresh" },
    config: codexConfigFor(server.url),
    prompt: PROMPT,
  });
  const run = codexRig.timed(
    `${arm.id} #${spawn}`,
    await runCodex({ server, scratch, argv, env: SCRATCH_GIT_IDENTITY }),
  );
  const exchanges = codexToolExchanges(server.requests.at(-1));
  return {
    spawn,
    argv: argv.map((a) => normalize(a, scratch, server)),
    exitCode: run.exitCode,
    userConfigReachedCli: JSON.stringify(server.requests[0]?.body ?? null).includes(CODEX_MARKER),
    calls: callRecords(arm, exchanges, scratch, server, new Set()),
    durationMs: run.durationMs,
  };
}

/** The argv facts each arm relies on, checked on the argv the builders produced (never hand-written). */
function expectArgvShape(arm: Arm, argv: readonly string[]): void {
  const flag = (name: string) => argv[argv.indexOf(name) + 1];
  if (arm.runtime === "claude") {
    expect(argv.includes("--setting-sources"), "layer 1 is on exactly when not opted in").toBe(
      !arm.loadedUserConfig,
    );
    expect(argv.includes("--strict-mcp-config"), "layer 4 moves with layer 1").toBe(!arm.loadedUserConfig);
    const tools = flag("--tools")?.split(",") ?? [];
    const denied = flag("--disallowedTools")?.split(",") ?? [];
    expect(argv.includes("--tools"), "layer 3 present unless ablated").toBe(arm.only !== "layer5");
    for (const call of arm.calls) {
      const tool = call === "write" ? "Write" : "Bash";
      const declared = arm.declaration.some((entry) => entry === tool || entry.startsWith(`${tool}(`));
      if (arm.only !== "layer5")
        expect(tools.includes(tool), `--tools holds ${tool} iff declared`).toBe(declared);
      expect(denied.includes(tool), `--disallowedTools names ${tool} iff undeclared`).toBe(
        !declared && arm.only !== "layer3",
      );
    }
    if (arm.calls.includes("gitAlias")) {
      expect(denied, "layer 5 holds the scoped git deny rule").toContain("Bash(git -c *)");
    }
    return;
  }
  expect(flag("--sandbox")).toBe(arm.permissionMode === "plan" ? "read-only" : "workspace-write");
  expect(argv).toContain('approval_policy="never"');
  expect(argv.includes("--ignore-user-config"), "layer 1 is on exactly when not opted in").toBe(
    !arm.loadedUserConfig,
  );
}

describe("accept-loaded-user-config: layers 3 and 5 (Claude) and the sandbox (Codex) under loaded user config", () => {
  for (const arm of ARMS) {
    it(
      `${arm.id} (${arm.runtime}): ${arm.title} — ${SPAWNS} spawns match the pre-registered outcome`,
      async () => {
        const userConfig =
          arm.runtime === "claude"
            ? { path: "~/.claude/settings.json", content: JSON.stringify(CLAUDE_SETTINGS, null, 2) }
            : { path: "$CODEX_HOME/config.toml", content: CODEX_CONFIG };
        const spawns = await Promise.all(Array.from({ length: SPAWNS }, (_, i) => spawnOnce(arm, i + 1)));
        const expected = PRE_REGISTERED[arm.id];
        records.push({
          id: arm.id,
          runtime: arm.runtime,
          title: arm.title,
          declaration: arm.declaration,
          loadedUserConfig: arm.loadedUserConfig,
          ablation: arm.runtime === "claude" ? (arm.only ?? null) : null,
          permissionMode: arm.runtime === "codex" ? arm.permissionMode : null,
          userConfig,
          expected,
          spawns,
        });
        for (const spawn of spawns) {
          expectArgvShape(arm, spawn.argv);
          // Non-vacuity: every scripted call reached the CLI, which answered it with a tool result.
          for (const call of spawn.calls) {
            expect(call.toolResult, `${arm.id} #${spawn.spawn} ${call.call}: no tool result`).not.toBeNull();
          }
          const observed = {
            userConfigReachedCli: spawn.userConfigReachedCli,
            calls: Object.fromEntries(spawn.calls.map((c) => [c.call, c.outcome])),
          };
          expect(observed, `${arm.id} spawn #${spawn.spawn}: observed vs pre-registered`).toEqual(expected);
        }
      },
      ARM_TIMEOUT_MS,
    );
  }
});
