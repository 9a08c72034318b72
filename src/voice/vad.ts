/**
 * Voice activity detection as a stage: caller audio in, `speech-started` / `speech-stopped`
 * frames out (audio passes on unchanged). The model that scores windows is behind
 * `VadModel`: Silero VAD v5 (src/audio/vad, when present) in production; `EnergyVad` below is
 * only the fallback for a deployment whose model file is missing — it hears any loud noise as
 * speech.
 *
 * Hysteresis as in Silero's own iterator: speech starts after `startMs` of windows at or above
 * the threshold, and stops after `stopMs` of windows below `threshold - 0.15`. The threshold is
 * read per window (`threshold()`, `startMs()`), so the composition can switch to the barge-in rule
 * of interrupt_sensitivity (sensitivity.ts) while the assistant speaks.
 */
import { dbfs } from '../audio/pcm.js';
import { Resampler } from '../audio/resample.js';
import type { TimerHandle } from '../telephony/clock.js';
import type { Frame } from './frames.js';
import type { Push, Stage, StageContext } from './pipeline.js';

/** No caller audio at all for this long ends speech (a line that stopped sending, not a quiet one). */
const LINE_QUIET_MS = 1_000;

export interface VadModel {
  /** The rate the model scores (audio is resampled to it). */
  readonly sampleRate: number;
  /** Samples per scored window at `sampleRate`. */
  readonly windowSamples: number;
  /** Speech probability 0–1 of the next window, in order (state carries across windows). */
  probability(window: Int16Array): number | Promise<number>;
  close?(): void;
}

/** Loudness as "probability": −50 dBFS and below 0, −30 dBFS and above 1. Fallback only. */
export class EnergyVad implements VadModel {
  readonly windowSamples: number;
  constructor(readonly sampleRate: number) {
    this.windowSamples = Math.round(sampleRate / 50);
  }
  probability(window: Int16Array): number {
    const level = dbfs(window);
    return Math.min(1, Math.max(0, (level + 50) / 20));
  }
}

export interface VadStageOptions {
  model: VadModel;
  /** Rate of the caller audio (the leg's). */
  inputRate: number;
  /** Probability at or above which a window counts as speech. */
  threshold: () => number;
  /** Speech this long starts an utterance (read per window, like the threshold). */
  startMs?: () => number;
  /** Silence this long ends it. */
  stopMs?: number;
}

export class VadStage implements Stage {
  readonly name = 'vad';
  private readonly resampler: Resampler | null;
  /** The window being filled (a fresh one per window: the model may keep it until it scores it). */
  private window: Int16Array;
  private filled = 0;
  private speaking = false;
  private speechRun = 0;
  private silenceRun = 0;
  private silenceStartedAt = 0;
  /** Windows handed to an asynchronous model, and the next one whose score may be applied. */
  private sent = 0;
  private applied = 0;
  /** Scores that came back before an earlier window's (applied in window order). */
  private readonly early = new Map<number, { probability: number | null; at: number }>();
  private closed = false;
  /** When the last caller audio arrived, and the timer that ends speech when no more comes. */
  private lastAudioAt = 0;
  private quietTimer: TimerHandle | null = null;
  private ctx: StageContext | null = null;
  private push: Push | null = null;
  private readonly windowMs: number;
  private readonly stopMs: number;

  constructor(private readonly options: VadStageOptions) {
    const { model, inputRate } = options;
    this.resampler = inputRate === model.sampleRate ? null : new Resampler(inputRate, model.sampleRate);
    this.windowMs = (model.windowSamples / model.sampleRate) * 1000;
    this.stopMs = options.stopMs ?? 300;
    this.window = new Int16Array(model.windowSamples);
  }

  /** True between `speech-started` and `speech-stopped`. */
  get inSpeech(): boolean {
    return this.speaking;
  }

  start(ctx: StageContext, push: Push): void {
    this.ctx = ctx;
    this.push = push;
  }

  // Hot path: every 20 ms frame of every call. No joined copies of the input and one promise
  // reaction per window (not a chain of three): measured in bench/voice.ts (c) as CPU per call.
  process(frame: Frame, push: Push, ctx: StageContext): void {
    push(frame);
    if (frame.kind !== 'audio-in') return;
    this.lastAudioAt = ctx.clock.now();
    const samples = this.resampler ? this.resampler.process(frame.samples) : frame.samples;
    const size = this.window.length;
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(size - this.filled, samples.length - offset);
      this.window.set(samples.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled < size) break;
      const window = this.window;
      this.window = new Int16Array(size);
      this.filled = 0;
      this.scoreWindow(window, frame.at, push, ctx);
    }
  }

  private scoreWindow(window: Int16Array, at: number, push: Push, ctx: StageContext): void {
    const result = this.options.model.probability(window);
    if (typeof result === 'number' && this.sent === this.applied) {
      this.score(result, at, push, ctx);
      return;
    }
    const seq = this.sent++;
    if (typeof result === 'number') {
      this.scored(seq, result, at, push, ctx);
      return;
    }
    result.then(
      (p) => this.scored(seq, p, at, push, ctx),
      (err: unknown) => {
        ctx.log.warn({ err }, 'voice activity detection failed on a window');
        this.scored(seq, null, at, push, ctx);
      },
    );
  }

  /** Applies window `seq`'s score once every earlier window's score is applied (a failed window counts as applied). */
  private scored(seq: number, probability: number | null, at: number, push: Push, ctx: StageContext): void {
    if (this.closed) return;
    if (seq !== this.applied) {
      this.early.set(seq, { probability, at });
      return;
    }
    if (probability !== null) this.score(probability, at, push, ctx);
    this.applied++;
    for (let next = this.early.get(this.applied); next; next = this.early.get(this.applied)) {
      this.early.delete(this.applied);
      if (next.probability !== null) this.score(next.probability, next.at, push, ctx);
      this.applied++;
    }
  }

  private score(probability: number, at: number, push: Push, ctx: StageContext): void {
    const threshold = this.options.threshold();
    if (probability >= threshold) {
      this.silenceRun = 0;
      if (!this.speaking) {
        this.speechRun += this.windowMs;
        if (this.speechRun >= (this.options.startMs?.() ?? 90)) {
          this.speaking = true;
          this.speechRun = 0;
          push({ kind: 'speech-started', turn: ctx.turns.current, at, probability });
          this.watchForQuiet();
        }
      }
      return;
    }
    if (!this.speaking) {
      this.speechRun = 0;
      return;
    }
    if (probability >= threshold - 0.15) return;
    if (this.silenceRun === 0) this.silenceStartedAt = at;
    this.silenceRun += this.windowMs;
    if (this.silenceRun >= this.stopMs) {
      this.speaking = false;
      this.silenceRun = 0;
      push({ kind: 'speech-stopped', turn: ctx.turns.current, at: this.silenceStartedAt });
    }
  }

  /**
   * A line whose audio stops (the sandbox's customer after its last words, a browser that sends
   * nothing while muted) is silent: without windows the hysteresis above never ends the speech,
   * and the silence rule would never start. After LINE_QUIET_MS without any audio the speech
   * ends where the audio did. One timer per LINE_QUIET_MS of speech, not one per frame; it looks
   * once more a loop turn later (a 0 ms timer runs after pending I/O), so frames held up behind a
   * busy event loop are not taken for a quiet line.
   */
  private watchForQuiet(afterMs = LINE_QUIET_MS, confirming = false): void {
    const ctx = this.ctx;
    if (!ctx || this.closed) return;
    ctx.clock.clearTimer(this.quietTimer);
    this.quietTimer = ctx.clock.setTimer(afterMs, () => {
      this.quietTimer = null;
      if (!this.speaking || this.closed) return;
      const quietFor = ctx.clock.now() - this.lastAudioAt;
      if (quietFor < LINE_QUIET_MS) return this.watchForQuiet(LINE_QUIET_MS - quietFor);
      if (!confirming) return this.watchForQuiet(0, true);
      this.speaking = false;
      this.silenceRun = 0;
      this.push?.({ kind: 'speech-stopped', turn: ctx.turns.current, at: this.lastAudioAt });
    });
  }

  close(): void {
    this.closed = true;
    this.ctx?.clock.clearTimer(this.quietTimer);
    this.options.model.close?.();
  }
}
