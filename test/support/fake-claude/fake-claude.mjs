#!/usr/bin/env node
/**
 * A stand-in for the `claude` or `codex` executable, for engine tests of outcomes the real CLIs cannot be
 * made to produce on demand (see ./index.ts for why). It ignores its prompt and plays the scenario named
 * by `FAKE_CLAUDE_SCENARIO` (a JSON file, shape `FakeScenario` in ./index.ts):
 *
 * - `{"stdout": "text"}` / `{"stderr": "text"}`: print one line; `$SESSION_ID` becomes the session id
 *   from argv: claude (the default `runtime`) `--session-id ID` or `--resume ID`; codex (`"runtime":
 *   "codex"`) `exec … resume ID`, else a fresh UUID (as codex mints a thread id for a fresh call).
 * - `{"json": {...}}`: print the object as one stdout line; string values `"$SESSION_ID"` are replaced.
 * - `{"sleepMs": N}`: wait.
 * - `{"spawnSleeper": true}`: start `sleep 1000` in this process's group and report its pid.
 * - `{"hang": true}`: never exit on its own.
 *
 * When the steps end it exits with `exitCode` (default 0). If `reportFile` is set, it is written (atomically,
 * temp file + rename) at start with `{argv, pid}` and again with `sleeperPid` once a sleeper runs.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";

const scenarioPath = process.env.FAKE_CLAUDE_SCENARIO;
if (!scenarioPath) {
  writeSync(2, "fake-claude: FAKE_CLAUDE_SCENARIO is not set\n");
  process.exit(70);
}
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));
const argv = process.argv.slice(2);

const flagValue = (flag) => {
  const at = argv.indexOf(flag);
  return at >= 0 ? argv[at + 1] : undefined;
};
const sessionId =
  scenario.runtime === "codex"
    ? (flagValue("resume") ?? randomUUID())
    : (flagValue("--session-id") ?? flagValue("--resume") ?? "no-session-id-in-argv");

const report = { argv, pid: process.pid, sleeperPid: null };
const writeReport = () => {
  if (!scenario.reportFile) return;
  const temp = `${scenario.reportFile}.tmp`;
  writeFileSync(temp, JSON.stringify(report));
  renameSync(temp, scenario.reportFile);
};

const substitute = (value) => {
  if (value === "$SESSION_ID") return sessionId;
  if (Array.isArray(value)) return value.map(substitute);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
  }
  return value;
};

// Synchronous writes to the inherited descriptors: nothing is lost when the process ends or is killed.
const line = (fd, text) => writeSync(fd, `${text.replaceAll("$SESSION_ID", sessionId)}\n`);

writeReport();
for (const step of scenario.steps ?? []) {
  if ("stdout" in step) line(1, step.stdout);
  else if ("stderr" in step) line(2, step.stderr);
  else if ("json" in step) writeSync(1, `${JSON.stringify(substitute(step.json))}\n`);
  else if ("sleepMs" in step) await new Promise((resolve) => setTimeout(resolve, step.sleepMs));
  else if ("spawnSleeper" in step) {
    const sleeper = spawn("sleep", ["1000"], { stdio: "ignore" });
    report.sleeperPid = sleeper.pid ?? null;
    writeReport();
  } else if ("hang" in step) {
    setInterval(() => {}, 60_000);
    await new Promise(() => {});
  } else {
    writeSync(2, `fake-claude: unknown step ${JSON.stringify(step)}\n`);
    process.exit(70);
  }
}
process.exit(scenario.exitCode ?? 0);
