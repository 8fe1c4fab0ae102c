/**
 * What was removed from one piece of untrusted text before a prompt quoted it (SPEC §9; issue 12 item 6):
 * produced by `src/plan/untrusted-text.ts` (`quoteUntrusted`), carried on the ledger's plan section
 * (`PlanSection.untrustedText`) and said in its Markdown and text, so a reviewer learns that the pull
 * request held text nobody could see.
 */
export interface UntrustedTextRemoval {
  /**
   * Where the text came from: a fence label (`pr-title`, `pr-body`, `comment`), or `goal` (the goal, not
   * fenced: an instruction, which a `/evidence-gate run` comment can give).
   */
  readonly source: string;
  /** Hidden code points removed (zero-width, bidi, tag, control, filler, surplus variation selectors). */
  readonly hiddenChars: number;
  /** HTML comments removed. */
  readonly htmlComments: number;
  /** Hidden elements, collapsed `<details>` bodies and comment-style reference definitions removed. */
  readonly hiddenHtml: number;
  /** Alternative texts (image alt, HTML `alt`/`title`) emptied. */
  readonly altTexts: number;
  /** Code points cut from the middle to fit the prompt's bound (visible text, not hidden). */
  readonly omittedChars: number;
}
