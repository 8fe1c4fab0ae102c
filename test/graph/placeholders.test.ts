import { describe, expect, test } from "vitest";
import {
  type InterpolationContext,
  interpolate,
  LITERAL_BRACES_HINT,
  lookalikePlaceholdersIn,
  placeholdersIn,
} from "../../src/graph/placeholders.js";

function context(overrides: Partial<InterpolationContext> = {}): InterpolationContext {
  const artifacts: Record<string, string> = { plan: "the plan text", "lint/fix": "fixed" };
  return {
    inputs: { task: "add a flag", empty: "" },
    artifactPath: (id) => (id in artifacts ? `/run/nodes/${id.replaceAll("/", "~")}.out` : undefined),
    readArtifact: (id) => artifacts[id],
    feedback: (id) => (id === "review" ? "fix the naming" : id === "judge" ? "" : undefined),
    ...overrides,
  };
}

describe("interpolate resolves the three placeholder namespaces", () => {
  test("{{ inputs.NAME }} is the input's value, whatever the whitespace inside the braces", () => {
    const result = interpolate(
      "A: {{inputs.task}} B: {{   inputs.task   }} C: [{{ inputs.empty }}]",
      context(),
    );
    expect(result).toEqual({ ok: true, text: "A: add a flag B: add a flag C: []" });
  });

  test("{{ artifacts.ID }} is the path of the node's saved output", () => {
    expect(interpolate("read {{ artifacts.plan }}", context())).toEqual({
      ok: true,
      text: "read /run/nodes/plan.out",
    });
  });

  test("{{ artifacts.ID | inline }} is the content of the node's saved output", () => {
    expect(interpolate("plan: {{ artifacts.plan | inline }} / {{artifacts.plan|inline}}", context())).toEqual(
      {
        ok: true,
        text: "plan: the plan text / the plan text",
      },
    );
  });

  test("an artifact id minted by fragment splicing may contain /", () => {
    expect(interpolate("{{ artifacts.lint/fix | inline }}", context())).toEqual({ ok: true, text: "fixed" });
  });

  test("{{ feedback.ID }} is the arc's payload, and empty before a round fires", () => {
    expect(interpolate("[{{ feedback.review }}][{{ feedback.judge }}]", context())).toEqual({
      ok: true,
      text: "[fix the naming][]",
    });
  });

  test("substituted values are inserted verbatim and never scanned again", () => {
    const ctx = context({ inputs: { a: "{{ inputs.b }} and $& and $1", b: "SECRET" } });
    expect(interpolate("{{ inputs.a }}", ctx)).toEqual({ ok: true, text: "{{ inputs.b }} and $& and $1" });
  });
});

describe("literal braces outside the three namespaces are ordinary text", () => {
  test.each([
    "{{ foo }}",
    "{{ item.name }}",
    "{{ inputsList }}",
    "{{ inputs-list }}",
    "{{ artifactsDir }}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression is the literal under test
    "${{ github.sha }}",
    "{ { inputs.task } }",
    "{{ inputs.task }",
  ])("%s is kept as written", (text) => {
    expect(interpolate(`before ${text} after`, context())).toEqual({
      ok: true,
      text: `before ${text} after`,
    });
  });
});

describe("an unresolvable placeholder fails with a message saying how to keep literal braces", () => {
  test("an unknown input names the token and says no such input was provided", () => {
    const result = interpolate("do {{ inputs.tsk }}", context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.unresolved).toEqual(["{{ inputs.tsk }}"]);
    expect(result.message).toContain("cannot resolve {{ inputs.tsk }}: no such input was provided");
    expect(result.message).toContain(LITERAL_BRACES_HINT);
    expect(result.message).toContain("{ { inputs.NAME } }");
  });

  test("an artifact whose node has not passed is unresolvable", () => {
    const result = interpolate("{{ artifacts.build }}", context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('cannot resolve {{ artifacts.build }}: no artifact from node "build"');
  });

  test("an inline artifact whose file cannot be read is unresolvable", () => {
    const result = interpolate("{{ artifacts.plan | inline }}", context({ readArtifact: () => undefined }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain("cannot read the artifact file /run/nodes/plan.out");
  });

  test("a feedback token for a node that declares no arc is unresolvable", () => {
    const result = interpolate("{{ feedback.build }}", context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('node "build" declares no feedback arc');
  });

  test("an input name that is a prototype member does not resolve", () => {
    const result = interpolate("{{ inputs.constructor }} {{ inputs.__proto__ }}", context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.unresolved).toEqual(["{{ inputs.constructor }}", "{{ inputs.__proto__ }}"]);
  });

  test.each([
    ["{{ artifacts.plan | upper }}", 'unknown filter "upper"'],
    ["{{ inputs.task | inline }}", "inputs placeholders take no filter"],
    ["{{ feedback.review | inline }}", "feedback placeholders take no filter"],
    ["{{ inputs }}", "malformed placeholder; write {{ inputs.NAME }}"],
    ["{{ inputs. task }}", "malformed placeholder"],
    ["{{ artifacts.a b }}", "malformed placeholder"],
  ])("%s never resolves: %s", (token, why) => {
    const result = interpolate(`x ${token} y`, context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.unresolved).toEqual([token]);
    expect(result.message).toContain(why);
  });

  test("every unresolvable token is listed once, in order", () => {
    const result = interpolate(
      "{{ inputs.a }} {{ artifacts.b }} {{ inputs.a }} {{ inputs.task }}",
      context(),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.unresolved).toEqual(["{{ inputs.a }}", "{{ artifacts.b }}"]);
  });
});

test("placeholdersIn lists each token with its namespace, name, filter and offset", () => {
  const template =
    "see {{ artifacts.plan | inline }} for {{inputs.task}} and {{ feedback.review }}; {{ foo }}";
  expect(placeholdersIn(template)).toEqual([
    {
      token: "{{ artifacts.plan | inline }}",
      index: 4,
      namespace: "artifacts",
      name: "plan",
      inline: true,
      problem: null,
    },
    { token: "{{inputs.task}}", index: 38, namespace: "inputs", name: "task", inline: false, problem: null },
    {
      token: "{{ feedback.review }}",
      index: 58,
      namespace: "feedback",
      name: "review",
      inline: false,
      problem: null,
    },
  ]);
});

describe("lookalikePlaceholdersIn: text that reads like a placeholder in no namespace (lint flags it)", () => {
  test("lists each one with its first word, path and filter, and skips the real placeholders", () => {
    const template =
      "{{ input.file }} {{ inputs.task }} {{Nodes.a.output}} {{ artifact.plan | inline }} {{ bogus }}";
    expect(lookalikePlaceholdersIn(template)).toEqual([
      { token: "{{ input.file }}", index: 0, namespace: "input", path: ["file"], filter: null },
      { token: "{{Nodes.a.output}}", index: 35, namespace: "Nodes", path: ["a", "output"], filter: null },
      {
        token: "{{ artifact.plan | inline }}",
        index: 54,
        namespace: "artifact",
        path: ["plan"],
        filter: "inline",
      },
      { token: "{{ bogus }}", index: 83, namespace: "bogus", path: [], filter: null },
    ]);
  });

  test("GitHub expressions, Go templates and other brace text are not listed", () => {
    expect(
      lookalikePlaceholdersIn(`\${{ github.sha }} {{ .Name }} {{ 1 + 2 }} {{ a b }} { { input.file } } {{}}`),
    ).toEqual([]);
  });

  test("interpolate leaves every one of them exactly as written", () => {
    const template = "{{ input.file }} {{ Inputs.task }} {{ nodes.plan.output }} {{ bogus }}";
    expect(interpolate(template, context())).toEqual({ ok: true, text: template });
  });
});
