import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { VERSION } from "../../src/cli/version.js";

test("the CLI's --version is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  expect(VERSION).toBe(pkg.version);
});
