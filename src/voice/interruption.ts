/**
 * Barge-in: decides whether the caller's speech cuts the assistant off, from the assistant's
 * settings. The VAD's threshold for this (interrupt_sensitivity) is applied in the VAD stage
 * while the assistant holds the floor (sensitivity.ts).
 *
 * With speech-to-text (`twoStep`), an interruption has two steps:
 * 1. At the caller's speech onset while the assistant holds the floor (speaking, or still
 *    thinking), its output pauses at once (output.ts `pause`: nothing more goes out, the leg's
 *    buffer is cleared, the rest is kept).
 * 2. The words decide, within a few hundred ms (turn/backchannel.ts `BackchannelDetector`, the
 *    language's list plus the assistant's `backchannel_words`):
 *    - real words ("stop", "wait", "no, that's wrong"), at least `min_interrupt_words` of them →
 *      the turn is cancelled as before and the caller is heard;
 *    - a backchannel ("mhm", "yeah", "genau"), fewer words than `min_interrupt_words`, or a sound
 *      without words → the same reply resumes where it stopped (the words are held for the
 *      caller's next turn by turn-taking; a backchannel is not answered).
 *    Resumes come once the caller is quiet (VAD end of speech), or `settleMs` after a backchannel's
 *    transcript when nothing follows it; a sound without words resumes once the STT, asked to
 *    finalize at the end of speech, has no words (`noWordsMs` at most), or after `maxPauseMs` (8 s)
 *    of sound without any. A thinking assistant's reply that the caller talks into with words is
 *    dropped before it was heard: the caller's turn simply goes on.
 *
 * Without speech-to-text the words cannot be known: one step, as before —
 * - `min_interrupt_words` 0: the VAD's speech onset cancels the turn at once;
 * - `min_interrupt_words` N > 0: only when the caller's transcript (interim included) reaches N words.
 * `allow_interruptions` false: nothing the caller says pauses or cancels the assistant's turn.
 *
 * Cancelling the turn (TurnControl.cancel) aborts its LLM request and TTS stream; the output
 * stage clears the leg's playback on the `cancel` frame and reports what was heard.
 */
import type { TimerHandle } from '../telephony/clock.js';
import { wordCount, type Frame, type TurnId } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { Floor } from './settings.js';
import type { BackchannelDetector } from './turn/backchannel.js';

/** What the first step needs of the output (output.ts implements it). */
export interface PlaybackControl {
  pause(turn: TurnId): void;
  resume(turn: TurnId): void;
}

export interface TwoStepOptions {
  output: PlaybackControl;
  detector: BackchannelDetector;
  /** Asks the STT stream for its final transcript now (the caller stopped: are there words?). */
  finalize?: () => void;
  /** A backchannel's transcript with nothing after it for this long resumes, even before the VAD's end of speech. */
  settleMs?: number;
  /** After the caller's end of speech, how long to wait for words before resuming. */
  noWordsMs?: number;
  /** Sound without any words resumes after this long. */
  maxPauseMs?: number;
}

export interface InterruptionOptions {
  allowInterruptions: boolean;
  minInterruptWords: number;
  floor: Floor;
  /** Two steps (pause, then the words decide); none: one step on the onset or the word count. */
  twoStep?: TwoStepOptions;
}

/**
 * `maxPauseMs` is long: while the caller goes on speaking the words may simply not be there yet
 * (an STT without interim results, or whose interims lag), and resuming then talks over them.
 */
export const PAUSE_WAITS = { settleMs: 200, noWordsMs: 400, maxPauseMs: 8000 } as const;

interface Pause {
  turn: TurnId;
  at: number;
  speaking: boolean;
  timer: TimerHandle | null;
  /** When the current wait's timer fires (for the log only). */
  waiting: 'settle' | 'words' | 'max' | null;
}

export class InterruptionStage implements Stage {
  readonly name = 'interruption';
  /** Final transcripts of the caller's current utterance, and the interim after them. */
  private finals: string[] = [];
  private interim = '';
  private pause: Pause | null = null;
  /**
   * A turn resumed on a backchannel while the caller's utterance goes on ("yeah" … "yeah, but
   * Tuesday"): words that come later in that utterance still interrupt it.
   */
  private resumed: TurnId | null = null;
  private ctx: StageContext | null = null;

  constructor(private readonly options: InterruptionOptions) {}

  start(ctx: StageContext): void {
    this.ctx = ctx;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    push(frame);
    switch (frame.kind) {
      case 'speech-started':
        if (this.options.twoStep) this.onset(ctx, frame.at);
        else if (this.options.minInterruptWords <= 0) this.interrupt(ctx, frame.at);
        break;
      case 'speech-stopped':
        if (this.pause) {
          this.pause.speaking = false;
          this.decide(ctx, frame.at);
        }
        break;
      case 'transcript':
        if (frame.final) {
          if (frame.text.trim() !== '') this.finals.push(frame.text.trim());
          this.interim = '';
        } else this.interim = frame.text.trim();
        if (this.pause) this.decide(ctx, frame.at, true);
        else if (this.resumed !== null && this.resumed === this.options.floor.assistantTurn) this.afterResume(ctx, frame.at);
        else if (this.options.minInterruptWords > 0 && wordCount(this.said()) >= this.options.minInterruptWords) this.interrupt(ctx, frame.at);
        // The provider's end of the utterance: the next words are a new utterance.
        if (frame.speechFinal && !this.pause) this.finals = [];
        break;
      case 'cancel':
        if (this.pause?.turn === frame.turn) this.endPause();
        if (this.resumed === frame.turn) this.resumed = null;
        break;
      case 'hang-up':
        this.endPause();
        this.resumed = null;
        break;
      case 'utterance-end':
      case 'end-of-turn':
      case 'customer-said':
        this.resumed = null;
        if (!this.pause) {
          this.finals = [];
          this.interim = '';
        }
        break;
    }
  }

  private said(): string {
    return [...this.finals, this.interim].filter((t) => t !== '').join(' ');
  }

  /** Step 1: the assistant holds the floor and the caller makes a sound — its output pauses. */
  private onset(ctx: StageContext, at: number): void {
    const turn = this.options.floor.assistantTurn;
    if (turn === null || !this.options.allowInterruptions || ctx.turns.isCancelled(turn)) return;
    if (this.pause?.turn === turn) {
      // Speaking again within the same pause (a pause in "mhm … yes, but"): wait for the words again.
      this.pause.speaking = true;
      this.wait(ctx, 'max', this.waits().maxPauseMs);
      return;
    }
    this.finals = [];
    this.interim = '';
    this.resumed = null;
    this.pause = { turn, at, speaking: true, timer: null, waiting: null };
    ctx.log.debug({ turn, at }, 'the caller speaks over the assistant: output paused until the words decide');
    this.options.twoStep!.output.pause(turn);
    this.wait(ctx, 'max', this.waits().maxPauseMs);
  }

  /** Step 2: the words so far (and whether the caller still speaks) decide, or set the next wait. */
  private decide(ctx: StageContext, at: number, fromWords = false): void {
    const pause = this.pause!;
    const text = this.said();
    const kind = this.options.twoStep!.detector.classify(text);
    if (kind === 'words' && wordCount(text) >= Math.max(1, this.options.minInterruptWords)) {
      this.endPause();
      this.interrupt(ctx, at);
      return;
    }
    if (kind === 'no-words') {
      if (pause.speaking) return;
      // Quiet and no words yet: the transcript may lag the audio; ask for it and wait a little.
      if (!fromWords) {
        this.options.twoStep!.finalize?.();
        this.wait(ctx, 'words', this.waits().noWordsMs);
      }
      return;
    }
    // A backchannel, or fewer words than min_interrupt_words: the reply goes on.
    if (!pause.speaking) return this.resume(ctx);
    if (fromWords) this.wait(ctx, 'settle', this.waits().settleMs);
  }

  private wait(ctx: StageContext, what: NonNullable<Pause['waiting']>, ms: number): void {
    const pause = this.pause!;
    ctx.clock.clearTimer(pause.timer);
    pause.waiting = what;
    pause.timer = ctx.clock.setTimer(ms, () => {
      if (this.pause !== pause) return;
      pause.timer = null;
      const kind = this.options.twoStep!.detector.classify(this.said());
      // The settle wait only stands for a backchannel; words that came meanwhile decided already.
      if (what === 'settle' && kind !== 'backchannel') return;
      ctx.log.debug({ turn: pause.turn, waited: what }, 'no interruption: the paused output resumes');
      this.resume(ctx);
    });
  }

  private resume(_ctx: StageContext): void {
    const pause = this.pause;
    if (!pause) return;
    this.endPause();
    this.resumed = pause.turn;
    this.options.twoStep!.output.resume(pause.turn);
  }

  /** More of the utterance a backchannel began: real words end the turn after all. */
  private afterResume(ctx: StageContext, at: number): void {
    const text = this.said();
    if (this.options.twoStep!.detector.classify(text) === 'words' && wordCount(text) >= Math.max(1, this.options.minInterruptWords)) {
      this.resumed = null;
      this.interrupt(ctx, at);
    }
  }

  private endPause(): void {
    if (!this.pause) return;
    this.ctx?.clock.clearTimer(this.pause.timer);
    this.pause = null;
  }

  private waits(): Required<Pick<TwoStepOptions, 'settleMs' | 'noWordsMs' | 'maxPauseMs'>> {
    const t = this.options.twoStep!;
    return { settleMs: t.settleMs ?? PAUSE_WAITS.settleMs, noWordsMs: t.noWordsMs ?? PAUSE_WAITS.noWordsMs, maxPauseMs: t.maxPauseMs ?? PAUSE_WAITS.maxPauseMs };
  }

  private interrupt(ctx: StageContext, at: number): void {
    const turn = this.options.floor.assistantTurn;
    if (turn === null || !this.options.allowInterruptions) return;
    ctx.log.debug({ turn, at }, 'the caller interrupts the assistant');
    this.options.floor.assistantDone(turn);
    ctx.turns.cancel(turn, 'barge-in');
  }

  close(): void {
    this.endPause();
  }
}
