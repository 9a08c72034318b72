import { describe, expect, it } from 'vitest';
import {
  applyGain,
  bytesToInt16,
  concat,
  dbfs,
  dbToGain,
  float32ToInt16,
  int16ToBytes,
  int16ToFloat32,
  mix,
  rms,
  silence,
} from '../../src/audio/pcm.js';

describe('PCM helpers', () => {
  it('converts Int16 ⇄ Float32 losslessly and saturates out-of-range floats', () => {
    const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const f = int16ToFloat32(all);
    expect(f[0]).toBe(-1);
    expect(Math.max(...f)).toBeLessThan(1);
    expect(Array.from(float32ToInt16(f))).toEqual(Array.from(all));
    expect(Array.from(float32ToInt16(Float32Array.of(1.5, -1.5, 1, 0.5)))).toEqual([32767, -32768, 32767, 16384]);
  });

  it('reads and writes little-endian bytes at any offset', () => {
    const samples = Int16Array.of(0, 1, -1, 32767, -32768, 0x1234);
    const bytes = int16ToBytes(samples);
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0, 0, 1, 0]);
    expect(bytes.readInt16LE(10)).toBe(0x1234);
    const odd = new Uint8Array(bytes.length + 2);
    odd.set(bytes, 1); // an odd byte offset, plus a trailing half sample
    expect(Array.from(bytesToInt16(odd.subarray(1, bytes.length + 1)))).toEqual(Array.from(samples));
    expect(Array.from(bytesToInt16(odd.subarray(1)))).toEqual(Array.from(samples)); // odd last byte ignored
  });

  it('measures RMS and dBFS', () => {
    expect(rms(new Int16Array(0))).toBe(0);
    expect(dbfs(new Int16Array(10))).toBe(-Infinity);
    const square = Int16Array.from({ length: 100 }, (_, i) => (i % 2 ? 16384 : -16384));
    expect(rms(square)).toBe(16384);
    expect(dbfs(square)).toBeCloseTo(-6.02, 2);
    const sine = Int16Array.from({ length: 8000 }, (_, i) => Math.round(32767 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
    expect(dbfs(sine)).toBeCloseTo(-3.01, 1);
  });

  it('applies gain with saturation', () => {
    expect(Array.from(applyGain(Int16Array.of(100, -100, 20000, -20000), 2))).toEqual([200, -200, 32767, -32768]);
    expect(dbToGain(-6.0206)).toBeCloseTo(0.5, 4);
    expect(dbfs(applyGain(Int16Array.of(1000, -1000), dbToGain(-20)))).toBeCloseTo(dbfs(Int16Array.of(1000, -1000)) - 20, 1);
  });

  it('mixes tracks of different lengths at their gains, saturating', () => {
    const out = mix([Int16Array.of(1000, 1000, 1000), Int16Array.of(500)], [1, 0.5]);
    expect(Array.from(out)).toEqual([1250, 1000, 1000]);
    expect(Array.from(mix([Int16Array.of(30000), Int16Array.of(30000)]))).toEqual([32767]);
    expect(mix([]).length).toBe(0);
  });

  it('concatenates and makes silence', () => {
    expect(Array.from(concat([Int16Array.of(1, 2), new Int16Array(0), Int16Array.of(3)]))).toEqual([1, 2, 3]);
    expect(silence(20, 8000).length).toBe(160);
    expect(silence(20, 22050).length).toBe(441);
  });
});
