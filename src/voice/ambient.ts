/**
 * `ambient_sound` at `ambient_sound_volume`: a background loop mixed under the assistant's
 * audio, so a call sounds like it comes from a room rather than from a void.
 *
 * The loops are generated, not recorded: seeded noise shaped by filters, a few seconds long,
 * made once per sound and rate and shared by every call (read-only). No audio files to ship or
 * license, and any leg rate gets its loop without resampling.
 * - `office`: low, soft room tone (brown-ish noise, low-passed) with a faint ventilation hum.
 * - `cafe`: brighter murmur (band-passed noise whose loudness drifts like distant voices).
 * The loop's end is cross-faded into its start, so it repeats without a click. The output stage
 * (output.ts) plays it as a bed for the whole call, from the answer to the hang-up, at the leg's
 * rate: mixed into the assistant's speech as it is handed to the line, and alone between it
 * (also while the caller speaks and during silences), the loop's phase running on across frames,
 * at `volume` 0–1 where 1 puts the loop's RMS at −30 dBFS — well under speech (about −20 dBFS)
 * even at full volume. The bed is not the assistant's speech: no turn, floor or barge-in rule
 * counts it.
 */
export const AMBIENT_SOUNDS = ['none', 'office', 'cafe'] as const;
export type AmbientSound = (typeof AMBIENT_SOUNDS)[number];

const LOOP_SECONDS = 6;
const FADE_SECONDS = 0.5;
/** RMS of a loop at volume 1. */
const FULL_VOLUME_DBFS = -30;

const cache = new Map<string, Int16Array>();

/** The loop of `sound` at `sampleRate` (shared; do not modify). */
export function ambientLoop(sound: Exclude<AmbientSound, 'none'>, sampleRate: number): Int16Array {
  const key = `${sound}:${sampleRate}`;
  let loop = cache.get(key);
  if (!loop) {
    loop = render(sound, sampleRate);
    cache.set(key, loop);
  }
  return loop;
}

function render(sound: Exclude<AmbientSound, 'none'>, rate: number): Int16Array {
  const total = Math.round((LOOP_SECONDS + FADE_SECONDS) * rate);
  const raw = new Float64Array(total);
  let seed = sound === 'office' ? 0x2545f491 : 0x9e3779b9;
  const white = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0xffffffff - 0.5;
  };
  if (sound === 'office') {
    // Brown-ish noise (leaky integrator) low-passed at ~400 Hz, plus a 120 Hz ventilation hum.
    let brown = 0;
    let low = 0;
    const a = Math.exp((-2 * Math.PI * 400) / rate);
    for (let i = 0; i < total; i++) {
      brown = 0.995 * brown + white() * 0.1;
      low = a * low + (1 - a) * brown;
      raw[i] = low + 0.02 * Math.sin((2 * Math.PI * 120 * i) / rate);
    }
  } else {
    // Band-passed noise (~300–2500 Hz, the voice band) with a slowly drifting loudness.
    let hp = 0;
    let prev = 0;
    let lp = 0;
    const aHigh = Math.exp((-2 * Math.PI * 300) / rate);
    const aLow = Math.exp((-2 * Math.PI * Math.min(2500, rate * 0.4)) / rate);
    for (let i = 0; i < total; i++) {
      const x = white();
      hp = aHigh * (hp + x - prev);
      prev = x;
      lp = aLow * lp + (1 - aLow) * hp;
      const t = i / rate;
      const drift = 0.6 + 0.25 * Math.sin(2 * Math.PI * 0.37 * t) + 0.15 * Math.sin(2 * Math.PI * 1.3 * t + 1);
      raw[i] = lp * drift;
    }
  }
  // Cross-fade the tail into the head so the loop repeats seamlessly.
  const n = Math.round(LOOP_SECONDS * rate);
  const fade = total - n;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = raw[i]!;
  for (let i = 0; i < fade; i++) {
    const w = i / fade;
    out[i] = raw[i]! * w + raw[n + i]! * (1 - w);
  }
  // Normalise to the full-volume RMS.
  const rms = Math.sqrt(out.reduce((s, v) => s + v * v, 0) / n) || 1;
  const gain = (32768 * 10 ** (FULL_VOLUME_DBFS / 20)) / rms;
  return Int16Array.from(out, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

/** Mixes a loop under the assistant's outgoing audio, continuing its phase from frame to frame. */
export class AmbientMixer {
  private position = 0;

  constructor(
    private readonly loop: Int16Array,
    private readonly volume: number,
  ) {}

  mix(samples: Int16Array): Int16Array {
    const out = new Int16Array(samples.length);
    const loop = this.loop;
    for (let i = 0; i < samples.length; i++) {
      const v = samples[i]! + loop[this.position]! * this.volume;
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v);
      if (++this.position === loop.length) this.position = 0;
    }
    return out;
  }
}

/** Reads the assistant's settings: null when there is nothing to mix (sound `none`, unknown, or volume 0). */
export function ambientMixerFor(sound: string, volume: string | number, sampleRate: number): AmbientMixer | null {
  const v = typeof volume === 'string' ? Number(volume) : volume;
  if (!Number.isFinite(v) || v <= 0) return null;
  if (sound !== 'office' && sound !== 'cafe') return null;
  return new AmbientMixer(ambientLoop(sound, sampleRate), Math.min(1, v));
}
