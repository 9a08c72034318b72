/**
 * What the caller said or typed that no turn has taken yet, shared by the two stages that end
 * the caller's turns: turn-taking (words) and keypad (keys). No caller word is lost (issue 26):
 *
 * - words the caller says while the assistant keeps the floor (allow_interruptions false, too
 *   few words for min_interrupt_words, a backchannel, speech that began just before a line the
 *   caller could not cut off) are held, not dropped;
 * - keys pressed while the caller is in the middle of an utterance wait for its words, so keys
 *   and words end up in one turn;
 * - the held words and keys open the caller's next turn, before its own words, in the order they
 *   came (turn-taking: `take`). When the assistant's line is over and what was held is more than
 *   a backchannel, that turn begins at once: the caller asked something and waits for the answer.
 *
 * Like the Floor (settings.ts), one object per call that the stages read and write.
 */
export class CallerWords {
  private held: string[] = [];
  /** Keys pressed during the open utterance: they follow its words. */
  private during: string[] = [];
  /**
   * True while the caller is in an utterance the turn-taking stage has not ended yet (speaking,
   * or silent with its words or its endpoint still to come). Written by turn-taking.
   */
  utteranceOpen = false;

  /** Keeps `text` (words or `[keypad: …]`) for the caller's next turn. */
  hold(text: string): void {
    const t = text.trim();
    if (t !== '') this.held.push(t);
  }

  /** Keeps `text` (keys) to follow the words of the utterance under way. */
  holdAfterUtterance(text: string): void {
    const t = text.trim();
    if (t !== '') this.during.push(t);
  }

  get holding(): boolean {
    return this.held.length > 0 || this.during.length > 0;
  }

  /** What is held so far, as one text. */
  get heldText(): string {
    return [...this.held, ...this.during].join(' ');
  }

  /** What `take(text)` would give now, without taking anything (a speculative reply's words). */
  preview(text: string): string {
    return [...this.held, text.trim(), ...this.during].filter((t) => t !== '').join(' ');
  }

  /** The held words and keys around `text` (the utterance's own words) as one turn's text; nothing is held afterwards. */
  take(text: string): string {
    const all = [...this.held, text.trim(), ...this.during].filter((t) => t !== '').join(' ');
    this.held = [];
    this.during = [];
    return all;
  }
}
