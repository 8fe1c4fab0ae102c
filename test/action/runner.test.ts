/**
 * The action's runner port (src/action/runner.ts): the engine's own log lines can carry text the pull
 * request controls (a file name with newlines in it), so `info` never lets a line of it act as a workflow
 * command. Found by an attack: a committed file named `x/.claude/a\n::warning …\n::set-output …\nb` made the
 * agent-configuration note forge an annotation and a step output.
 */
import { afterEach, describe, expect, it } from "vitest";
import { coreRunner } from "../../src/action/runner.js";
import { activeWorkflowCommands } from "../support/workflow-commands.js";

const realWrite = process.stdout.write.bind(process.stdout);
afterEach(() => {
  process.stdout.write = realWrite;
});

function captured(run: () => void): string {
  let text = "";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }) as typeof process.stdout.write;
  try {
    run();
  } finally {
    process.stdout.write = realWrite;
  }
  return text;
}

describe("coreRunner.info", () => {
  it("fences a text whose lines the runner would read as workflow commands: shown, parsed as nothing", () => {
    const name =
      "x/.claude/a\n::warning title=evidence-gate::INJECTED\r::set-output name=injected::yes\n  ::add-mask::sample\n##[error]old style\n::stop-commands::swallow\nb";
    const out = captured(() => coreRunner.info(`agent configuration: set aside ${name}`));
    expect(out).toContain("INJECTED");
    expect(activeWorkflowCommands(out)).toEqual([]);
    // The same text written raw is live: the check above can fail.
    expect(activeWorkflowCommands(`${name}\n`).length).toBeGreaterThanOrEqual(3);
    // What follows the fenced text is parsed again (the injected stop-commands did not swallow it).
    const after = captured(() => {
      coreRunner.info(`set aside ${name}`);
      process.stdout.write("::notice::the engine's own command\n");
    });
    expect(activeWorkflowCommands(after)).toEqual(["::notice::the engine's own command"]);
  });

  it("writes an ordinary text as it is, without a fence", () => {
    const out = captured(() => coreRunner.info("evidence-gate: 3 nodes, 1 sink :: fine"));
    expect(out).toBe("evidence-gate: 3 nodes, 1 sink :: fine\n");
  });
});
