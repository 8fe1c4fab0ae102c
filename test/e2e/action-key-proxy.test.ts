/**
 * The key proxy wired into the action's run (issue 12; SPEC §9; ADR 0010): in `mode: run` the bundled
 * action starts the loopback key proxy before the first model call, and the real `claude` CLI gets the
 * proxy's base URL and a dummy key. A node's Bash tool call prints its own environment and its parent's
 * (the CLI's) initial environment back to the model: the scripted model server reads the dummy there and
 * the real key only in the `x-api-key` header the proxy put on each request.
 */
import { describe, expect, it } from "vitest";
import { DUMMY_CREDENTIAL } from "../../src/proxy/credential.js";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import { SCRIPTED_API_KEY } from "../support/model-server/index.js";
import { GRAPH_PATH } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const MARK = "PRINT-ENV-MARK";
const GRAPH = [
  "name: print-env",
  "nodes:",
  "  - id: look",
  `    prompt: "${MARK}: print the environment."`,
  "    allowed_tools: [Bash]",
  "    success_check:",
  "      verify:",
  "        command: npm test",
  "",
].join("\n");
/** The tool's own environment, then its parent's (the CLI process's) initial one. */
const PRINT_ENVIRONMENTS = "env; echo ---parent---; tr '\\0' '\\n' < /proc/$PPID/environ";

const open = actionTestResources();

describe("action: the model CLI gets the key proxy, never the key (issue 12)", () => {
  it("mode run: the CLI's environment and its tool's hold the dummy key and a loopback base URL; the model server gets the real key from the proxy", async () => {
    const repo = await makeFixedSampleRepo("the pull request", {}).then(open.keep);
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "look",
          match: MARK,
          turns: [
            { tool_calls: [{ name: "Bash", input: { command: PRINT_ENVIRONMENTS } }] },
            { text: "Printed." },
          ],
        },
      ],
    });
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: GRAPH });

    const result = await open.run({ workspace: repo.dir, inputs: { graph: GRAPH_PATH }, github, model });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ conclusion: "success" });
    expect(result.modelRequests).toHaveLength(2);
    for (const request of result.modelRequests) expect(request.headers["x-api-key"]).toBe(SCRIPTED_API_KEY);
    const printed = JSON.stringify(result.modelRequests[1]!.body);
    expect(printed).toContain("---parent---");
    expect(printed).toContain(`ANTHROPIC_API_KEY=${DUMMY_CREDENTIAL}`);
    expect(printed).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\//);
    expect(printed).not.toContain(SCRIPTED_API_KEY);
    expect(result.stdout).toContain("key proxy: the claude CLI gets a loopback base URL and a dummy key");
  });
});
