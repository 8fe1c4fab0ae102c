/**
 * Writes outside the repository (SPEC §6: not in the evidence tree): placing the model's written paths
 * inside or outside the repository (real folders and symlinks), and, on BOTH runtimes, a real CLI's write
 * outside the repository named on the node's row (claude's `Write` tool; codex's `apply_patch`, which its
 * workspace-write sandbox allows in the temp directory).
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, test } from "vitest";
import { outsideWrites } from "../../src/engine/outside-writes.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { graphHarnessPerTest, rowWords } from "./graph-harness.js";
import { RUNTIMES, type ToolCall } from "./runtime-harness.js";

let base: string;
let repo: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "eg-outside-writes-")));
  repo = join(base, "repo");
  outside = join(base, "elsewhere");
  mkdirSync(join(repo, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(repo, "src", "a.js"), "");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("outsideWrites", () => {
  it("paths inside the repository, absolute or relative to the cwd, existing or not: none", () => {
    const where = { cwd: join(repo, "src"), repoRoot: repo };
    expect(outsideWrites([join(repo, "src", "a.js"), "a.js", "new/deep/b.js", "../README.md"], where)).toBe(
      undefined,
    );
    expect(outsideWrites([], where)).toBe(undefined);
  });

  it("a path outside (also a relative one climbing out of the repository, and one not existing yet) is recorded", () => {
    const written = outsideWrites(
      [join(base, "node_modules", "sumlib", "index.js"), "../../elsewhere/x.js"],
      {
        cwd: join(repo, "src"),
        repoRoot: repo,
      },
    );
    expect(written).toEqual({
      total: 2,
      paths: [join(base, "node_modules", "sumlib", "index.js"), join(outside, "x.js")],
    });
  });

  it("a symlink in the repository that points out of it counts as outside, by its real path", () => {
    symlinkSync(outside, join(repo, "linked"));
    expect(outsideWrites(["linked/new.js"], { cwd: repo, repoRoot: repo })).toEqual({
      total: 1,
      paths: [join(outside, "new.js")],
    });
  });

  it("a repository root reached through a symlink is still the repository", () => {
    symlinkSync(repo, join(base, "repo-link"));
    expect(outsideWrites([join(repo, "src", "a.js")], { cwd: repo, repoRoot: join(base, "repo-link") })).toBe(
      undefined,
    );
  });

  it("paths that cannot be placed (~, a dangling symlink) count as outside, as given (fail safe)", () => {
    symlinkSync(join(base, "gone"), join(repo, "dangling"));
    const written = outsideWrites(["~/.bashrc", "dangling/x.js"], { cwd: repo, repoRoot: repo });
    expect(written).toEqual({ total: 2, paths: ["~/.bashrc", "dangling/x.js"] });
  });

  it("keeps up to 10 paths and the total", () => {
    const paths = Array.from({ length: 12 }, (_, i) => join(outside, `f${i}.js`));
    const written = outsideWrites(paths, { cwd: repo, repoRoot: repo });
    expect(written?.total).toBe(12);
    expect(written?.paths).toEqual(paths.slice(0, 10));
  });
});

const harness = graphHarnessPerTest();

/** Creates `file` (absolute, not existing yet) as the runtime's model would: claude `Write`, codex `apply_patch`. */
function addFileCall(runtime: Runtime, file: string, content: string): ToolCall {
  return runtime === "claude"
    ? { name: "Write", input: { file_path: file, content } }
    : {
        name: "apply_patch",
        input: { input: `*** Begin Patch\n*** Add File: ${file}\n+${content.trimEnd()}\n*** End Patch\n` },
      };
}

describe.each(RUNTIMES)("a write outside the repository on %s", (runtime) => {
  test("the real CLI's write lands outside the repository and the row names the path", async () => {
    const h = await harness({
      runtime,
      script: (repo) => ({
        conversations: [
          {
            name: "stray",
            match: "STRAY-MARK",
            turns: [
              { tool_calls: [addFileCall(runtime, `${repo.dir}-outside.txt`, "x\n")] },
              { text: "Wrote a note." },
            ],
          },
        ],
      }),
    });
    const outside = `${h.repo.dir}-outside.txt`;
    onTestFinished(() => rmSync(outside, { force: true }));
    const { ledger } = await h.run(`
name: stray
nodes:
  - id: note
    prompt: "STRAY-MARK: write a note."
    allowed_tools: [Read, Write]
`);
    expect(readFileSync(outside, "utf8")).toBe("x\n");
    expect(rowWords(ledger.rows)).toEqual(["note PASS (exit-only)"]);
    expect(ledger.rows[0]!.outsideWrites).toEqual({ total: 1, paths: [outside] });
    expect(ledger.rows[0]!.detail).toBe(
      `exited 0; wrote outside the repository (not in the evidence tree): ${outside}`,
    );
  });
});
