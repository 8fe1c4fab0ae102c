/**
 * A run directory that redacts known secrets (SPEC §9) from everything it writes as text: `state.json`,
 * `ledger.json`, `graph.json`, `rejected.json`, `events.jsonl` and text files. Binary writes are left as
 * they are: `patch.diff` is the nodes' content byte for byte (a patch with `***` in it would no longer
 * apply); the ledger's preview of it is redacted and says when the patch holds a secret.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Redactor } from "../core/redact.js";
import type { RunId } from "../core/run-id.js";
import { RunDirectory, type RunEvent } from "./run-dir.js";

export class RedactingRunDirectory extends RunDirectory {
  constructor(
    runsDir: string,
    runId: RunId,
    private readonly redactor: Redactor,
  ) {
    super(runsDir, runId);
  }

  override event(event: RunEvent): void {
    super.event(this.redactor.deep(event));
  }

  override writeJson(name: string, value: unknown): string {
    return super.writeJson(name, this.redactor.deep(value));
  }

  override writeText(name: string, text: string): string {
    return super.writeText(name, this.redactor.text(text));
  }

  /**
   * Rewrites a node's saved output and failed reply (written by the node's own lifecycle) with secrets
   * redacted, when they hold any.
   */
  redactSavedOutputs(nodeId: string): void {
    if (!this.redactor.active) return;
    for (const path of [this.nodeOutputPath(nodeId), this.failedOutputPath(nodeId)]) {
      if (!existsSync(path)) continue;
      const text = readFileSync(path, "utf8");
      if (this.redactor.contains(text)) writeFileSync(path, this.redactor.text(text));
    }
  }
}
