// A stand-in `claude` for benches: a `/bin/sh` script of fixed duration that speaks claude's stream-json
// (the `system/init` line, then after `sleepSeconds` a `result` line with the argv's session id),
// as test/support/fake-claude does in node. `/bin/sh` rather than node so the figure is the engine's cost,
// not a second node's start-up: every node's duration is the script's sleep plus one `sh` exec.
// `outputBytes` adds that many bytes of output (lines of `y`) before the result. Both are written into the
// script: the engine builds the model CLI's environment itself, so a variable of ours would not reach it.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo } from "./row.mjs";

const script = ({ sleepSeconds = 0, outputBytes = 0 }) => `#!/bin/sh
sid=none
prev=
for a in "$@"; do [ "$prev" = "--session-id" ] && sid=$a; prev=$a; done
printf '{"type":"system","subtype":"init","session_id":"%s","cwd":"/tmp","model":"fake","tools":[],"permissionMode":"dontAsk","claude_code_version":"2.1.332"}\\n' "$sid"
${outputBytes > 0 ? `yes | head -c ${outputBytes}\n` : ""}${sleepSeconds > 0 ? `sleep ${sleepSeconds}\n` : ""}
printf '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"%s","total_cost_usd":0.001,"num_turns":1,"usage":{"input_tokens":1,"output_tokens":1},"permission_denials":[]}\\n' "$sid"
`;

/**
 * Writes the fake into `dir` as `name` (default `claude`, mode 755) and returns its path.
 * `options.sleepSeconds` (decimal seconds) and `options.outputBytes` default to 0.
 */
export function writeFakeClaude(dir, options = {}, name = "claude") {
  const file = join(dir, name);
  writeFileSync(file, script(options));
  chmodSync(file, 0o755);
  return file;
}

/**
 * One bench run's folder under `dir`: `repo` (a git repository with one commit, `makeRepo`), `home` (the
 * run's HOME) and the fake `claude` written with `options` (as {@link writeFakeClaude}). Returns the paths.
 */
export function benchRunFolder(dir, options = {}) {
  const repo = join(dir, "repo");
  const home = join(dir, "home");
  mkdirSync(repo);
  mkdirSync(home);
  makeRepo(repo);
  return { repo, home, claude: writeFakeClaude(dir, options) };
}
