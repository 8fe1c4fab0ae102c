import { randomBytes } from "node:crypto";

/**
 * Fences child output echoed to the runner log from the workflow-command parser (SPEC §9).
 *
 * Between `::stop-commands::TOKEN` and `::TOKEN::` the runner ignores workflow commands, so a build that
 * prints `::set-output`, `::add-mask::` or `::error` changes nothing. The token is random per fence, so a
 * child cannot print it to end the fence early. Source: GitHub Docs, "Workflow commands for GitHub
 * Actions" → "Stopping and starting workflow commands".
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
  ) {}

  /** Echo one line of child output (without its newline), opening the fence first if needed. */
  line(text: string): void {
    this.openFence();
    this.write(`${text}\n`);
    this.atLineStart = true;
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

  /** Resume workflow commands. Safe to call more than once. */
  close(): void {
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
