/**
 * Hold music for a caller who waits (a warm transfer's `hold_music`): a soft, generated loop.
 *
 * Generated, not recorded (as the ambient loops, src/voice/ambient.ts): no audio file to
 * ship or license, and every line rate gets its own loop without resampling. The piece is a slow
 * arpeggio over four chords (C – Am – F – G, two bars each), each note an electric-piano-like
 * tone (fundamental, a soft octave and fifth) with a quick attack and an exponential decay, under
 * a sustained low pad. Everything sits in 200–1,000 Hz, which a phone line carries well, and the
 * loop's length is a whole number of bars, so it repeats without a seam.
 *
 * Level: at volume 1 (hold_music_volume 100) the loop's RMS is −24 dBFS, a little under speech
 * on the line (about −20 dBFS); `hold_music_volume` scales it linearly.
 */

/** Beats per minute; one note per eighth. */
const BPM = 84;
/** Chords as MIDI note numbers (root position, an octave under middle C for the pad). */
const CHORDS: readonly (readonly number[])[] = [
  [60, 64, 67, 72], // C
  [57, 60, 64, 69], // Am
  [53, 57, 60, 65], // F
  [55, 59, 62, 67], // G
];
/** The order of chord tones in a bar of eight eighths. */
const PATTERN = [0, 1, 2, 3, 2, 1, 2, 1] as const;
const BARS_PER_CHORD = 2;
export const HOLD_MUSIC_FULL_VOLUME_DBFS = -24;

const cache = new Map<number, Int16Array>();

const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** The loop at `sampleRate` at full volume (shared: do not modify). */
export function holdMusicLoop(sampleRate: number): Int16Array {
  let loop = cache.get(sampleRate);
  if (!loop) {
    loop = render(sampleRate);
    cache.set(sampleRate, loop);
  }
  return loop;
}

function render(rate: number): Int16Array {
  const eighth = 60 / BPM / 2;
  const barSeconds = eighth * 8;
  const totalBars = CHORDS.length * BARS_PER_CHORD;
  const n = Math.round(totalBars * barSeconds * rate);
  const out = new Float64Array(n);
  const addTone = (freq: number, startSec: number, seconds: number, amplitude: number, decayPerSec: number) => {
    const start = Math.round(startSec * rate);
    const length = Math.round(seconds * rate);
    const attack = Math.round(0.008 * rate);
    for (let i = 0; i < length; i++) {
      const t = i / rate;
      const envelope = Math.min(1, i / attack) * Math.exp(-decayPerSec * t) * Math.min(1, (length - i) / attack);
      const w = 2 * Math.PI * freq * t;
      const sample = Math.sin(w) + 0.25 * Math.sin(2 * w) + 0.08 * Math.sin(3 * w);
      // Wrap around: a note ringing past the loop's end sounds at its start, so the seam is inaudible.
      out[(start + i) % n]! += amplitude * envelope * sample;
    }
  };
  for (let bar = 0; bar < totalBars; bar++) {
    const chord = CHORDS[Math.floor(bar / BARS_PER_CHORD)]!;
    const barStart = bar * barSeconds;
    if (bar % BARS_PER_CHORD === 0) {
      // The pad: the chord's root and fifth an octave down, held for the chord's two bars.
      for (const midi of [chord[0]! - 12, chord[2]! - 12]) addTone(hz(midi), barStart, barSeconds * BARS_PER_CHORD, 0.18, 0.35);
    }
    PATTERN.forEach((tone, step) => addTone(hz(chord[tone]! + 12 * (step === 3 ? 1 : 0)), barStart + step * eighth, eighth * 3, 0.5, 2.2));
  }
  const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / n) || 1;
  const gain = (32768 * 10 ** (HOLD_MUSIC_FULL_VOLUME_DBFS / 20)) / rms;
  return Int16Array.from(out, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

/**
 * Endless hold music at `volume` (0–1), handed out in pieces of any length: each call continues
 * where the last one stopped.
 */
export class HoldMusic {
  private position = 0;
  private readonly loop: Int16Array;

  constructor(
    sampleRate: number,
    private readonly volume: number,
  ) {
    this.loop = holdMusicLoop(sampleRate);
  }

  next(samples: number): Int16Array {
    const out = new Int16Array(samples);
    const { loop, volume } = this;
    for (let i = 0; i < samples; i++) {
      out[i] = Math.round(loop[this.position]! * volume);
      if (++this.position === loop.length) this.position = 0;
    }
    return out;
  }
}
