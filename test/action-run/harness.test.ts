/**
 * The in-process action harness itself (test/support/action-in-process.ts): a step run in the test's
 * process leaves nothing of the action's process-wide start behind. On a runner the action is one process
 * per step; here every test file of a worker shares one module registry, and the action's start pins the
 * checkout's program keys and its trusted programs for the rest of the process
 * (src/pull-request/trusted-executables.ts). Left on, a later test of the CLI's behaviour (where a user's
 * own repository configuration is theirs) saw the action's pins instead — test/proc/trusted-git.test.ts's
 * "outside its scope the same plant does run" failed in the whole fast tier and passed alone.
 */
import { describe, expect, it } from "vitest";
import { checkoutConfigurationGuarded } from "../../src/proc/trusted-git.js";
import { trustedCommand } from "../../src/proc/trusted-tools.js";
import { actionInProcessResources } from "../support/action-in-process.js";
import { pushPayload } from "../support/scenarios/pr-heads.js";
import { makeHelloRepo } from "../support/temp-repo.js";

const open = actionInProcessResources();

describe("in-process action harness", () => {
  it("after a step: the checkout's pins are off, the trusted programs forgotten, the environment, working directory and exit code restored", async () => {
    const repo = open.keep(await makeHelloRepo());
    const github = await open.github();
    const before = { env: { ...process.env }, cwd: process.cwd(), exitCode: process.exitCode };

    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "true" },
      github,
      event: { name: "push", payload: pushPayload() },
    });

    // The step ran the action's start (an unsupported event is refused after it) and failed the step.
    expect(result.exitCode).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(checkoutConfigurationGuarded()).toBe(false);
    expect(trustedCommand("git")).toBe("git");
    expect(process.env).toEqual(before.env);
    expect(process.cwd()).toBe(before.cwd);
    expect(process.exitCode).toBe(before.exitCode);
  });
});
