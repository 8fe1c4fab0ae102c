/**
 * The run directory (SPEC §4, §11): `state.json` (schema-versioned, written atomically within the store's
 * coalescing window of every terminal node and at every leg's end: `run-state-store.ts`), `events.jsonl` (append-only, one JSON line per transition), `graph.json`, node outputs
 * under `nodes/`, failed replies under `failed/`, `patch.diff` when nodes changed files, `ledger.json`; and,
 * only while a leg runs, the managed worktrees of `worktree:` nodes under `worktrees/` (`run-worktrees.ts`).
 */

import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { RunId } from "../core/run-id.js";
import { nodeFileName } from "../graph/file-name.js";

/**
 * One line of `events.jsonl` (SPEC §4; research/oh-my-graph.md §7.4). `at` (ISO-8601 UTC) is added on
 * write. File order is the order; every `run_started` opens a leg, `run_finished` closes it.
 */
export type RunEvent =
  | {
      readonly type: "run_started";
      readonly runId: string;
      readonly mode: string;
      /** `fresh`, or the resume action (`approve GATE`, `reject GATE`, `retry-failed`). */
      readonly leg?: string;
    }
  | { readonly type: "plan_ready"; readonly nodes: readonly string[]; readonly sinks: readonly string[] }
  | {
      readonly type: "node_started";
      readonly node: string;
      readonly sessionId: string | null;
      /** 1-based attempt of this execution (retries), and the feedback round it runs in (0 = none). */
      readonly attempt?: number;
      readonly round?: number;
      /** A node with a completion gate: its completion attempt (SPEC §7). */
      readonly completionAttempt?: number;
    }
  /** Codex: the thread id of an execution that started a fresh thread, as soon as codex printed it. */
  | { readonly type: "node_session"; readonly node: string; readonly sessionId: string }
  | { readonly type: "node_passed"; readonly node: string; readonly qualifier: string }
  | { readonly type: "node_failed"; readonly node: string; readonly cause: string; readonly detail: string }
  | {
      readonly type: "node_retried";
      readonly node: string;
      readonly cause: string;
      /** A retry: the attempt about to run. A feedback arc: the round fired and the node re-run. */
      readonly attempt?: number;
      readonly round?: number;
      readonly rerun?: string;
      /** A failed completion check: the completion attempt about to run, and the check's reason. */
      readonly completionAttempt?: number;
      readonly reason?: string;
      readonly detail: string;
    }
  | { readonly type: "node_verifying"; readonly node: string; readonly command: string }
  | { readonly type: "node_skipped"; readonly node: string; readonly reason: string }
  | { readonly type: "gate_paused"; readonly node: string }
  | { readonly type: "gate_approved"; readonly node: string; readonly by: string; readonly headSha: string }
  | { readonly type: "gate_rejected"; readonly node: string; readonly by: string }
  | { readonly type: "session_limit"; readonly node: string; readonly resetsAt: string | null }
  /**
   * A managed worktree closed at the end of a leg (`run-worktrees.ts`): the commit made of its changes on
   * `branch` (`null`: none), whether the checkout left the run directory, and why not.
   */
  | {
      readonly type: "worktree_closed";
      readonly name: string;
      readonly branch: string;
      readonly commit: string | null;
      readonly removed: boolean;
      readonly problem?: string;
    }
  /** `verify-base` (ADR 0017): the base's worktree could not be removed at the end of a leg, and why. */
  | { readonly type: "base_worktree_left"; readonly problem: string }
  | { readonly type: "run_finished"; readonly outcome: string; readonly conclusion: string };

/**
 * Who holds a run directory's `run.lock` (`PID@HOST`), when that process may still be running: a lock
 * from another host, or whose pid is not a number, counts as held (`(unknown)` when it cannot be read); a
 * lock of this host whose pid is gone, and no lock at all, are `null`. Taking nothing, it tells a reader
 * (`evidence-gate ledger`) whether a run is still in progress.
 */
export function liveLockHolder(runDir: string): string | null {
  const path = join(runDir, "run.lock");
  if (!existsSync(path)) return null;
  const holder = (() => {
    try {
      return readFileSync(path, "utf8").trim();
    } catch {
      return "";
    }
  })();
  const [pid, host] = holder.split("@");
  if (host !== hostname() || pid === undefined || !/^\d+$/.test(pid)) return holder || "(unknown)";
  try {
    process.kill(Number(pid), 0);
    return holder;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? holder : null;
  }
}

export class RunDirectory {
  readonly path: string;
  /** sha256 (hex) of the bytes this process last wrote to each JSON file, by file name. */
  readonly #digests = new Map<string, string>();

  /** Creates `<runsDir>/<runId>/` and its `nodes/` and `failed/` folders. */
  constructor(
    runsDir: string,
    readonly runId: RunId,
  ) {
    this.path = join(runsDir, runId);
    mkdirSync(join(this.path, "nodes"), { recursive: true });
    // Run directories stay out of git wherever they live (SPEC §11: "git-ignored by the tool"), so they
    // never enter an evidence tree, a patch or a `--commit`.
    const ignore = join(runsDir, ".gitignore");
    if (!existsSync(ignore))
      writeFileSync(ignore, "# written by evidence-gate: run directories stay out of git\n*\n");
    mkdirSync(join(this.path, "failed"), { recursive: true });
  }

  /**
   * Takes the run's lock (`run.lock`, created exclusively, holding this process's pid and host), so two
   * legs of one run never run at once (research §7.5). A lock left by a process that is gone (same host,
   * pid not running) is taken over.
   *
   * @returns `null` when taken, else why not (which process holds it).
   */
  lock(): string | null {
    const path = join(this.path, "run.lock");
    const mine = `${process.pid}@${hostname()}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${mine}\n`, { flag: "wx" });
        return null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      // A lock that vanished in between, or whose process is gone, is taken on the next attempt.
      const holder = liveLockHolder(this.path);
      if (holder !== null)
        return `run ${this.runId} is in use by process ${holder} (${path}): one leg at a time`;
      rmSync(path, { force: true });
    }
    return `run ${this.runId}'s lock ${path} could not be taken`;
  }

  /** Releases the lock taken by {@link lock} (only if this process holds it). */
  unlock(): void {
    const path = join(this.path, "run.lock");
    try {
      if (readFileSync(path, "utf8").trim() === `${process.pid}@${hostname()}`) rmSync(path, { force: true });
    } catch {
      // Already gone.
    }
  }

  /** Appends one event line with a timestamp. */
  event(event: RunEvent): void {
    appendFileSync(
      join(this.path, "events.jsonl"),
      `${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`,
    );
  }

  /** Writes a JSON file atomically (temp file + rename), so a crash never leaves half a file. */
  writeJson(name: string, value: unknown): string {
    const target = join(this.path, name);
    const temp = `${target}.${process.pid}.tmp`;
    const text = `${JSON.stringify(value, null, 2)}\n`;
    writeFileSync(temp, text);
    renameSync(temp, target);
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
    return target;
  }

  /**
   * The sha256 (hex) of what this process last wrote to `name` with {@link writeJson}, or `null`. The
   * action posts the digests of `state.json` and `graph.json` on the check run (out of every node's reach),
   * so a resumed leg can prove the run directory it downloaded is the one the engine wrote.
   */
  digestOf(name: string): string | null {
    return this.#digests.get(name) ?? null;
  }

  /** Records the digest of a JSON file this process read and checked rather than wrote (resume's graph.json). */
  noteDigest(name: string, text: string): void {
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
  }

  /** Writes a text file (node output, patch) and returns its path. */
  writeText(name: string, text: string): string {
    const target = join(this.path, name);
    writeFileSync(target, text);
    return target;
  }

  /** Writes a binary file (a patch need not be UTF-8) and returns its path. */
  writeBytes(name: string, bytes: Uint8Array): string {
    const target = join(this.path, name);
    writeFileSync(target, bytes);
    return target;
  }

  /** Path of a node's saved output (the `{{ artifacts.ID }}` target). */
  nodeOutputPath(nodeId: string): string {
    return join(this.path, "nodes", `${nodeFileName(nodeId)}.out`);
  }

  /** Path of a failed node's saved reply. */
  failedOutputPath(nodeId: string): string {
    return join(this.path, "failed", `${nodeFileName(nodeId)}.out`);
  }
}
