/** The run directory redacts known secrets from every text it writes, and leaves binary writes alone. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/redact.js";
import { mintRunId } from "../../src/core/run-id.js";
import { RedactingRunDirectory } from "../../src/engine/redacting-run-dir.js";

const SECRET = "ghs_runDirSecret0123456789";
let scratch = "";
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function dir(): RedactingRunDirectory {
  scratch = mkdtempSync(join(tmpdir(), "eg-redacting-run-dir-"));
  return new RedactingRunDirectory(join(scratch, "runs"), mintRunId(), createRedactor([SECRET]));
}

describe("RedactingRunDirectory", () => {
  it("redacts JSON files, events and text files", () => {
    const d = dir();
    const state = d.writeJson("state.json", { detail: `printed ${SECRET}`, [SECRET]: 1 });
    d.event({ type: "node_failed", node: "n", cause: "verify_failed", detail: `tail ${SECRET}` });
    const text = d.writeText("note.txt", `a ${Buffer.from(SECRET).toString("base64")} b`);
    for (const file of [state, join(d.path, "events.jsonl"), text]) {
      const content = readFileSync(file, "utf8");
      expect(content, file).not.toContain(SECRET);
      expect(content, file).toContain("***");
    }
  });

  it("leaves bytes as they are (patch.diff is the nodes' content)", () => {
    const d = dir();
    const patch = d.writeBytes("patch.diff", Buffer.from(`+const key = "${SECRET}";\n`));
    expect(readFileSync(patch, "utf8")).toContain(SECRET);
  });

  it("rewrites a node's saved output and failed reply when they hold a secret, and only then", () => {
    const d = dir();
    writeFileSync(d.nodeOutputPath("a"), `reply ${SECRET}`);
    writeFileSync(d.failedOutputPath("b"), `failed ${SECRET}`);
    writeFileSync(d.nodeOutputPath("c"), "clean");
    d.redactSavedOutputs("a");
    d.redactSavedOutputs("b");
    d.redactSavedOutputs("c");
    d.redactSavedOutputs("never-ran");
    expect(readFileSync(d.nodeOutputPath("a"), "utf8")).toBe("reply ***");
    expect(readFileSync(d.failedOutputPath("b"), "utf8")).toBe("failed ***");
    expect(readFileSync(d.nodeOutputPath("c"), "utf8")).toBe("clean");
    expect(existsSync(d.nodeOutputPath("never-ran"))).toBe(false);
  });
});
