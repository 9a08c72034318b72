import { alaw as refAlaw, mulaw as refMulaw } from 'alawmulaw';
import { describe, expect, it } from 'vitest';
import { alaw, mulaw } from '../../src/audio/g711.js';

const everySample = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const everyCode = Uint8Array.from({ length: 256 }, (_, i) => i);

// alawmulaw's encodeSample returns a negative number for some inputs (it is only right
// after `& 0xff`), so the reference side is always masked (VOICE.md B4).
describe.each([
  ['μ-law', mulaw, refMulaw],
  ['A-law', alaw, refAlaw],
] as const)('%s', (_name, codec, ref) => {
  it('encodes all 65,536 samples bit-identically to alawmulaw', () => {
    const ours = codec.encode(everySample);
    for (let i = 0; i < everySample.length; i++) {
      if (ours[i] !== (ref.encodeSample(everySample[i]) & 0xff)) {
        expect.fail(`sample ${everySample[i]}: ours ${ours[i]}, alawmulaw ${ref.encodeSample(everySample[i]) & 0xff}`);
      }
    }
    expect(Array.from(ours)).toEqual(Array.from(ref.encode(everySample)));
  });

  it('decodes all 256 codes bit-identically to alawmulaw', () => {
    const ours = codec.decode(everyCode);
    // Through an Int16Array, as stored: the reference returns -0 for one μ-law code.
    expect(Array.from(ours)).toEqual(Array.from(Int16Array.from(everyCode, (c) => ref.decodeSample(c))));
    expect(Array.from(ours)).toEqual(Array.from(ref.decode(everyCode)));
  });

  it('round-trips every code and keeps the error of a sample within one quantisation step', () => {
    for (const code of everyCode) {
      // A-law has one code per value; μ-law has two zeros (0x7f and 0xff decode to 0).
      const back = codec.encodeSample(codec.decodeSample(code));
      expect(codec.decodeSample(back)).toBe(codec.decodeSample(code));
    }
    const decoded = codec.decode(codec.encode(everySample));
    for (let i = 0; i < everySample.length; i += 97) {
      const s = everySample[i];
      const error = Math.abs(decoded[i] - s);
      // Step size of the segment a sample falls in: 2^(exponent+3) at most 1024 (μ-law) / 1024 (A-law).
      expect(error).toBeLessThanOrEqual(Math.max(16, Math.abs(s) / 16) + 1);
    }
  });

  it('single-sample functions agree with the buffer ones', () => {
    for (let i = 0; i < everySample.length; i += 31) {
      expect(codec.encodeSample(everySample[i])).toBe(codec.encode(everySample.subarray(i, i + 1))[0]);
    }
  });
});
