/**
 * The run-state digest on the check run (src/github/run-state-digest.ts): written as a hidden comment,
 * read back only for the same run id, and compared byte for byte with a run directory.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  parseRunStateDigestFile,
  readRunStateDigests,
  runStateDigestFileText,
  runStateDigestMarker,
  runStateDigestProblem,
} from "../../src/github/run-state-digest.js";

const RUN = "20250101-120000-abcdef";
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eg-digest-"));
  writeFileSync(join(dir, "state.json"), '{"a":1}\n');
  writeFileSync(join(dir, "graph.json"), '{"nodes":[]}\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("run-state digest marker", () => {
  it("round-trips through a summary, hidden as an HTML comment", () => {
    const digests = { state: sha("s"), graph: sha("g") };
    const marker = runStateDigestMarker(RUN, digests);
    expect(marker).toMatch(/^<!-- .* -->$/);
    expect(readRunStateDigests(`# Ledger\n\ntext\n\n${marker}`, RUN)).toEqual(digests);
  });

  it("reads only the marker of the same run, and the last one when there are several", () => {
    const first = runStateDigestMarker(RUN, { state: sha("1"), graph: sha("g") });
    const last = runStateDigestMarker(RUN, { state: sha("2"), graph: sha("g") });
    const other = runStateDigestMarker("20250101-120000-000000", { state: sha("x"), graph: null });
    expect(readRunStateDigests(`${first}\n${other}\n${last}`, RUN)?.state).toBe(sha("2"));
    expect(readRunStateDigests(other, RUN)).toBeNull();
    expect(readRunStateDigests(null, RUN)).toBeNull();
    expect(readRunStateDigests("no marker here", RUN)).toBeNull();
  });

  it("a run directory matching both digests has no problem; a changed byte or a missing file is named", () => {
    const digests = { state: sha('{"a":1}\n'), graph: sha('{"nodes":[]}\n') };
    expect(runStateDigestProblem(dir, digests)).toBeNull();
    writeFileSync(join(dir, "state.json"), '{"a":2}\n');
    expect(runStateDigestProblem(dir, digests)).toMatch(
      /^state\.json has sha256 [0-9a-f]{64}, but the check run records/,
    );
    writeFileSync(join(dir, "state.json"), '{"a":1}\n');
    rmSync(join(dir, "graph.json"));
    expect(runStateDigestProblem(dir, digests)).toMatch(/^graph\.json is missing/);
    expect(runStateDigestProblem(dir, { ...digests, graph: null })).toBeNull();
  });
});

describe("the ignored-files baseline is vouched for too", () => {
  const baseline = '{"kind":"fingerprint"}\n';
  const digests = () => ({ state: sha('{"a":1}\n'), graph: sha('{"nodes":[]}\n'), ignored: sha(baseline) });

  it("round-trips through the marker and the digest file; a rewritten baseline is named", () => {
    writeFileSync(join(dir, "ignored-baseline.json"), baseline);
    const expected = digests();
    expect(readRunStateDigests(runStateDigestMarker(RUN, expected), RUN)).toEqual(expected);
    expect(parseRunStateDigestFile(runStateDigestFileText(RUN, expected), RUN)).toEqual(expected);
    expect(runStateDigestProblem(dir, expected)).toBeNull();
    // A node of the first leg added its own edit of node_modules/ to the baseline the next leg compares with.
    writeFileSync(join(dir, "ignored-baseline.json"), '{"kind":"fingerprint","forged":true}\n');
    expect(runStateDigestProblem(dir, expected)).toMatch(
      /^ignored-baseline\.json has sha256 [0-9a-f]{64}, but the check run records/,
    );
    expect(runStateDigestProblem(dir, { ...expected, ignored: null })).toMatch(
      /^ignored-baseline\.json is in the run directory, but the check run records none/,
    );
  });

  it("a record from before it (no `ignored`) still reads, and says nothing of the baseline", () => {
    const old = `<!-- evidence-gate-run-state run=${RUN} state=${sha('{"a":1}\n')} graph=${sha('{"nodes":[]}\n')} -->`;
    const read = readRunStateDigests(old, RUN);
    expect(read).toEqual({ state: sha('{"a":1}\n'), graph: sha('{"nodes":[]}\n') });
    expect(read?.ignored).toBeUndefined();
    writeFileSync(join(dir, "ignored-baseline.json"), "anything\n");
    expect(runStateDigestProblem(dir, read!)).toBeNull();
    const oldFile = `${JSON.stringify({ runId: RUN, state: null, graph: null })}\n`;
    expect(parseRunStateDigestFile(oldFile, RUN)).toEqual({ state: null, graph: null });
  });
});
