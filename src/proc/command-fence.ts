import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import type { EchoBudget } from "./echo-budget.js";

/**
 * Fences child output echoed to the runner log from the workflow-command parser (SPEC §9).
 *
 * Between `::stop-commands::TOKEN` and `::TOKEN::` the runner ignores workflow commands, so a build that
 * prints `::set-output`, `::add-mask::` or `::error` changes nothing. The token is random per fence, so a
 * child cannot print it to end the fence early. Source: GitHub Docs, "Workflow commands for GitHub
 * Actions" → "Stopping and starting workflow commands".
 *
 * With an {@link EchoBudget} (a child's output: issue 21 item 5) the fence also bounds what it echoes: the
 * output's head as it arrives, and at {@link CommandFence.close} the marker and the kept end, still inside
 * the fence. Without one (the engine's own text, e.g. the ledger) everything is echoed.
 */
export class CommandFence {
  private readonly token = `eg-${randomBytes(16).toString("hex")}`;
  private open = false;
  /** False while the last text written ended mid-line (a fragment of an over-long line). */
  private atLineStart = true;

  constructor(
    private readonly write: (text: string) => void,
    /** False outside GitHub Actions (a terminal): lines are echoed without fence markers. */
    private readonly enabled: boolean,
    /** Bounds the child output echoed through {@link line} and {@link bytes}; absent: unbounded. */
    private readonly budget: EchoBudget | null = null,
  ) {}

  /** For {@link line}: a budget may cut a line inside a character. */
  private readonly lineDecoder = new StringDecoder("utf8");

  /** Echo one line of child output (without its newline), opening the fence first if needed. */
  line(text: string): void {
    if (this.budget !== null) {
      this.bytes(Buffer.from(`${text}\n`, "utf8"), this.lineDecoder);
      return;
    }
    this.openFence();
    this.write(`${text}\n`);
    this.atLineStart = true;
  }

  /**
   * Echo raw child output (a run of whole lines or a fragment), the part the budget lets through now,
   * decoded with the stream's own `decoder` (a character split between two pieces is echoed whole).
   */
  bytes(bytes: Buffer, decoder: StringDecoder): void {
    const shown = this.budget !== null ? this.budget.take(bytes) : bytes;
    if (shown.length > 0) this.text(decoder.write(shown));
  }

  /**
   * Echo a run of child output as it is: whole lines, or the front of an over-long line (then the next
   * text continues that line in the log). Opens the fence first if needed.
   */
  text(text: string): void {
    if (text === "") return;
    this.openFence();
    this.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  /**
   * Echo the budget's marker and the kept end of the output (once), then resume workflow commands. Safe to
   * call more than once.
   */
  close(): void {
    const rest = this.budget?.finish() ?? { marker: null, tail: "" };
    if (rest.marker !== null) {
      this.openFence();
      if (!this.atLineStart) this.write("\n");
      this.write(`${rest.marker}\n`);
      this.atLineStart = true;
    }
    this.text(rest.tail);
    if (this.open) {
      // The closing marker only works at the start of a line.
      if (!this.atLineStart) this.write("\n");
      this.atLineStart = true;
      this.write(`::${this.token}::\n`);
      this.open = false;
    }
  }

  private openFence(): void {
    if (this.enabled && !this.open) {
      this.write(`::stop-commands::${this.token}\n`);
      this.open = true;
    }
  }
}
