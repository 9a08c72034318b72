import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fft400, melFilters, N_FRAMES, N_MELS, whisperFeatures } from '../../../src/voice/turn/whisper-features.js';

/** 1.7 s at 16 kHz: two tones and MINSTD noise, the signal the numpy reference below was computed on. */
function testSignal(): Float32Array {
  const L = 27_200;
  const x = new Float32Array(L);
  let s = 1;
  for (let n = 0; n < L; n++) {
    s = (s * 48_271) % 2_147_483_647;
    const noise = (s / 2_147_483_647 - 0.5) * 0.05;
    x[n] = 0.3 * Math.sin((2 * Math.PI * 440 * n) / 16_000) + 0.1 * Math.sin((2 * Math.PI * 3000 * n) / 16_000 + 0.5) * (n / L) + noise;
  }
  return x;
}

/**
 * [mel, frame, value] from an independent numpy implementation of transformers'
 * WhisperFeatureExtractor steps (np.fft.rfft, sliding_window_view, the Slaney filterbank written
 * from transformers' formulas; numpy 2.4, float64), on testSignal(). Frames < 630 are the zero
 * padding before the 1.7 s of audio.
 */
const NUMPY: [number, number, number][] = [
  [0, 0, -0.1698364530807286],
  [3, 650, 0.5394769719507915],
  [10, 700, 1.7375105155794848],
  [20, 720, 0.8214893347013564],
  [40, 790, 0.7000825252608882],
  [60, 799, 0.6975139508711914],
  [79, 760, 0.6728252126888061],
  [25, 640, 0.43358580116532397],
  [50, 631, 0.711133178733629],
  [70, 700, 0.7018434295921419],
];

describe('Whisper log-mel features (Smart Turn input)', () => {
  it('match an independent numpy computation to 1e-4', () => {
    const features = whisperFeatures(testSignal());
    expect(features).toHaveLength(N_MELS * N_FRAMES);
    for (const [mel, frame, value] of NUMPY) expect(features[mel * N_FRAMES + frame], `mel ${mel} frame ${frame}`).toBeCloseTo(value, 4);
    expect(Math.max(...features)).toBeCloseTo(1.8301635469192714, 4);
    expect(features.reduce((a, b) => a + b, 0) / features.length).toBeCloseTo(0.0282108989435516, 4);
  });

  it('the mel filterbank is the Slaney one: bins 5–6 for filter 5, with numpy’s weights', () => {
    const row = melFilters()[5];
    const nonzero = [...row.keys()].filter((i) => row[i] > 0);
    expect(nonzero).toEqual([5, 6]);
    expect(row[5]).toBeCloseTo(0.00995410944049036, 12);
    expect(row[6]).toBeCloseTo(0.014908484543685726, 12);
  });

  it('the FFT equals a naive DFT on any input', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 800, maxLength: 800 }), (values) => {
        const re = Float64Array.from(values.slice(0, 400));
        const im = Float64Array.from(values.slice(400));
        const outRe = new Float64Array(400);
        const outIm = new Float64Array(400);
        fft400(re, im, outRe, outIm);
        for (const k of [0, 1, 7, 100, 199, 200, 333, 399]) {
          let sRe = 0;
          let sIm = 0;
          for (let n = 0; n < 400; n++) {
            const a = (-2 * Math.PI * k * n) / 400;
            sRe += re[n] * Math.cos(a) - im[n] * Math.sin(a);
            sIm += re[n] * Math.sin(a) + im[n] * Math.cos(a);
          }
          expect(outRe[k]).toBeCloseTo(sRe, 8);
          expect(outIm[k]).toBeCloseTo(sIm, 8);
        }
      }),
      { numRuns: 20 },
    );
  });

  it('silence gives the floor everywhere: log10(1e-10) → (−10 + 4) / 4 = −1.5', () => {
    const features = whisperFeatures(new Float32Array(16_000));
    expect(new Set(features)).toEqual(new Set([-1.5]));
  });

  it('only the last 8 s count, padded at the front; the range is 8 log10 units under the peak', () => {
    const long = new Float32Array(12 * 16_000);
    const signal = testSignal();
    long.set(signal, long.length - signal.length);
    const a = whisperFeatures(long);
    const b = whisperFeatures(signal);
    for (let i = 0; i < a.length; i += 997) expect(a[i]).toBeCloseTo(b[i], 5);
    const max = Math.max(...a);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(max - 2 - 1e-6); // 8 / 4 after scaling
    // Loudness does not matter (the waveform is normalised first).
    const louder = whisperFeatures(signal.map((v) => v * 3));
    for (let i = 0; i < a.length; i += 997) expect(louder[i]).toBeCloseTo(b[i], 4);
  });
});
