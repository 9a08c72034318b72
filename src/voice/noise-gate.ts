/**
 * `noise_cancellation`: cleans the caller's audio before voice activity detection and
 * speech-to-text, so steady line noise (hum, fans, a busy street's roar) neither counts as speech
 * nor interrupts the assistant. Two steps, both cheap enough for every frame of hundreds of calls:
 *
 * 1. A high-pass filter (2nd-order Butterworth at 100 Hz): mains hum and rumble sit below the
 *    voice's fundamental, so nothing of the speech is lost.
 * 2. A noise gate against the tracked noise floor: the floor is the quietest 20 ms frame of the
 *    last second (minimum statistics: speech always has gaps, noise does not); a frame less than
 *    8 dB above it is attenuated by 20 dB, with a 100 ms hold so word endings are not clipped and
 *    a gain ramp within each frame so the gate does not click.
 * It is not a spectral denoiser (no model, no FFT): noise under speech stays. The gate's job is
 * the turn-taking: steady noise alone must not look like a caller talking.
 */
import { dbfs } from '../audio/pcm.js';
import type { Frame } from './frames.js';
import type { Push, Stage } from './pipeline.js';

const CUTOFF_HZ = 100;
const OPEN_ABOVE_FLOOR_DB = 8;
const CLOSED_GAIN = 0.1; // −20 dB
const HOLD_MS = 100;
const FLOOR_WINDOW_MS = 1_000;

/** A biquad high-pass filter with its state (RBJ cookbook, Q = 1/√2). */
export class HighPass {
  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;
  private readonly a1: number;
  private readonly a2: number;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(sampleRate: number, cutoffHz = CUTOFF_HZ) {
    const w0 = (2 * Math.PI * cutoffHz) / sampleRate;
    const alpha = Math.sin(w0) / (2 * Math.SQRT1_2);
    const cos = Math.cos(w0);
    const a0 = 1 + alpha;
    this.b0 = (1 + cos) / 2 / a0;
    this.b1 = -(1 + cos) / a0;
    this.b2 = (1 + cos) / 2 / a0;
    this.a1 = (-2 * cos) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  process(input: Int16Array): Float64Array {
    const out = new Float64Array(input.length);
    for (let i = 0; i < input.length; i++) {
      const x = input[i]!;
      const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
      this.x2 = this.x1;
      this.x1 = x;
      this.y2 = this.y1;
      this.y1 = y;
      out[i] = y;
    }
    return out;
  }
}

/** The high-pass filter and the gate for one call's caller audio. */
export class NoiseGate {
  private readonly filter: HighPass;
  private readonly levels: number[] = [];
  private holdLeftMs = 0;
  private gain = 1;

  constructor(private readonly sampleRate: number) {
    this.filter = new HighPass(sampleRate);
  }

  /**
   * The noise floor now (dBFS), or null before any audio. From the first frame on: a call that
   * opens with speech has its floor found in the first gap between syllables (the onset may lose
   * a frame or two), while one that opens with noise is gated at once.
   */
  get floorDb(): number | null {
    return this.levels.length === 0 ? null : Math.min(...this.levels);
  }

  process(samples: Int16Array): Int16Array {
    const filtered = this.filter.process(samples);
    const out = new Int16Array(samples.length);
    for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(filtered[i]!)));
    const frameMs = (samples.length / this.sampleRate) * 1000;
    const level = dbfs(out);
    this.levels.push(level);
    if (this.levels.length > Math.max(1, Math.round(FLOOR_WINDOW_MS / Math.max(frameMs, 1)))) this.levels.shift();
    const floor = this.floorDb;
    let target = 1;
    if (floor !== null) {
      if (level >= floor + OPEN_ABOVE_FLOOR_DB) this.holdLeftMs = HOLD_MS;
      else this.holdLeftMs = Math.max(0, this.holdLeftMs - frameMs);
      target = this.holdLeftMs > 0 ? 1 : CLOSED_GAIN;
    }
    const from = this.gain;
    if (from !== 1 || target !== 1) {
      for (let i = 0; i < out.length; i++) {
        const g = from + ((target - from) * (i + 1)) / out.length;
        out[i] = Math.round(out[i]! * g);
      }
    }
    this.gain = target;
    return out;
  }
}

/** Put before the VAD stage when the assistant has `noise_cancellation` on. */
export class NoiseGateStage implements Stage {
  readonly name = 'noise-gate';
  private readonly gate: NoiseGate;

  constructor(sampleRate: number) {
    this.gate = new NoiseGate(sampleRate);
  }

  process(frame: Frame, push: Push): void {
    if (frame.kind === 'audio-in') push({ ...frame, samples: this.gate.process(frame.samples) });
    else push(frame);
  }
}
