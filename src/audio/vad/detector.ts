/**
 * Speech start/stop from window probabilities, as Silero's own `VADIterator` and
 * `get_speech_timestamps` do: speech starts when a window reaches `threshold` (and stays at
 * or above `threshold − 0.15` for `minSpeechMs`), and stops after `minSilenceMs` of windows
 * below `threshold − 0.15`; reported times are widened by `speechPadMs` on both sides.
 *
 * For whole buffers and streams outside the call pipeline (tests, the protocol doubles,
 * fixtures, benchmarks); the live call uses the voice core's VAD stage, which reads its
 * thresholds from the assistant's settings, over the same `SileroVad` windows.
 */
import { Resampler } from '../resample.js';

export interface WindowModel {
  readonly sampleRate: number;
  readonly windowSamples: number;
  probability(window: Int16Array): number | Promise<number>;
}

export interface DetectorOptions {
  /** Probability at or above which a window is speech (default 0.5). */
  threshold?: number;
  /** Below this a window is silence (default threshold − 0.15). */
  negativeThreshold?: number;
  /** Silence that ends speech (default 300 ms). */
  minSilenceMs?: number;
  /** Speech shorter than this is not reported (default 100 ms). */
  minSpeechMs?: number;
  /** Added before each start and after each end (default 30 ms). */
  speechPadMs?: number;
}

export type VadEvent =
  | { type: 'speech-start'; atMs: number; probability: number }
  | { type: 'speech-end'; startMs: number; endMs: number };

export interface SpeechSegment {
  startMs: number;
  endMs: number;
}

export class VoiceActivityDetector {
  private readonly threshold: number;
  private readonly negative: number;
  private readonly minSilenceMs: number;
  private readonly minSpeechMs: number;
  private readonly padMs: number;
  private readonly windowMs: number;
  private pending = new Int16Array(0);
  /** Time of the next window's start, ms from the first sample pushed. */
  private clockMs = 0;
  private chain: Promise<void> = Promise.resolve();
  private candidateStart: number | null = null;
  private candidateRun = 0;
  private speechStart: number | null = null;
  private silenceStart: number | null = null;
  private failure: Error | null = null;

  constructor(private readonly model: WindowModel, private readonly onEvent: (event: VadEvent) => void, options: DetectorOptions = {}) {
    this.threshold = options.threshold ?? 0.5;
    this.negative = options.negativeThreshold ?? Math.max(0.01, this.threshold - 0.15);
    this.minSilenceMs = options.minSilenceMs ?? 300;
    this.minSpeechMs = options.minSpeechMs ?? 100;
    this.padMs = options.speechPadMs ?? 30;
    this.windowMs = (model.windowSamples / model.sampleRate) * 1000;
  }

  /** True between a start and its end. */
  get inSpeech(): boolean {
    return this.speechStart !== null;
  }

  /** Audio at the model's rate, any length; windows are scored in order. */
  push(samples: Int16Array): void {
    const joined = new Int16Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    const size = this.model.windowSamples;
    let at = 0;
    for (; at + size <= joined.length; at += size) {
      const window = joined.slice(at, at + size);
      const startMs = this.clockMs;
      this.clockMs += this.windowMs;
      const scored = this.model.probability(window);
      if (scored instanceof Promise) scored.catch(() => undefined); // handled in order below
      // A failed window stops scoring; end() reports the failure.
      this.chain = this.chain.then(async () => {
        if (this.failure === null) this.score(await scored, startMs);
      }).catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      });
    }
    this.pending = joined.slice(at);
  }

  /** Resolves once every pushed window is scored (rejects if one failed); closes an open segment at the end of the audio. */
  async end(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
    if (this.speechStart !== null) {
      this.onEvent({ type: 'speech-end', startMs: this.speechStart, endMs: this.clockMs });
      this.speechStart = null;
    }
  }

  private score(p: number, startMs: number): void {
    const endMs = startMs + this.windowMs;
    if (this.speechStart === null) {
      if (this.candidateStart === null) {
        if (p < this.threshold) return;
        this.candidateStart = startMs;
        this.candidateRun = 0;
      }
      if (p < this.negative) {
        this.candidateStart = null;
        return;
      }
      this.candidateRun += this.windowMs;
      if (this.candidateRun >= this.minSpeechMs) {
        this.speechStart = Math.max(0, this.candidateStart - this.padMs);
        this.candidateStart = null;
        this.silenceStart = null;
        this.onEvent({ type: 'speech-start', atMs: this.speechStart, probability: p });
      }
      return;
    }
    if (p >= this.negative) {
      this.silenceStart = null;
      return;
    }
    this.silenceStart ??= startMs;
    if (endMs - this.silenceStart >= this.minSilenceMs) {
      this.onEvent({ type: 'speech-end', startMs: this.speechStart, endMs: Math.min(this.clockMs, this.silenceStart + this.padMs) });
      this.speechStart = null;
      this.silenceStart = null;
    }
  }
}

/** The speech segments of a whole buffer (any rate; resampled to the model's). */
export async function detectSpeech(model: WindowModel, samples: Int16Array, sampleRate: number, options: DetectorOptions = {}): Promise<SpeechSegment[]> {
  const segments: SpeechSegment[] = [];
  const detector = new VoiceActivityDetector(model, (e) => e.type === 'speech-end' && segments.push({ startMs: e.startMs, endMs: e.endMs }), options);
  if (sampleRate === model.sampleRate) detector.push(samples);
  else {
    const resampler = new Resampler(sampleRate, model.sampleRate);
    detector.push(resampler.process(samples));
    detector.push(resampler.flush());
  }
  await detector.end();
  return segments;
}
