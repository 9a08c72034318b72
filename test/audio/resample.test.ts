import { describe, expect, it } from 'vitest';
import { Resampler, resample } from '../../src/audio/resample.js';

const RATES = [8000, 16000, 22050, 24000, 48000];

function tone(frequency: number, rate: number, seconds = 0.5, amplitude = 10000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate)),
  );
}

/** Level of the middle 80 % (away from the filter's edge effects) in dB relative to the input tone. */
function gainDb(out: Int16Array, amplitude = 10000): number {
  const from = Math.floor(out.length * 0.1);
  const to = Math.floor(out.length * 0.9);
  let sum = 0;
  for (let i = from; i < to; i++) sum += out[i] * out[i];
  const level = Math.sqrt(sum / (to - from));
  return 20 * Math.log10(level / (amplitude / Math.SQRT2));
}

/** A deterministic noise-like test signal (speech-like broadband content). */
function noise(length: number): Int16Array {
  let seed = 12345;
  return Int16Array.from({ length }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed % 20000) - 10000;
  });
}

const pairs = RATES.flatMap((from) => RATES.filter((to) => to !== from).map((to) => [from, to] as const));

describe('Resampler', () => {
  it.each(pairs)('%i → %i Hz: passes tones below the new Nyquist within 1 dB, attenuates those above by ≥ 40 dB', (from, to) => {
    const nyquist = Math.min(from, to) / 2;
    for (const f of [300, 1000, 0.75 * nyquist]) {
      const out = resample(tone(f, from), from, to);
      expect(Math.abs(gainDb(out)), `${f} Hz`).toBeLessThan(1);
    }
    if (to < from) {
      // Above the output's Nyquist frequency but still representable at the input rate.
      const tones = [1.02, 1.1, 1.25, 1.5, 1.9].map((k) => k * nyquist).filter((f) => f < 0.95 * (from / 2));
      expect(tones.length).toBeGreaterThan(0);
      for (const f of tones) {
        const out = resample(tone(f, from), from, to);
        expect(gainDb(out), `${f} Hz`).toBeLessThan(-40);
      }
    }
  });

  it.each(pairs)('%i → %i Hz: 20 ms chunks give exactly the whole-buffer output', (from, to) => {
    const input = noise(Math.round(from * 0.73)); // not a whole number of chunks
    const whole = resample(input, from, to);
    const r = new Resampler(from, to);
    const parts: number[] = [];
    const chunk = from / 50;
    for (let at = 0; at < input.length; at += chunk) parts.push(...r.process(input.subarray(at, at + chunk)));
    parts.push(...r.flush());
    expect(parts.length).toBe(whole.length);
    expect(parts).toEqual(Array.from(whole));
    expect(whole.length).toBe(Math.ceil((input.length * to) / from));
  });

  it('keeps a sine continuous across chunk edges (no clicks)', () => {
    const input = tone(440, 22050, 1);
    const r = new Resampler(22050, 8000);
    const out: number[] = [];
    for (let at = 0; at < input.length; at += 441) out.push(...r.process(input.subarray(at, at + 441)));
    // The largest step between neighbouring samples of a 440 Hz sine at 8 kHz is 2π·440/8000·A ≈ 3456.
    let largest = 0;
    for (let i = 200; i < out.length - 200; i++) largest = Math.max(largest, Math.abs(out[i] - out[i - 1]));
    expect(largest).toBeLessThan(3600);
  });

  it('is aligned in time: an impulse lands where it was', () => {
    const input = new Int16Array(1600);
    input[800] = 20000; // 50 ms at 16 kHz
    const out = resample(input, 16000, 8000);
    let peak = 0;
    for (let i = 1; i < out.length; i++) if (Math.abs(out[i]) > Math.abs(out[peak])) peak = i;
    expect(peak).toBe(400);
  });

  it('passes audio through unchanged at equal rates and restarts after a flush', () => {
    const input = noise(320);
    expect(Array.from(new Resampler(8000, 8000).process(input))).toEqual(Array.from(input));
    const r = new Resampler(8000, 16000);
    const first = [...r.process(input), ...r.flush()];
    const second = [...r.process(input), ...r.flush()];
    expect(second).toEqual(first);
  });

  it('refuses nonsense rates', () => {
    expect(() => new Resampler(0, 8000)).toThrow(RangeError);
    expect(() => new Resampler(8000.5, 16000)).toThrow(RangeError);
  });
});
