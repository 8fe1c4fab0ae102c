/**
 * The action's inputs are read once into a typed object or refused with every problem named (SPEC §10,
 * §11; house style §2): the mode and what each mode reads, `inputs` lines, the resume decision, and the
 * inputs a mode does not read — each message names the input at fault.
 */
import { describe, expect, it } from "vitest";
import { lintRequested, readActionInputs } from "../../src/action/inputs.js";

type Inputs = Record<string, string>;

/** `INPUT_*` variables as the runner sets them, with a token (the input's default). */
function env(inputs: Inputs): Record<string, string> {
  const all: Inputs = { "github-token": "ghs_x", ...inputs };
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
}

function ok(inputs: Inputs) {
  const parsed = readActionInputs(env(inputs));
  if (!parsed.ok) throw new Error(`expected ok, got ${parsed.errors.join("; ")}`);
  return parsed.inputs;
}

function errors(inputs: Inputs): readonly string[] {
  const parsed = readActionInputs(env(inputs));
  if (parsed.ok) throw new Error("expected errors, got ok");
  return parsed.errors;
}

describe("mode", () => {
  it("goal alone is mode auto; graph alone is mode run", () => {
    expect(ok({ goal: "Fix the bug" }).mode).toEqual({ kind: "auto", goal: "Fix the bug" });
    expect(ok({ graph: ".github/review.yml" }).mode).toEqual({
      kind: "run",
      graph: ".github/review.yml",
      graphInputs: {},
    });
  });

  it("goal and graph together are a usage error naming both", () => {
    expect(errors({ goal: "g", graph: "g.yml" })).toEqual([
      "inputs `goal` and `graph` were both given: give `goal` to plan a graph (mode auto) or `graph` to run a hand-written one (mode run), not both",
    ]);
    expect(errors({ mode: "run", goal: "g", graph: "g.yml" })[0]).toContain(
      "`goal` and `graph` were both given",
    );
  });

  it("neither goal nor graph outside resume is a usage error naming both", () => {
    expect(errors({})).toEqual([
      "input `goal` or `graph` is required: `goal` says what a planned run should achieve (mode auto), `graph` names a hand-written graph file (mode run)",
    ]);
    expect(errors({ mode: "run" })).toEqual([
      "mode run needs input `graph`: the graph file's path in the repository, e.g. .github/evidence-gate/review.yml",
    ]);
    expect(errors({ mode: "lint" })[0]).toContain("mode lint needs input `graph`");
  });

  it("mode auto with only a graph says auto plans from goal", () => {
    expect(errors({ mode: "auto", graph: "g.yml" })[0]).toContain("mode auto plans from input `goal`");
  });

  it("an unknown mode names the allowed ones", () => {
    expect(errors({ mode: "plan", goal: "g" })).toEqual([
      'input `mode` is "plan": use one of auto, run, verify, lint, resume, report',
    ]);
  });

  it("mode verify needs neither goal nor graph, and refuses them and the model inputs by name", () => {
    expect(ok({ mode: "verify", "verify-cmd": "npm test" }).mode).toEqual({ kind: "verify" });
    // The command may come from the base branch's policy file instead: checked when the run starts.
    expect(ok({ mode: "verify" }).mode).toEqual({ kind: "verify" });
    expect(errors({ mode: "verify", goal: "g", graph: "g.yml", model: "opus" })).toEqual([
      "mode verify runs only the verify command (no model, no graph): drop input `goal`, input `graph`",
      "input `model` does not apply to mode verify: mode verify runs no model, and needs a verify command (verify-cmd, or the policy file's); drop it",
    ]);
  });

  it("allowed-bots, allow-pull-request-target and pr are read; a pr that is not a number is refused", () => {
    const inputs = ok({
      goal: "g",
      "allowed-bots": "renovate[bot], my-app[bot]\nother[bot]",
      "allow-pull-request-target": "true",
      pr: "#42",
    });
    expect(inputs).toMatchObject({
      allowedBots: ["renovate[bot]", "my-app[bot]", "other[bot]"],
      allowPullRequestTarget: true,
      pr: 42,
    });
    expect(ok({ goal: "g" })).toMatchObject({ allowedBots: [], allowPullRequestTarget: false });
    expect(errors({ goal: "g", pr: "forty-two" })).toEqual([
      'input `pr` is "forty-two": give the pull request\'s number, e.g. 42',
    ]);
  });

  it("isolate-user: auto by default (also when empty), true or false; anything else names the input and the values", () => {
    expect(ok({ goal: "g" }).isolateUser).toBe("auto");
    expect(ok({ goal: "g", "isolate-user": "" }).isolateUser).toBe("auto");
    expect(ok({ goal: "g", "isolate-user": "true" }).isolateUser).toBe("true");
    expect(ok({ goal: "g", "isolate-user": "FALSE" }).isolateUser).toBe("false");
    expect(errors({ goal: "g", "isolate-user": "yes" })).toEqual([
      'input `isolate-user` is "yes": give auto (a separate user where it can be set up), true (refuse the run where it cannot) or false',
    ]);
  });

  it("pr-user-cache: none by default; npm and pip, by spaces, commas or lines, once each; an unknown name is refused naming the input", () => {
    expect(ok({ goal: "g" }).prUserCache).toEqual([]);
    expect(ok({ goal: "g", "pr-user-cache": "npm, pip\nNPM" }).prUserCache).toEqual(["npm", "pip"]);
    expect(errors({ goal: "g", "pr-user-cache": "npm cargo" })).toEqual([
      'input `pr-user-cache` names "cargo": give npm or pip (a cache kept between runs for the separate user), or leave it empty',
    ]);
  });

  it("output-log-limit: 2 MiB by default; bytes, KiB, MiB or GiB from 1 KiB to 1 GiB; anything else names the input and an example", () => {
    expect(ok({ goal: "g" }).outputLogLimit).toBe(2 * 1024 * 1024);
    expect(ok({ goal: "g", "output-log-limit": "512KiB" }).outputLogLimit).toBe(512 * 1024);
    expect(ok({ goal: "g", "output-log-limit": "4 M" }).outputLogLimit).toBe(4 * 1024 * 1024);
    expect(ok({ goal: "g", "output-log-limit": "1GiB" }).outputLogLimit).toBe(1024 ** 3);
    expect(ok({ goal: "g", "output-log-limit": "1024" }).outputLogLimit).toBe(1024);
    for (const bad of ["1023", "2GiB", "2.5MiB", "lots", "-1"])
      expect(errors({ goal: "g", "output-log-limit": bad })).toEqual([
        `input \`output-log-limit\` is ${JSON.stringify(bad)}: give a size from 1KiB to 1GiB, e.g. 2MiB (the default), 512KiB or 1048576 (bytes)`,
      ]);
  });

  it("mode report takes no goal, graph or inputs (SPEC §10: everything comes from the workflow_run event and the artifact)", () => {
    expect(ok({ mode: "report" }).mode).toEqual({ kind: "report" });
    expect(errors({ mode: "report", goal: "g", inputs: "a=1" })).toEqual([
      "mode report posts the ledger the pull request's workflow run uploaded; it runs nothing: drop input `goal`, input `inputs`",
    ]);
  });

  it("mode report refuses what would run something, and the model credential (it holds the base repository's write token)", () => {
    expect(
      errors({ mode: "report", "verify-cmd": "npm test", "anthropic-api-key": "sk-ant-x", concurrency: "2" }),
    ).toEqual(
      ["verify-cmd", "concurrency", "anthropic-api-key"].map(
        (name) =>
          `input \`${name}\` does not apply to mode report: mode report runs no model and no command, and holds no model credential (it runs with the base repository's write token); drop it`,
      ),
    );
  });

  it("mode lint reads graph and inputs, and needs no github-token", () => {
    const parsed = readActionInputs({
      INPUT_MODE: "lint",
      INPUT_GRAPH: "./g/review.yml",
      INPUT_INPUTS: "a=1",
    });
    expect(parsed.ok && parsed.inputs.mode).toEqual({
      kind: "lint",
      graph: "g/review.yml",
      graphInputs: { a: "1" },
    });
  });

  it("mode lint with another input problem still needs no github-token: only the problems are named", () => {
    const parsed = readActionInputs({
      INPUT_MODE: "lint",
      INPUT_GRAPH: "../../etc/passwd",
      INPUT_CONCURRENCY: "0",
    });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.errors;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^input `graph` is "\.\.\/\.\.\/etc\/passwd": /);
    expect(problems[1]).toBe('input `concurrency` is "0": give a whole number from 1 to 10');
  });

  it("lintRequested reads the raw mode input alone", () => {
    expect(lintRequested({ INPUT_MODE: " lint " })).toBe(true);
    expect(lintRequested({ INPUT_MODE: "run", INPUT_GRAPH: "g.yml" })).toBe(false);
    expect(lintRequested({ INPUT_GRAPH: "g.yml" })).toBe(false);
  });

  it("an empty github-token is refused outside lint", () => {
    const parsed = readActionInputs({ INPUT_GOAL: "g" });
    expect(parsed.ok ? [] : parsed.errors).toEqual([
      "input `github-token` is empty: leave it at its default (the workflow's github.token)",
    ]);
  });
});

describe("input graph (a repository path)", () => {
  it("is normalised: ./ and doubled slashes go", () => {
    expect(ok({ graph: "./.github//evidence-gate/review.yml" }).mode).toMatchObject({
      graph: ".github/evidence-gate/review.yml",
    });
  });

  it.each([
    ["../other/graph.yml", "leads out of the repository"],
    ["a/../../graph.yml", "leads out of the repository"],
    ["/etc/graph.yml", "relative to the repository root"],
    ["C:/graph.yml", "relative to the repository root"],
    ["a\\graph.yml", "use / between folders"],
    [".github/", "not a folder"],
    [".", "not a folder"],
  ])("%j is refused naming the input (%s)", (graph, why) => {
    const [error] = errors({ graph });
    expect(error).toContain(`input \`graph\` is ${JSON.stringify(graph)}`);
    expect(error).toContain(why);
  });
});

describe("input inputs (NAME=VALUE lines)", () => {
  it("reads one NAME=VALUE per line; blank lines are skipped; the value keeps everything after the first =", () => {
    expect(ok({ graph: "g.yml", inputs: "task=fix the bug\n\n  target = a=b  \r\nlevel=" }).mode).toEqual({
      kind: "run",
      graph: "g.yml",
      graphInputs: { task: "fix the bug", target: " a=b", level: "" },
    });
  });

  it("every bad line is an error naming its line number and text, all at once", () => {
    expect(errors({ graph: "g.yml", inputs: "ok=1\nno equals sign\n=empty name\nbad name=x\nok=2" })).toEqual(
      [
        'input `inputs` line 2 ("no equals sign"): give NAME=VALUE, one per line, e.g. task=fix the login bug',
        'input `inputs` line 3 ("=empty name"): give NAME=VALUE, one per line, e.g. task=fix the login bug',
        'input `inputs` line 4 ("bad name=x"): NAME may hold only letters, digits, ".", "_", "-" or "/" (it is what {{ inputs.NAME }} names)',
        'input `inputs` line 5 ("ok=2"): ok was given on an earlier line too: give each input once',
      ],
    );
  });

  it("inputs with mode auto is refused: a planned graph has no {{ inputs }}", () => {
    expect(errors({ goal: "g", inputs: "a=1" })[0]).toContain("input `inputs` fills a hand-written graph's");
  });
});

describe("mode resume", () => {
  const RUN_ID = "20250101-120000-abcdef";

  it.each([
    [{ "approve-gate": "sign-off" }, { kind: "approve", gate: "sign-off" }],
    [{ "reject-gate": "sign-off" }, { kind: "reject", gate: "sign-off" }],
    [{ "retry-failed": "true" }, { kind: "retry-failed" }],
  ])("resume-run-id with %j is that decision", (decision, expected) => {
    expect(ok({ mode: "resume", "resume-run-id": RUN_ID, ...decision }).mode).toEqual({
      kind: "resume",
      runId: RUN_ID,
      decision: expected,
    });
  });

  it("needs resume-run-id, in the run id's form", () => {
    expect(errors({ mode: "resume", "retry-failed": "true" })).toEqual([
      "mode resume needs input `resume-run-id`: the run id (YYYYMMDD-HHMMSS-xxxxxx) the paused check run names",
    ]);
    expect(errors({ mode: "resume", "resume-run-id": "last", "retry-failed": "true" })).toEqual([
      'input `resume-run-id` is "last": give a run id of the form YYYYMMDD-HHMMSS-xxxxxx, as the check run names it',
    ]);
  });

  it("needs exactly one of approve-gate, reject-gate, retry-failed: none, or two, name the inputs", () => {
    expect(errors({ mode: "resume", "resume-run-id": RUN_ID })).toEqual([
      "mode resume needs exactly one of inputs `approve-gate`, `reject-gate` or `retry-failed: true`: none was given",
    ]);
    expect(
      errors({ mode: "resume", "resume-run-id": RUN_ID, "approve-gate": "a", "retry-failed": "true" }),
    ).toEqual([
      "mode resume takes exactly one of inputs `approve-gate`, `reject-gate` or `retry-failed: true`; `approve-gate` and `retry-failed` were given",
    ]);
    // retry-failed: false is the input's default, not a choice.
    expect(
      ok({ mode: "resume", "resume-run-id": RUN_ID, "reject-gate": "a", "retry-failed": "false" }).mode,
    ).toMatchObject({
      decision: { kind: "reject", gate: "a" },
    });
  });

  it("goal, graph and inputs are refused: the run's own graph and inputs are in its run directory", () => {
    expect(
      errors({ mode: "resume", "resume-run-id": RUN_ID, "retry-failed": "true", goal: "g", inputs: "a=1" }),
    ).toEqual([
      "mode resume continues the run's own graph and inputs, recorded in its run directory: drop input `goal`, input `inputs`",
    ]);
  });

  it("inputs that could change the leg (verify-cmd, model, working-directory, …) are refused by name", () => {
    const found = errors({
      mode: "resume",
      "resume-run-id": RUN_ID,
      "retry-failed": "true",
      "verify-cmd": "true",
      model: "opus",
      "working-directory": "pkg",
    });
    expect(found).toHaveLength(3);
    for (const name of ["verify-cmd", "model", "working-directory"]) {
      expect(found.some((e) => e.startsWith(`input \`${name}\` does not apply to mode resume`))).toBe(true);
    }
  });

  it("resume inputs outside mode resume are refused naming them", () => {
    expect(errors({ goal: "g", "resume-run-id": RUN_ID, "approve-gate": "a" })).toEqual([
      "input `resume-run-id`, input `approve-gate` belong to mode resume, not auto: set `mode: resume` or drop them",
    ]);
    expect(errors({ graph: "g.yml", "retry-failed": "true" })).toEqual([
      "input `retry-failed` belongs to mode resume, not run: set `mode: resume` or drop it",
    ]);
  });
});

describe("inputs a mode does not read are refused, not ignored", () => {
  it("run: verify-cmd and accept-no-build-evidence (the graph declares its own verify)", () => {
    const found = errors({ graph: "g.yml", "verify-cmd": "npm test", "accept-no-build-evidence": "true" });
    expect(found).toEqual([
      "input `verify-cmd` does not apply to mode run: a hand-written graph declares its own success_check.verify on each node (README: A hand-written graph); drop it",
      "input `accept-no-build-evidence` does not apply to mode run: a hand-written graph declares its own success_check.verify on each node (README: A hand-written graph); drop it",
    ]);
  });

  it("run: accept-loaded-user-config is refused (meaningless for hand-written nodes)", () => {
    expect(errors({ graph: "g.yml", "accept-loaded-user-config": "true" })).toEqual([
      "input `accept-loaded-user-config` does not apply to mode run: hand-written nodes run with only their own allowed_tools and never with a loaded user configuration; drop it",
    ]);
    // false is no request.
    expect(ok({ graph: "g.yml", "accept-loaded-user-config": "false" }).mode.kind).toBe("run");
  });

  it("lint: anything about running is refused", () => {
    expect(errors({ mode: "lint", graph: "g.yml", "verify-cmd": "npm test" })).toEqual([
      "input `verify-cmd` does not apply to mode lint: lint only reads the graph file: nothing runs; drop it",
    ]);
  });

  it("every problem is reported at once, across inputs", () => {
    const found = errors({
      graph: "../g.yml",
      "verify-cmd": "x",
      concurrency: "0",
      "continue-on-fail": "yes",
    });
    expect(found).toEqual([
      'input `graph` is "../g.yml": the path leads out of the repository: give a file inside it',
      'input `concurrency` is "0": give a whole number from 1 to 10',
      'input `continue-on-fail` is "yes": use true or false',
    ]);
  });
});

describe("concurrency", () => {
  it("is absent unless given: auto then uses 4, run the graph's own, resume the first leg's", () => {
    expect(ok({ goal: "g" }).concurrency).toBeUndefined();
    expect(ok({ graph: "g.yml", concurrency: "2" }).concurrency).toBe(2);
  });
});

describe("runtime, codex-config, codex-version, openai-api-key (SPEC §10, §11)", () => {
  it("runtime codex reads the codex inputs: the key, the version (default 0.169.0) and the config lines in order", () => {
    const inputs = ok({
      goal: "g",
      runtime: "codex",
      model: "gpt-5.5",
      "openai-api-key": "sk-test",
      "codex-config":
        '# the gateway\nmodel_provider = "gw"\n\nmodel_providers.gw.base_url="http://127.0.0.1:1/v1"\n',
    });
    expect(inputs).toMatchObject({
      runtime: "codex",
      model: "gpt-5.5",
      openaiApiKey: "sk-test",
      codexVersion: "0.169.0",
      codexConfig: ['model_provider="gw"', 'model_providers.gw.base_url="http://127.0.0.1:1/v1"'],
    });
    expect(ok({ goal: "g", runtime: "codex", "codex-version": "0.170.0" }).codexVersion).toBe("0.170.0");
    expect(ok({ goal: "g" })).toMatchObject({ runtime: "claude", codexConfig: [] });
  });

  it("an unknown runtime is refused naming both runtimes", () => {
    expect(errors({ goal: "g", runtime: "gemini" })).toEqual([
      'input `runtime` is "gemini": use claude or codex',
    ]);
  });

  it("a bad codex-config line is refused naming the input and its line number", () => {
    expect(errors({ goal: "g", runtime: "codex", "codex-config": 'model="x"\nno equals sign' })).toEqual([
      'input `codex-config` line 2: expected KEY=VALUE, got "no equals sign"',
    ]);
  });

  it("codex-config on the claude runtime is refused in auto and run, naming it", () => {
    for (const mode of [{ goal: "g" }, { graph: "g.yml" }] as Inputs[]) {
      expect(errors({ ...mode, "codex-config": 'model="x"' })[0]).toContain(
        "codex-config applies only to the codex runtime",
      );
    }
  });

  it("a codex-config key off the allowlist (one that could widen the sandbox) is refused naming the line and key", () => {
    expect(
      errors({
        goal: "g",
        runtime: "codex",
        "codex-config": 'model_provider="gw"\nsandbox_workspace_write.writable_roots=["/opt"]',
      })[0],
    ).toMatch(
      /^input `codex-config` line 2: "sandbox_workspace_write\.writable_roots" is not allowed: codex-config may only configure the model provider; /,
    );
  });

  it("a model codex cannot take as -m is refused on codex", () => {
    expect(errors({ goal: "g", runtime: "codex", model: "-x" })[0]).toContain(
      'model: a codex model must be non-empty and not start with "-"',
    );
  });

  it("resume takes codex-config (the run's runtime decides); lint refuses it: nothing runs", () => {
    expect(
      ok({
        mode: "resume",
        "resume-run-id": "20250101-000000-abcdef",
        "retry-failed": "true",
        "codex-config": 'model_provider="gw"',
      }).codexConfig,
    ).toEqual(['model_provider="gw"']);
    expect(errors({ mode: "lint", graph: "g.yml", "codex-config": 'model_provider="gw"' })).toEqual([
      "input `codex-config` does not apply to mode lint: lint only reads the graph file: nothing runs; drop it",
    ]);
  });
});

describe("timeout-minutes (issue 14)", () => {
  it("defaults below GitHub's 360-minute job limit, takes whole minutes 1..1440, and refuses anything else naming the input", () => {
    expect(ok({ goal: "g" }).timeoutMinutes).toBe(340);
    expect(ok({ goal: "g", "timeout-minutes": "30" }).timeoutMinutes).toBe(30);
    for (const given of ["0", "1441", "2.5", "30m", "-1"]) {
      expect(errors({ goal: "g", "timeout-minutes": given })).toEqual([
        `input \`timeout-minutes\` is ${JSON.stringify(given)}: give a whole number of minutes from 1 to 1440, below the job's own timeout-minutes`,
      ]);
    }
  });
});

describe("repair-attempts (SPEC §7, issue 13 item 5)", () => {
  it("is 0 when absent, read in mode auto, refused with its range when not a whole number 0-10", () => {
    expect(ok({ goal: "g", "verify-cmd": "npm test" }).repairAttempts).toBe(0);
    expect(ok({ goal: "g", "verify-cmd": "npm test", "repair-attempts": "3" }).repairAttempts).toBe(3);
    expect(errors({ goal: "g", "verify-cmd": "npm test", "repair-attempts": "-1" })).toEqual([
      'input `repair-attempts` is "-1": give a whole number from 0 (off) to 10, the times a failing build is fed back to a sink',
    ]);
  });

  it("mode run refuses it: a hand-written graph declares its own completion", () => {
    expect(errors({ graph: "g.yml", "repair-attempts": "2" }).join("\n")).toContain(
      "input `repair-attempts` does not apply to mode run",
    );
  });
});

describe("max-cycles and max-cost-usd (SPEC §7, issue 13 item 7)", () => {
  it("max-cycles is 1 when absent, read in mode auto with a positive max-cost-usd, refused out of 1-5", () => {
    expect(ok({ goal: "g", "verify-cmd": "npm test" }).maxCycles).toBe(1);
    const three = ok({ goal: "g", "verify-cmd": "npm test", "max-cycles": "3", "max-cost-usd": "4" });
    expect([three.maxCycles, three.maxCostUsd]).toEqual([3, 4]);
    expect(errors({ goal: "g", "verify-cmd": "npm test", "max-cycles": "6" })).toEqual([
      'input `max-cycles` is "6": give a whole number from 1 (one run, the default) to 5, the runs one goal may take',
    ]);
  });

  it("max-cost-usd with one cycle is refused: it is only checked between cycles", () => {
    expect(errors({ goal: "g", "verify-cmd": "npm test", "max-cost-usd": "4" })).toEqual([
      "input `max-cost-usd` is checked between cycles, and `max-cycles` is 1: set max-cycles to 2 or more, or drop it",
    ]);
  });

  it("mode run refuses max-cycles: a hand-written graph is not planned again", () => {
    expect(errors({ graph: "g.yml", "max-cycles": "2" }).join("\n")).toContain(
      "input `max-cycles` does not apply to mode run",
    );
  });
});

describe("report-to and approver (issue 11: the evidence-gate App)", () => {
  const RESUME = { mode: "resume", "resume-run-id": "20250101-120000-abcdef", "approve-gate": "sign-off" };

  it("report-to is check-run when empty, bot when bot, and any other value is refused naming the input", () => {
    expect(ok({ goal: "g" }).reportTo).toBe("check-run");
    expect(ok({ goal: "g", "report-to": "check-run" }).reportTo).toBe("check-run");
    expect(ok({ goal: "g", "report-to": "bot" }).reportTo).toBe("bot");
    expect(ok({ ...RESUME, "report-to": "bot" }).reportTo).toBe("bot");
    expect(errors({ goal: "g", "report-to": "app" })).toEqual([
      'input `report-to` is "app": use bot (the evidence-gate App posts the check run) or leave it empty (this step posts it)',
    ]);
  });

  it("report-to does not apply to mode report or lint", () => {
    expect(errors({ mode: "report", "report-to": "bot" })[0]).toMatch(
      /^input `report-to` does not apply to mode report/,
    );
    expect(errors({ mode: "lint", graph: "g.yml", "report-to": "bot" })[0]).toMatch(
      /^input `report-to` does not apply to mode lint/,
    );
  });

  it("approver is a GitHub login recorded on the resume decision; anything else is refused naming the input", () => {
    expect(ok({ ...RESUME, approver: "mona-lisa" }).mode).toMatchObject({ approver: "mona-lisa" });
    expect(ok(RESUME).mode).not.toHaveProperty("approver");
    for (const bad of ["-mona", "mona-", "mo--na", "mona lisa", "a".repeat(40), "evidence-gate[bot]"]) {
      expect(errors({ ...RESUME, approver: bad })).toEqual([
        `input \`approver\` is ${JSON.stringify(bad)}: give a GitHub login (letters, digits and single hyphens, at most 39 characters), as the evidence-gate App passes it`,
      ]);
    }
    expect(ok({ ...RESUME, approver: "a".repeat(39) }).mode).toMatchObject({ approver: "a".repeat(39) });
  });

  it("approver belongs to mode resume, and names no one for retry-failed", () => {
    expect(errors({ goal: "g", approver: "mona" })).toEqual([
      "input `approver` belongs to mode resume, not auto: set `mode: resume` or drop it",
    ]);
    expect(
      errors({
        mode: "resume",
        "resume-run-id": "20250101-120000-abcdef",
        "retry-failed": "true",
        approver: "mona",
      }),
    ).toEqual([
      "input `approver` names who decided a gate; `retry-failed: true` decides none: drop `approver`",
    ]);
  });
});

describe("verify-repeat", () => {
  it("a whole number 1-10 is read; blank is once (absent); anything else names the input and the fix", () => {
    expect(ok({ goal: "g", "verify-repeat": "3" }).verifyRepeat).toBe(3);
    expect(ok({ goal: "g", "verify-repeat": "" }).verifyRepeat).toBeUndefined();
    for (const bad of ["0", "11", "-1", "3x"]) {
      expect(errors({ goal: "g", "verify-repeat": bad })).toEqual([
        `input \`verify-repeat\` ${JSON.stringify(bad)}: give a whole number from 1 to 10 (how many times each verify command runs on the same tree)`,
      ]);
    }
  });
});

describe("GitHub Enterprise Server: the modes that need workflow artifacts are refused (issue 26)", () => {
  const GHES = { GITHUB_SERVER_URL: "https://ghe.example.com" };
  const read = (inputs: Inputs, server: Record<string, string>) =>
    readActionInputs({ ...env(inputs), ...server });
  const RESUME = { mode: "resume", "resume-run-id": "20250101-120000-abcdef", "retry-failed": "true" };

  it.each([
    ["mode resume", RESUME, "mode resume"],
    ["mode report", { mode: "report" }, "mode report"],
    ["report-to: bot", { goal: "Fix it.", "verify-cmd": "npm test", "report-to": "bot" }, "report-to: bot"],
  ])("%s on GHES is a usage error naming the modes and why", (_name, inputs, named) => {
    const parsed = read(inputs, GHES);
    expect(parsed.ok).toBe(false);
    const problem = parsed.ok ? "" : parsed.errors.join("\n");
    expect(problem).toContain(`${named} needs workflow artifacts`);
    expect(problem).toContain("GitHub Enterprise Server (GITHUB_SERVER_URL https://ghe.example.com)");
    expect(problem).toContain("mode resume, mode report and report-to: bot cannot work there");
  });

  it("the same inputs on github.com, a GHE.com tenant, and a plain run on GHES are accepted", () => {
    for (const server of ["https://github.com", "https://acme.ghe.com"])
      expect(read(RESUME, { GITHUB_SERVER_URL: server }).ok).toBe(true);
    expect(read({ goal: "Fix it.", "verify-cmd": "npm test" }, GHES).ok).toBe(true);
  });
});
