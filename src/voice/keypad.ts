/**
 * The caller's keypad on an audio call. Key presses (`dtmf` frames from the leg) are a turn of
 * the caller's own, like words:
 *
 * - keys pressed in a row are one turn: it ends on `#`, or `gapMs` after the last key;
 * - the turn's text is `[keypad: 123#]` — what the LLM reads as the caller's message and what
 *   the transcript shows — so the model can answer "press 1 for …" menus and typed numbers;
 * - a key pressed while the assistant speaks cuts it off (a key press is deliberate, unlike a
 *   cough), even when spoken interruptions are off;
 * - while something else listens for keys (`keysTaken`: a collect-keypad tool waiting for
 *   digits), the keys are its alone and make no turn;
 * - keys pressed while the caller is in the middle of an utterance wait for its words: keys and
 *   words are one turn (caller-words.ts), so neither is lost; words the caller said over the
 *   assistant and that wait for a turn open the keys' turn.
 *
 * Every `dtmf` frame still flows on unchanged, so later stages see each key as it comes.
 * Rules recorded in docs/decisions.md ("Caller key presses on audio calls").
 *
 * In `mode: multimodal` the stage stands before the speech-to-speech stage with `opensTurn`
 * false: the keys' `end-of-turn` is a message the model answers, and its answer opens the reply
 * turn as it starts (speech-to-speech.ts), as it does for the caller's words.
 */
import type { Clock, TimerHandle } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';
import type { Floor } from './settings.js';
import type { CallerWords } from './caller-words.js';

/** Silence after the last key before the keys are the caller's turn. */
export const KEYPAD_GAP_MS = 2000;
/** A key that ends the keys at once (as phone menus use it). */
const END_KEY = '#';

export interface KeypadOptions {
  floor: Floor;
  clock: Clock;
  gapMs?: number;
  /** True while another listener (collect-keypad) takes the caller's keys. */
  keysTaken?: () => boolean;
  /**
   * The keys' turn opens the assistant's reply (`turn-started`, the floor) at once: the LLM
   * stage answers it. Default true; false in multimodal mode, where the model's answer opens it.
   */
  opensTurn?: boolean;
  /** What the caller said that no turn has taken yet (shared with turn-taking); none in multimodal mode. */
  words?: CallerWords;
}

/** The caller message a run of keys becomes. */
export function keypadText(digits: string): string {
  return `[keypad: ${digits}]`;
}

export class KeypadStage implements Stage {
  readonly name = 'keypad';
  private digits = '';
  private lastAt = 0;
  private timer: TimerHandle | null = null;
  private push: Push = () => undefined;
  private ctx: StageContext | null = null;

  constructor(private readonly options: KeypadOptions) {}

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  process(frame: Frame, push: Push, ctx: StageContext): void {
    push(frame);
    if (frame.kind === 'hang-up') {
      this.clearTimer();
      this.digits = '';
      return;
    }
    if (frame.kind !== 'dtmf') return;
    if (this.options.keysTaken?.()) return;
    const floor = this.options.floor;
    const speaking = floor.assistantTurn;
    if (speaking !== null) {
      floor.assistantDone(speaking);
      ctx.turns.cancel(speaking, 'barge-in');
    }
    this.lastAt = frame.at;
    this.digits += frame.digit;
    this.clearTimer();
    if (frame.digit === END_KEY) this.endTurn();
    else this.timer = this.options.clock.setTimer(this.options.gapMs ?? KEYPAD_GAP_MS, () => this.endTurn());
  }

  private endTurn(): void {
    this.clearTimer();
    const digits = this.digits;
    this.digits = '';
    const ctx = this.ctx;
    if (!ctx || digits === '') return;
    const words = this.options.words;
    if (words?.utteranceOpen) {
      // The caller is still speaking (or their words are still to come): one turn with them.
      words.holdAfterUtterance(keypadText(digits));
      return;
    }
    const text = words ? words.take(keypadText(digits)) : keypadText(digits);
    const at = this.options.clock.now();
    this.push({ kind: 'end-of-turn', turn: ctx.turns.current, text, endOfSpeechAt: this.lastAt, at });
    if (this.options.opensTurn === false) return;
    const turn = ctx.turns.begin();
    this.options.floor.assistantTakes(turn);
    this.push({ kind: 'turn-started', turn, turnKind: 'reply', callerText: text, at });
  }

  private clearTimer(): void {
    this.options.clock.clearTimer(this.timer);
    this.timer = null;
  }

  close(): void {
    this.clearTimer();
  }
}
