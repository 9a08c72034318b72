/**
 * The "recognizer" of the speech-to-text doubles (VOICE.md part C): not ASR but clip matching.
 * A test registers clips (audio + the text it stands for); the doubles cut the audio they
 * receive into utterances by energy and name each utterance after the registered clip whose
 * 10 ms RMS envelope correlates best with it (Pearson correlation, a small lag allowed, silence
 * where one is longer than the other). Envelopes survive what a call does to audio (gain,
 * resampling, μ-law), so audio that went through the service still matches its source (> 0.9),
 * while different utterances stay far apart.
 *
 * `speechLike()` is the synthesizer the TTS doubles speak with and tests "say" things with: a
 * deterministic speech-like sound per character (voiced harmonics with formants for vowels,
 * inharmonic bursts for consonants, all below 3.4 kHz so telephone bandwidth keeps them, short
 * gaps between words), with per-character timings for alignment. Until the local voice lands
 * it stands in for eSpeak: real audio with a speech envelope, not speech a person would follow.
 */
import { rms } from '../../../src/audio/pcm.js';

/** Envelope frame length. */
export const FRAME_MS = 10;

export interface Synthesized {
  samples: Int16Array;
  sampleRate: number;
  /** Every character of the text, in order, with its start and duration in ms. */
  chars: string[];
  startMs: number[];
  durationMs: number[];
}

const VOWELS = new Set('aeiouyäöüàáâéèêíìîóòôúùûæøå0123456789');

/** A small deterministic hash of a character (FNV-1a over its code point). */
function hash(ch: string): number {
  let h = 0x811c9dc5;
  for (const unit of ch) {
    h ^= unit.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Milliseconds of silence a non-sounding character stands for. */
function pauseMs(ch: string): number | null {
  if (/\s/.test(ch)) return 35;
  if (/[,;:]/.test(ch)) return 80;
  if (/[.!?…]/.test(ch)) return 90;
  if (/[\p{L}\p{N}]/u.test(ch)) return null;
  return 15;
}

/**
 * Deterministic speech-like audio for `text` at `sampleRate` (`speed` 1.0 = normal): the same
 * text always gives the same samples, different texts give clearly different envelopes.
 */
export function speechLike(text: string, sampleRate: number, speed = 1): Synthesized {
  const chars = [...text];
  const startMs: number[] = [];
  const durationMs: number[] = [];
  const parts: Float32Array[] = [];
  let at = 0;
  for (const raw of chars) {
    const ch = raw.toLowerCase();
    const pause = pauseMs(ch);
    const vowel = VOWELS.has(ch);
    const ms = (pause ?? (vowel ? 90 : 55)) / speed;
    const n = Math.round((ms / 1000) * sampleRate);
    const out = new Float32Array(n);
    if (pause === null) {
      const h = hash(ch);
      const peak = (vowel ? 0.45 + 0.4 * ((h >>> 3) % 8) / 7 : 0.12 + 0.3 * ((h >>> 5) % 8) / 7) * 14_000;
      const tones: { f: number; a: number; p: number }[] = [];
      if (vowel) {
        const f0 = 110 + ((h >>> 7) % 6) * 12;
        const f1 = 320 + ((h >>> 11) % 7) * 70;
        const f2 = 950 + ((h >>> 15) % 11) * 140;
        for (let f = f0; f < 3300; f += f0) {
          const a = Math.exp(-(((f - f1) / 180) ** 2)) + 0.6 * Math.exp(-(((f - f2) / 260) ** 2)) + 0.05;
          tones.push({ f, a, p: 0 });
        }
      } else {
        for (let k = 0; k < 7; k++) tones.push({ f: 1100 + ((h >>> (k * 3)) % 23) * 95, a: 1, p: ((h >>> k) % 17) / 2.7 });
      }
      const total = tones.reduce((s, t) => s + t.a, 0);
      const ramp = Math.max(1, Math.round(0.012 * sampleRate));
      for (let i = 0; i < n; i++) {
        const t = i / sampleRate;
        let v = 0;
        for (const tone of tones) v += tone.a * Math.sin(2 * Math.PI * tone.f * t + tone.p);
        const edge = Math.min(1, i / ramp, (n - 1 - i) / ramp);
        out[i] = (v / total) * peak * 2.2 * (0.5 - 0.5 * Math.cos(Math.PI * Math.max(0, edge)));
      }
    }
    startMs.push(at);
    durationMs.push(ms);
    at += ms;
    parts.push(out);
  }
  const length = parts.reduce((s, p) => s + p.length, 0);
  const samples = new Int16Array(length);
  let offset = 0;
  for (const p of parts) {
    for (let i = 0; i < p.length; i++) samples[offset + i] = Math.max(-32768, Math.min(32767, Math.round(p[i])));
    offset += p.length;
  }
  return { samples, sampleRate, chars, startMs: startMs.map(round1), durationMs: durationMs.map(round1) };
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/** RMS of each 10 ms frame (a trailing partial frame is left out). */
export function envelope(samples: Int16Array, sampleRate: number): Float32Array {
  const frame = Math.round((sampleRate * FRAME_MS) / 1000);
  const out = new Float32Array(Math.floor(samples.length / frame));
  for (let i = 0; i < out.length; i++) out[i] = rms(samples.subarray(i * frame, (i + 1) * frame));
  return out;
}

/** Default level that counts as sound: −45 dBFS. */
export const DEFAULT_THRESHOLD = 32768 * 10 ** (-45 / 20);

/** The envelope without its leading and trailing quiet frames. */
export function trim(env: Float32Array, threshold = DEFAULT_THRESHOLD): Float32Array {
  let start = 0;
  let end = env.length;
  while (start < end && env[start] < threshold) start++;
  while (end > start && env[end - 1] < threshold) end--;
  return env.subarray(start, end);
}

/**
 * The best Pearson correlation of two envelopes over lags of up to `maxLag` frames, where the
 * shorter one counts as silence past its end (so a length mismatch lowers the score).
 */
export function correlate(rawA: Float32Array, rawB: Float32Array, maxLag = 5): number {
  if (!rawA.length || !rawB.length) return 0;
  // Smoothed over three frames, so where the 10 ms frames fall (a 5 ms shift) hardly matters.
  const a = smooth(rawA);
  const b = smooth(rawB);
  let best = -1;
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    const from = Math.min(0, lag);
    const to = Math.max(a.length, b.length + lag);
    const n = to - from;
    let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (let i = from; i < to; i++) {
      const x = i >= 0 && i < a.length ? a[i] : 0;
      const j = i - lag;
      const y = j >= 0 && j < b.length ? b[j] : 0;
      sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
    }
    const cov = sxy - (sx * sy) / n;
    const den = Math.sqrt((sxx - (sx * sx) / n) * (syy - (sy * sy) / n));
    if (den > 0) best = Math.max(best, cov / den);
  }
  return best;
}

function smooth(env: Float32Array): Float32Array {
  const out = new Float32Array(env.length);
  for (let i = 0; i < env.length; i++) out[i] = 0.25 * (env[i - 1] ?? 0) + 0.5 * env[i] + 0.25 * (env[i + 1] ?? 0);
  return out;
}

export interface ClipMatch {
  text: string;
  score: number;
}

interface Clip {
  text: string;
  env: Float32Array;
}

/** Registered clips and the matching of heard audio against them. */
export class ClipBook {
  private readonly clips: Clip[] = [];

  /** `threshold`: the correlation a match needs (0.9: real captured speech correlates above it). */
  constructor(readonly threshold = 0.9, readonly level = DEFAULT_THRESHOLD) {}

  /** Registers audio as standing for `text`. */
  add(text: string, samples: Int16Array, sampleRate: number): this {
    const env = trim(envelope(samples, sampleRate), this.level);
    if (!this.clips.some((c) => c.text === text && c.env.length === env.length)) this.clips.push({ text, env });
    return this;
  }

  /** Synthesizes `text` with `speechLike`, registers it and returns its audio. */
  say(text: string, sampleRate: number, speed = 1): Int16Array {
    const { samples } = speechLike(text, sampleRate, speed);
    this.add(text, samples, sampleRate);
    return samples;
  }

  get size(): number {
    return this.clips.length;
  }

  /** The best clip for a heard utterance's envelope (trimmed here), or null below the threshold. */
  match(env: Float32Array): ClipMatch | null {
    const heard = trim(env, this.level);
    let best: ClipMatch | null = null;
    for (const clip of this.clips) {
      // A clip far longer or shorter than what was heard cannot be it.
      if (Math.min(heard.length, clip.env.length) < 0.6 * Math.max(heard.length, clip.env.length)) continue;
      const score = correlate(heard, clip.env);
      if (!best || score > best.score) best = { text: clip.text, score };
    }
    return best && best.score >= this.threshold ? best : null;
  }

  /** Matches audio (any rate) against the clips. */
  matchAudio(samples: Int16Array, sampleRate: number): ClipMatch | null {
    return this.match(envelope(samples, sampleRate));
  }

  /**
   * For interim results: the clip whose beginning the (unfinished) utterance matches, and which
   * share of it has been heard. Needs 200 ms of sound.
   */
  matchPrefix(env: Float32Array, threshold = this.threshold - 0.05): { text: string; fraction: number; score: number } | null {
    const heard = trim(env, this.level);
    if (heard.length < 20) return null;
    let best: { text: string; fraction: number; score: number } | null = null;
    for (const clip of this.clips) {
      if (clip.env.length < heard.length * 0.8) continue;
      const score = correlate(heard, clip.env.subarray(0, heard.length), 3);
      if (score >= threshold && (!best || score > best.score)) best = { text: clip.text, fraction: Math.min(1, heard.length / clip.env.length), score };
    }
    return best;
  }
}

export interface Utterance {
  /** Audio time (ms from the stream's start) of the first and after the last loud frame. */
  startMs: number;
  endMs: number;
  /** Envelope from the first to the last loud frame. */
  env: Float32Array;
  samples: Int16Array;
}

export type SegmentEvent = { type: 'start'; atMs: number } | { type: 'end'; utterance: Utterance };

/**
 * Cuts a stream of audio into utterances by energy: an utterance starts at the first frame
 * above the level and ends once `endSilenceMs` of quiet follows its last loud frame. Times are
 * audio time, so the result does not depend on how fast audio arrives.
 */
export class EnergySegmenter {
  private readonly frame: number;
  private carry = new Int16Array(0);
  private frames = 0;
  private current: { startFrame: number; lastLoud: number; env: number[]; chunks: Int16Array[] } | null = null;

  constructor(private readonly sampleRate: number, public endSilenceMs = 300, private readonly level = DEFAULT_THRESHOLD) {
    this.frame = Math.round((sampleRate * FRAME_MS) / 1000);
  }

  /** Audio time so far, ms. */
  get timeMs(): number {
    return this.frames * FRAME_MS;
  }

  /** True while inside an utterance. */
  get speaking(): boolean {
    return this.current !== null;
  }

  /** The envelope of the utterance in progress (for interim results). */
  get partial(): Float32Array | null {
    return this.current ? Float32Array.from(this.current.env.slice(0, this.current.lastLoud - this.current.startFrame + 1)) : null;
  }

  /** Audio time of the utterance in progress's first loud frame, or null between utterances. */
  get partialStartMs(): number | null {
    return this.current ? this.current.startFrame * FRAME_MS : null;
  }

  /** Audio time of the last loud frame's end, or null when nothing was heard yet. */
  lastLoudEndMs: number | null = null;

  push(samples: Int16Array): SegmentEvent[] {
    const all = new Int16Array(this.carry.length + samples.length);
    all.set(this.carry);
    all.set(samples, this.carry.length);
    const events: SegmentEvent[] = [];
    let i = 0;
    for (; i + this.frame <= all.length; i += this.frame) {
      const frame = all.subarray(i, i + this.frame);
      const loud = rms(frame) >= this.level;
      if (loud) this.lastLoudEndMs = (this.frames + 1) * FRAME_MS;
      if (!this.current && loud) {
        this.current = { startFrame: this.frames, lastLoud: this.frames, env: [], chunks: [] };
        events.push({ type: 'start', atMs: this.frames * FRAME_MS });
      }
      if (this.current) {
        this.current.env.push(rms(frame));
        this.current.chunks.push(frame.slice());
        if (loud) this.current.lastLoud = this.frames;
        else if ((this.frames - this.current.lastLoud) * FRAME_MS >= this.endSilenceMs) events.push({ type: 'end', utterance: this.cut() });
      }
      this.frames++;
    }
    this.carry = all.slice(i);
    return events;
  }

  /** Ends the utterance in progress now (Finalize, end of stream); null when there is none. */
  flush(): Utterance | null {
    return this.current ? this.cut() : null;
  }

  private cut(): Utterance {
    const c = this.current!;
    this.current = null;
    const loudFrames = c.lastLoud - c.startFrame + 1;
    const chunks = c.chunks.slice(0, loudFrames);
    const samples = new Int16Array(chunks.length * this.frame);
    chunks.forEach((chunk, k) => samples.set(chunk, k * this.frame));
    return {
      startMs: c.startFrame * FRAME_MS,
      endMs: (c.lastLoud + 1) * FRAME_MS,
      env: Float32Array.from(c.env.slice(0, loudFrames)),
      samples,
    };
  }
}
