/**
 * Cutting Markdown to a byte budget. GitHub enforces the check run `summary` and `text` limits (65535) in
 * UTF-8 bytes, not characters ("summary exceeds a maximum bytesize of 65535", dorny/test-reporter#57).
 */

/** GitHub's limit for a check run's `output.summary` and `output.text`, in UTF-8 bytes. */
export const CHECK_RUN_TEXT_MAX_BYTES = 65_535;

/** How far back from the byte cut a line break is still preferred over cutting mid-line. */
const LINE_BREAK_LOOKBACK_BYTES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/**
 * `text` unchanged when it fits in `maxBytes` UTF-8 bytes; otherwise a prefix of it, then whatever closes
 * what the prefix left open (a code fence, a `<details>` block), then a blank line and `notice` — the
 * whole ≤ `maxBytes` bytes. The cut never splits a multi-byte character and prefers a line break near
 * the limit. When even `notice` does not fit, it is itself cut to `maxBytes`.
 */
export function truncateUtf8(text: string, maxBytes: number, notice: string): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const tail = `\n\n${notice}`;
  const tailBytes = utf8Bytes(tail);
  if (tailBytes > maxBytes) return decodePrefix(encoder.encode(notice), maxBytes, { preferLineBreak: false });

  let budget = maxBytes - tailBytes;
  for (;;) {
    const kept = decodePrefix(bytes, budget, { preferLineBreak: true });
    const closers = closersFor(kept);
    const used = utf8Bytes(kept) + utf8Bytes(closers);
    if (used + tailBytes <= maxBytes) return `${kept}${closers}${tail}`;
    // The closers did not fit: give their bytes back from the kept text and cut again.
    budget -= used + tailBytes - maxBytes;
  }
}

/** The longest prefix of `bytes` within `budget` that is whole characters, ending at a line break if near. */
function decodePrefix(bytes: Uint8Array, budget: number, options: { preferLineBreak: boolean }): string {
  let end = Math.max(0, Math.min(budget, bytes.length));
  // 0b10xxxxxx is a continuation byte: stepping back over them lands on the start of the cut character.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  if (options.preferLineBreak) {
    const floor = Math.max(0, end - LINE_BREAK_LOOKBACK_BYTES);
    for (let i = end - 1; i >= floor; i -= 1) {
      if (bytes[i] === 0x0a) {
        end = i;
        break;
      }
    }
  }
  return decoder.decode(bytes.subarray(0, end));
}

/**
 * What closes the constructs `markdown` leaves open at its end: a fenced code block (CommonMark: a line
 * of ≥ 3 backticks or tildes, indented ≤ 3 spaces, closed by the same character at least as long) and
 * `<details>` blocks opened outside fences. Without them the notice would render as code or stay hidden.
 */
export function closersFor(markdown: string): string {
  let fence: { char: string; length: number } | null = null;
  let openDetails = 0;
  for (const line of markdown.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence !== null) {
      if (
        marker !== null &&
        marker[1]![0] === fence.char &&
        marker[1]!.length >= fence.length &&
        marker[2]!.trim() === ""
      ) {
        fence = null;
      }
      continue;
    }
    if (marker !== null && !(marker[1]![0] === "`" && marker[2]!.includes("`"))) {
      fence = { char: marker[1]![0]!, length: marker[1]!.length };
      continue;
    }
    openDetails += (line.match(/<details\b/gi) ?? []).length;
    openDetails -= (line.match(/<\/details>/gi) ?? []).length;
  }
  let closers = fence === null ? "" : `\n${fence.char.repeat(fence.length)}`;
  for (let i = 0; i < openDetails; i += 1) closers += "\n</details>";
  return closers;
}
