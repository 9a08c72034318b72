/**
 * Whisper log-mel features for Smart Turn v3: what transformers' `WhisperFeatureExtractor
 * (chunk_length=8, do_normalize=True)` computes, step by step as Pipecat's numpy copy does it
 * (Whisper's feature extractor, as Pipecat's numpy copy computes it). Input: 16 kHz mono float audio; output: 80 mel bins × 800
 * frames, row-major by bin ([mel][frame]), the model's `input_features` for batch 1.
 *
 * 1. keep the last 8 s (128 000 samples), zero-padded at the FRONT (the newest audio at the end);
 * 2. normalise: (x − mean) / sqrt(var + 1e-7) over the whole padded buffer;
 * 3. reflect-pad 200 samples each side; frames of 400 at hop 160; periodic Hann window;
 * 4. power spectrum |rFFT|² (n_fft 400, 201 bins);
 * 5. 80 triangular mel filters on the Slaney scale, 0–8000 Hz, Slaney area-normalised;
 * 6. log10(max(1e-10, mel)); drop the last frame (801 → 800);
 * 7. clamp below at (max − 8); map v → (v + 4) / 4.
 *
 * The FFT is a mixed-radix (4·4·5·5 = 400) Stockham transform with precomputed twiddles, two
 * real frames per complex transform, where a naive DFT takes ≈ 300 ms per 8 s. Pure computation with no imports, so it runs in the Smart Turn worker thread.
 */

export const SAMPLE_RATE = 16_000;
export const N_FFT = 400;
export const HOP = 160;
export const N_MELS = 80;
export const SECONDS = 8;
export const N_SAMPLES = SAMPLE_RATE * SECONDS;
export const N_FRAMES = N_SAMPLES / HOP;
const BINS = N_FFT / 2 + 1;
const PAD = N_FFT / 2;
const FACTORS = [4, 4, 5, 5];

/** The periodic Hann window (numpy/torch `hann_window(400, periodic=True)`). */
const WINDOW = new Float64Array(N_FFT);
for (let n = 0; n < N_FFT; n++) WINDOW[n] = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT);

/**
 * One Stockham stage (decimation in frequency, autosorting: natural order out, no bit reversal):
 * radix p on sub-transforms of length n at stride s, with the twiddles exp(−2πi·j·q/n) for
 * q < n/p, j < p precomputed ([q·p + j]).
 */
interface Stage {
  p: number;
  n: number;
  s: number;
  twRe: Float64Array;
  twIm: Float64Array;
}

const STAGES: Stage[] = (() => {
  const stages: Stage[] = [];
  let n = N_FFT;
  let s = 1;
  for (const p of FACTORS) {
    const m = n / p;
    const twRe = new Float64Array(m * p);
    const twIm = new Float64Array(m * p);
    for (let q = 0; q < m; q++) {
      for (let j = 0; j < p; j++) {
        twRe[q * p + j] = Math.cos((-2 * Math.PI * j * q) / n);
        twIm[q * p + j] = Math.sin((-2 * Math.PI * j * q) / n);
      }
    }
    stages.push({ p, n, s, twRe, twIm });
    n = m;
    s *= p;
  }
  return stages;
})();

/** cos/sin of −2π·k/5 for the radix-5 butterflies. */
const C5 = [1, Math.cos((2 * Math.PI) / 5), Math.cos((4 * Math.PI) / 5), Math.cos((6 * Math.PI) / 5), Math.cos((8 * Math.PI) / 5)];
const S5 = [0, -Math.sin((2 * Math.PI) / 5), -Math.sin((4 * Math.PI) / 5), -Math.sin((6 * Math.PI) / 5), -Math.sin((8 * Math.PI) / 5)];
/** W_5^(j·r) as (cos, sin) per [j·5 + r]. */
const W5_RE = Float64Array.from({ length: 25 }, (_, i) => C5[(Math.floor(i / 5) * (i % 5)) % 5]);
const W5_IM = Float64Array.from({ length: 25 }, (_, i) => S5[(Math.floor(i / 5) * (i % 5)) % 5]);

const work = { aRe: new Float64Array(N_FFT), aIm: new Float64Array(N_FFT), bRe: new Float64Array(N_FFT), bIm: new Float64Array(N_FFT), tRe: new Float64Array(5), tIm: new Float64Array(5) };

/** The complex DFT of 400 points (re, im) into (outRe, outIm); the inputs are left unchanged. */
export function fft400(re: Float64Array, im: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
  let xRe = work.aRe;
  let xIm = work.aIm;
  let yRe = work.bRe;
  let yIm = work.bIm;
  xRe.set(re);
  xIm.set(im);
  const { tRe, tIm } = work;
  for (const { p, n, s, twRe, twIm } of STAGES) {
    const m = n / p;
    for (let q = 0; q < m; q++) {
      for (let k = 0; k < s; k++) {
        for (let r = 0; r < p; r++) {
          tRe[r] = xRe[k + s * (q + m * r)];
          tIm[r] = xIm[k + s * (q + m * r)];
        }
        for (let j = 0; j < p; j++) {
          // b_j = Σ_r a_r · W_p^(j·r), then times the stage twiddle.
          let bRe: number;
          let bIm: number;
          if (p === 4) {
            // W_4 = −i: the 4-point DFT needs no multiplications.
            const e0Re = tRe[0] + tRe[2], e0Im = tIm[0] + tIm[2];
            const e1Re = tRe[0] - tRe[2], e1Im = tIm[0] - tIm[2];
            const o0Re = tRe[1] + tRe[3], o0Im = tIm[1] + tIm[3];
            const o1Re = tRe[1] - tRe[3], o1Im = tIm[1] - tIm[3];
            if (j === 0) (bRe = e0Re + o0Re), (bIm = e0Im + o0Im);
            else if (j === 1) (bRe = e1Re + o1Im), (bIm = e1Im - o1Re);
            else if (j === 2) (bRe = e0Re - o0Re), (bIm = e0Im - o0Im);
            else (bRe = e1Re - o1Im), (bIm = e1Im + o1Re);
          } else {
            bRe = 0;
            bIm = 0;
            for (let r = 0, w = j * 5; r < 5; r++, w++) {
              bRe += tRe[r] * W5_RE[w] - tIm[r] * W5_IM[w];
              bIm += tRe[r] * W5_IM[w] + tIm[r] * W5_RE[w];
            }
          }
          const wRe = twRe[q * p + j];
          const wIm = twIm[q * p + j];
          const at = k + s * (p * q + j);
          yRe[at] = bRe * wRe - bIm * wIm;
          yIm[at] = bRe * wIm + bIm * wRe;
        }
      }
    }
    [xRe, yRe] = [yRe, xRe];
    [xIm, yIm] = [yIm, xIm];
  }
  outRe.set(xRe);
  outIm.set(xIm);
}

// ── mel filterbank (Slaney scale and norm, as transformers' mel_filter_bank) ──────────────────
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27;
const hzToMel = (f: number) => (f < MIN_LOG_HZ ? f / F_SP : MIN_LOG_MEL + Math.log(f / MIN_LOG_HZ) / LOGSTEP);
const melToHz = (m: number) => (m < MIN_LOG_MEL ? m * F_SP : MIN_LOG_HZ * Math.exp(LOGSTEP * (m - MIN_LOG_MEL)));

/** Each filter as its first bin and weights (the triangles are sparse). */
const FILTERS: { first: number; weights: Float64Array }[] = (() => {
  const fftFreqs = Array.from({ length: BINS }, (_, i) => (i * (SAMPLE_RATE / 2)) / (BINS - 1));
  const melMax = hzToMel(SAMPLE_RATE / 2);
  const points = Array.from({ length: N_MELS + 2 }, (_, i) => melToHz((i * melMax) / (N_MELS + 1)));
  return Array.from({ length: N_MELS }, (_, m) => {
    const enorm = 2 / (points[m + 2] - points[m]);
    const row = fftFreqs.map((f) => {
      const down = (f - points[m]) / (points[m + 1] - points[m]);
      const up = (points[m + 2] - f) / (points[m + 2] - points[m + 1]);
      return Math.max(0, Math.min(down, up)) * enorm;
    });
    const first = row.findIndex((w) => w > 0);
    const last = row.length - 1 - [...row].reverse().findIndex((w) => w > 0);
    return first < 0 ? { first: 0, weights: new Float64Array(0) } : { first, weights: Float64Array.from(row.slice(first, last + 1)) };
  });
})();

/** The mel filterbank as a dense 80 × 201 matrix (tests compare it with an independent one). */
export function melFilters(): Float64Array[] {
  return FILTERS.map(({ first, weights }) => {
    const row = new Float64Array(BINS);
    row.set(weights, first);
    return row;
  });
}

/** Features of the audio (16 kHz mono, any length: the last 8 s count): 80 × 800 floats, [mel][frame]. */
export function whisperFeatures(audio: Float32Array): Float32Array {
  // 1. The last 8 s, zero-padded at the front.
  const x = new Float64Array(N_SAMPLES);
  const take = Math.min(audio.length, N_SAMPLES);
  for (let i = 0; i < take; i++) x[N_SAMPLES - take + i] = audio[audio.length - take + i];
  // 2. Normalise over the whole buffer (padding included).
  let mean = 0;
  for (let i = 0; i < N_SAMPLES; i++) mean += x[i];
  mean /= N_SAMPLES;
  let variance = 0;
  for (let i = 0; i < N_SAMPLES; i++) variance += (x[i] - mean) ** 2;
  const scale = 1 / Math.sqrt(variance / N_SAMPLES + 1e-7);
  for (let i = 0; i < N_SAMPLES; i++) x[i] = (x[i] - mean) * scale;
  // 3. Reflect padding (mirror without repeating the edge sample).
  const padded = new Float64Array(N_SAMPLES + 2 * PAD);
  padded.set(x, PAD);
  for (let i = 1; i <= PAD; i++) {
    padded[PAD - i] = x[i];
    padded[PAD + N_SAMPLES - 1 + i] = x[N_SAMPLES - 1 - i];
  }

  const logMel = new Float32Array(N_MELS * N_FRAMES);
  // Frames that lie wholly in the front padding are all the same constant: compute one, copy it.
  // A 2 s turn leaves ~600 of the 800 frames to copy.
  const constantFrames = Math.max(0, Math.floor((N_SAMPLES - take - N_FFT / 2) / HOP));
  const aRe = new Float64Array(N_FFT);
  const aIm = new Float64Array(N_FFT);
  const outRe = new Float64Array(N_FFT);
  const outIm = new Float64Array(N_FFT);
  const power = [new Float64Array(BINS), new Float64Array(BINS)];
  let max = -Infinity;
  // Two real frames per complex FFT: frame f in the real part, f + 1 in the imaginary part.
  // The first constant frame (if any) is computed; the others are copied after the loop.
  const computedFrom = constantFrames > 1 ? constantFrames - 1 : 0;
  for (let f = computedFrom; f < N_FRAMES; f += 2) {
    for (let n = 0; n < N_FFT; n++) {
      aRe[n] = padded[f * HOP + n] * WINDOW[n];
      aIm[n] = f + 1 < N_FRAMES ? padded[(f + 1) * HOP + n] * WINDOW[n] : 0;
    }
    fft400(aRe, aIm, outRe, outIm);
    for (let k = 0; k < BINS; k++) {
      const j = (N_FFT - k) % N_FFT;
      // A = (X[k] + conj X[N−k]) / 2, B = (X[k] − conj X[N−k]) / 2i.
      const ar = (outRe[k] + outRe[j]) / 2;
      const ai = (outIm[k] - outIm[j]) / 2;
      const br = (outIm[k] + outIm[j]) / 2;
      const bi = (outRe[j] - outRe[k]) / 2;
      power[0][k] = ar * ar + ai * ai;
      power[1][k] = br * br + bi * bi;
    }
    for (let half = 0; half < 2 && f + half < N_FRAMES; half++) {
      const spectrum = power[half];
      for (let m = 0; m < N_MELS; m++) {
        const { first, weights } = FILTERS[m];
        let sum = 0;
        for (let i = 0; i < weights.length; i++) sum += weights[i] * spectrum[first + i];
        const v = Math.log10(Math.max(1e-10, sum));
        logMel[m * N_FRAMES + f + half] = v;
        if (v > max) max = v;
      }
    }
  }
  for (let m = 0; m < N_MELS && computedFrom > 0; m++) logMel.fill(logMel[m * N_FRAMES + computedFrom], m * N_FRAMES, m * N_FRAMES + computedFrom);
  // 7. Dynamic range of 8 (log10 units) below the peak, then scale.
  const floor = max - 8;
  for (let i = 0; i < logMel.length; i++) logMel[i] = (Math.max(logMel[i], floor) + 4) / 4;
  return logMel;
}
