/**
 * A recording wrapper around a real model CLI, for tests that assert the exact argv and environment the
 * engine spawned (completion-absent.test.ts, completion-gate.real-cli.test.ts): the wrapper writes each call's argv
 * and environment (NUL-separated) into `DIR/calls/`, then `exec`s the real CLI, so the process is the real
 * one.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes the wrapper into `dir` and returns its path (the run's `executable`). */
export function recordingWrapper(dir: string, real: string): string {
  const log = join(dir, "calls");
  mkdirSync(log, { recursive: true });
  const wrapper = join(dir, "recording-cli");
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `n=$(ls '${log}' | wc -l)`,
      `f='${log}'/call-$(printf '%03d' "$n")`,
      `printf '%s\\0' "$@" > "$f.argv"`,
      `env -0 > "$f.env"`,
      `exec '${real}' "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** One recorded call: its argv (without the executable) and its environment entries, sorted. */
export interface RecordedCall {
  readonly argv: readonly string[];
  readonly env: readonly string[];
}

/** The calls the wrapper in `dir` recorded, in spawn order. */
export function recordedCalls(dir: string): RecordedCall[] {
  const log = join(dir, "calls");
  const names = readdirSync(log)
    .filter((n) => n.endsWith(".argv"))
    .sort();
  return names.map((name) => {
    const base = join(log, name.slice(0, -".argv".length));
    const split = (text: string) => text.split("\0").filter((part) => part !== "");
    return {
      argv: split(readFileSync(`${base}.argv`, "utf8")),
      // The recording wrapper's own variables (`PWD`, `SHLVL`, `_`) are the shell's, not the engine's.
      env: split(readFileSync(`${base}.env`, "utf8"))
        .filter((entry) => !/^(PWD|OLDPWD|SHLVL|_)=/.test(entry))
        .sort(),
    };
  });
}
