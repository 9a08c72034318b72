/**
 * The caller's audio of the current turn, as Smart Turn wants it (Pipecat's Smart Turn v3 analyzer: the last 8 s, zero-padded at the front):
 * 16 kHz mono floats, from 500 ms before the turn's first speech to now, at most the last 8 s,
 * earlier turns left out. Fed with the call's audio at the leg's rate (8 kHz phone audio is
 * upsampled here); `speechStarted()` at the VAD's starts, `endTurn()` when the turn is over.
 * Memory is bounded: a ring of 8.5 s per call.
 */
import { int16ToFloat32 } from '../../audio/pcm.js';
import { Resampler } from '../../audio/resample.js';
import { N_SAMPLES, SAMPLE_RATE } from './whisper-features.js';

const PRE_SPEECH_MS = 500;

export class TurnAudio {
  private readonly resampler: Resampler;
  private readonly ring = new Float32Array(N_SAMPLES + SAMPLE_RATE / 2);
  /** Samples written in all (the ring holds the last ring.length of them). */
  private written = 0;
  /** Where the current turn's audio begins (in `written` units), or null with no turn open. */
  private turnStart: number | null = null;

  constructor(inputRate: number) {
    this.resampler = new Resampler(inputRate, SAMPLE_RATE);
  }

  push(samples: Int16Array): void {
    const audio = int16ToFloat32(this.resampler.process(samples));
    for (let i = 0; i < audio.length; i++) this.ring[(this.written + i) % this.ring.length] = audio[i];
    this.written += audio.length;
  }

  /** The VAD heard speech: a turn that is not open yet begins 500 ms before it. */
  speechStarted(): void {
    if (this.turnStart === null) this.turnStart = Math.max(0, this.written - (PRE_SPEECH_MS * SAMPLE_RATE) / 1000);
  }

  /** The turn is over: the next speech starts a new one. */
  endTurn(): void {
    this.turnStart = null;
  }

  /** The turn's audio so far (at most the last 8 s); empty with no turn open. */
  segment(): Float32Array {
    if (this.turnStart === null) return new Float32Array(0);
    const from = Math.max(this.turnStart, this.written - N_SAMPLES);
    const out = new Float32Array(this.written - from);
    for (let i = 0; i < out.length; i++) out[i] = this.ring[(from + i) % this.ring.length];
    return out;
  }
}
