import { expect, test } from "vitest";
import { nodeFileName } from "../../src/graph/file-name.js";

test("a node id becomes a file name with every / written as ~", () => {
  expect(nodeFileName("review/lint/fix")).toBe("review~lint~fix");
});

test("an id without / is its own file name", () => {
  expect(nodeFileName("build.step_1-a")).toBe("build.step_1-a");
});
