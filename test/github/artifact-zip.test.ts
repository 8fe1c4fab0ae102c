/**
 * A downloaded run-directory artifact is untrusted data (SPEC §2, §4): its zip is extracted only when every
 * entry is a plain relative file or folder, within the limits, and a refused archive leaves nothing behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  archiveEntryProblem,
  extractArtifactZip,
  UnsafeArchiveError,
} from "../../src/github/artifact-zip.js";
import { buildZip } from "../support/zip-builder.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh parent folder and the (not yet existing) target inside it. */
function target(): { parent: string; target: string } {
  const parent = mkdtempSync(join(tmpdir(), "eg-zip-"));
  dirs.push(parent);
  return { parent, target: join(parent, "runs", "20250101-000000-abcdef") };
}

async function refusal(zip: Buffer): Promise<{ error: unknown; parent: string; target: string }> {
  const t = target();
  const error = await extractArtifactZip(zip, t.target).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ...t };
}

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe("extractArtifactZip", () => {
  it("extracts a run directory: files, nested folders, stored and deflated entries; mode 0644 whatever the archive says", async () => {
    const t = target();
    const zip = buildZip([
      { name: "state.json", content: '{"run_id":"x"}' },
      { name: "outputs/", mode: 0o040755 },
      { name: "outputs/review.md", content: "reply ".repeat(200), deflate: true },
      { name: "outputs/deep/a.txt", content: "a", mode: 0o104755 },
    ]);
    const result = await extractArtifactZip(zip, t.target);
    expect(result).toEqual({ files: 3, bytes: 14 + 1200 + 1 });
    expect(filesUnder(t.target).sort()).toEqual(["outputs/deep/a.txt", "outputs/review.md", "state.json"]);
    expect(readFileSync(join(t.target, "outputs", "review.md"), "utf8")).toBe("reply ".repeat(200));
    // setuid and exec bits from the archive are not kept.
    expect(statSync(join(t.target, "outputs", "deep", "a.txt")).mode & 0o7777).toBe(0o644 & ~process.umask());
    // Nothing but the target was left in the parent (no staging folder).
    expect(readdirSync(join(t.parent, "runs"))).toEqual(["20250101-000000-abcdef"]);
  });

  it.each([
    ["../escape.txt", "outside"],
    ["outputs/../../escape.txt", "outside"],
    ["/etc/evidence-gate-owned", "absolute"],
    ["C:/windows.txt", "absolute"],
    ["outputs\\..\\..\\escape.txt", "backslash"],
  ])("an entry named %j (traversal, %s) is refused and nothing is extracted", async (name) => {
    const {
      error,
      parent,
      target: dir,
    } = await refusal(
      buildZip([
        { name: "state.json", content: "{}" },
        { name, content: "owned" },
      ]),
    );
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(parent, "runs"))).toEqual([]);
    expect(existsSync(join(parent, "escape.txt"))).toBe(false);
    expect(existsSync(join(parent, "runs", "escape.txt"))).toBe(false);
  });

  it("a symlink entry is refused (it could point a later write or read anywhere), and nothing is extracted", async () => {
    const { error, target: dir } = await refusal(
      buildZip([
        { name: "state.json", content: "{}" },
        { name: "outputs/link", content: "/etc/passwd", mode: 0o120777 },
      ]),
    );
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect((error as Error).message).toContain('entry "outputs/link" is refused: a symbolic link');
    expect(existsSync(dir)).toBe(false);
  });

  it("a second entry of the same name is refused, never written over the first", async () => {
    const { error, target: dir } = await refusal(
      buildZip([
        { name: "state.json", content: "first" },
        { name: "state.json", content: "second" },
      ]),
    );
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect(existsSync(dir)).toBe(false);
  });

  it("an archive over the byte limit is refused before it is inflated; one over the entry limit too", async () => {
    const big = buildZip([{ name: "a.txt", content: "x".repeat(2000) }]);
    const t = target();
    await expect(extractArtifactZip(big, t.target, { maxEntries: 10, maxTotalBytes: 1000 })).rejects.toThrow(
      /more than 1000 bytes uncompressed/,
    );
    const many = buildZip([{ name: "a" }, { name: "b" }, { name: "c" }]);
    await expect(extractArtifactZip(many, t.target, { maxEntries: 2, maxTotalBytes: 1000 })).rejects.toThrow(
      /holds 3 entries; at most 2/,
    );
    expect(existsSync(t.target)).toBe(false);
  });

  it("an entry whose inflated bytes exceed its declared size (a zip bomb's lie) is refused", async () => {
    const { error, target: dir } = await refusal(
      buildZip([{ name: "bomb.txt", content: "y".repeat(100_000), deflate: true, declaredSize: 10 }]),
    );
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect(existsSync(dir)).toBe(false);
  });

  it("bytes that are not a zip are refused as an UnsafeArchiveError", async () => {
    const { error } = await refusal(Buffer.from("<html>not a zip</html>"));
    expect(error).toBeInstanceOf(UnsafeArchiveError);
    expect((error as Error).message).toMatch(/could not be extracted/);
  });
});

describe("archiveEntryProblem", () => {
  const unix = (3 << 8) | 20;
  const entry = (fileName: string, mode = 0o100644) => ({
    fileName,
    versionMadeBy: unix,
    externalFileAttributes: (mode << 16) >>> 0,
  });

  it.each([
    ["state.json", null],
    ["outputs/review.md", null],
    ["outputs/", null],
    ["", "an empty name or one with control characters"],
    ["a\u0000b", "an empty name or one with control characters"],
    ["../x", "a `..` segment (it would land outside the folder)"],
    ["a/../../x", "a `..` segment (it would land outside the folder)"],
    ["a//b", "an empty or `.` segment"],
    ["./a", "an empty or `.` segment"],
    ["/abs", "an absolute path"],
    ["D:/x", "an absolute path"],
    ["a\\b", "a backslash in the name"],
  ])("%j → %j", (name, problem) => {
    expect(archiveEntryProblem(entry(name, name.endsWith("/") ? 0o040755 : 0o100644))).toBe(problem);
  });

  it("refuses symlinks, devices and FIFOs, but reads no mode from a zip not made on Unix", () => {
    expect(archiveEntryProblem(entry("l", 0o120777))).toBe("a symbolic link");
    expect(archiveEntryProblem(entry("fifo", 0o010644))).toBe("a special file (mode 10000)");
    expect(
      archiveEntryProblem({ fileName: "f", versionMadeBy: 20, externalFileAttributes: 0o120777 << 16 }),
    ).toBe(null);
  });
});
