/**
 * The ledger's patch section in Markdown (job summary, check run): where the nodes' uncommitted changes
 * (in `mode: verify`, which runs no node, the working tree's) were saved (`patch.diff`), a warning when
 * they hold a known secret, and a bounded preview of the diff.
 */
import { utf8Bytes } from "./byte-budget.js";
import type { Ledger } from "./ledger.js";
import { codeSpan, fencedBlock } from "./markdown-syntax.js";

/** How much of the patch the preview keeps: lines, then UTF-8 bytes, whichever binds first. */
export interface PreviewBounds {
  readonly patchPreviewLines: number;
  readonly patchPreviewBytes: number;
}

/** `### Patch` with the preview, or `""` when the run saved no patch. */
export function patchSection(ledger: Ledger, detail: PreviewBounds): string {
  const { patch } = ledger;
  if (patch === undefined) return "";
  const where = `${codeSpan(patch.path, { inTable: false })} (${patch.bytes} bytes)`;
  const lines = [
    "### Patch",
    "",
    // `mode: verify` runs no node: the changes were in the working tree before the run (issue 26).
    ledger.mode === "verify"
      ? `The working tree the verify command ran on holds changes that are not on the posted commit: ${where}.`
      : `The nodes changed files that are not on the posted commit: ${where}.`,
  ];
  if (patch.holdsSecret === true) {
    lines.push(
      "",
      "**The patch holds a known secret value** (the GitHub token or the model credential). The preview shows it as `***`; the patch file in the run directory holds it as the nodes wrote it. Remove it before you apply or share the patch.",
    );
  }
  const preview = boundedPreview(patch.preview, detail);
  if (preview.text !== "") {
    const shown = preview.cut ? `Preview (first ${preview.lines} lines)` : "Preview";
    lines.push(
      "",
      `<details><summary>${shown}</summary>`,
      "",
      fencedBlock(preview.text, "diff"),
      "",
      "</details>",
    );
  }
  return lines.join("\n");
}

function boundedPreview(
  preview: string,
  detail: PreviewBounds,
): { text: string; lines: number; cut: boolean } {
  const all = preview
    .replace(/\r\n|\r/g, "\n")
    .replace(/\n$/, "")
    .split("\n");
  const kept: string[] = [];
  let bytes = 0;
  for (const line of all.slice(0, detail.patchPreviewLines)) {
    bytes += utf8Bytes(line) + 1;
    if (bytes > detail.patchPreviewBytes) break;
    kept.push(line);
  }
  const text = kept.join("\n");
  return { text, lines: kept.length, cut: kept.length < all.length };
}
