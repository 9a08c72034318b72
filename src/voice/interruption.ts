/**
 * Barge-in: decides whether the caller's speech cuts the assistant off, from the assistant's
 * settings. The VAD's threshold for this (interrupt_sensitivity) is applied in the VAD stage
 * while the assistant holds the floor; here:
 *
 * - `allow_interruptions` false: nothing the caller says cancels the assistant's turn;
 * - `min_interrupt_words` 0: the VAD's speech onset cancels it at once (fastest reaction);
 * - `min_interrupt_words` N > 0: only when the caller's transcript of the current utterance
 *   (interim included) reaches N words — "mhm", "yeah", "okay" pass without cutting in.
 *
 * Cancelling the turn (TurnControl.cancel) aborts its LLM request and TTS stream; the output
 * stage clears the leg's playback on the `cancel` frame and reports what was heard.
 */
import { wordCount, type Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { Floor } from './settings.js';

export interface InterruptionOptions {
  allowInterruptions: boolean;
  minInterruptWords: number;
  floor: Floor;
}

export class InterruptionStage implements Stage {
  readonly name = 'interruption';
  /** Final transcripts of the caller's current utterance, and the interim after them. */
  private finals: string[] = [];
  private interim = '';

  constructor(private readonly options: InterruptionOptions) {}

  process(frame: Frame, push: Push, ctx: StageContext): void {
    switch (frame.kind) {
      case 'speech-started':
        if (this.options.minInterruptWords <= 0) this.interrupt(ctx, frame.at);
        break;
      case 'transcript':
        if (frame.final) {
          if (frame.text.trim() !== '') this.finals.push(frame.text.trim());
          this.interim = '';
        } else this.interim = frame.text.trim();
        if (this.options.minInterruptWords > 0 && wordCount([...this.finals, this.interim].join(' ')) >= this.options.minInterruptWords) {
          this.interrupt(ctx, frame.at);
        }
        // The provider's end of the utterance: the next words are a new utterance.
        if (frame.speechFinal) this.finals = [];
        break;
      case 'utterance-end':
      case 'end-of-turn':
      case 'customer-said':
        this.finals = [];
        this.interim = '';
        break;
    }
    push(frame);
  }

  private interrupt(ctx: StageContext, at: number): void {
    const turn = this.options.floor.assistantTurn;
    if (turn === null || !this.options.allowInterruptions) return;
    ctx.log.debug({ turn, at }, 'the caller interrupts the assistant');
    this.options.floor.assistantDone(turn);
    ctx.turns.cancel(turn, 'barge-in');
  }
}
