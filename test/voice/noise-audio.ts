/** Test audio made on the spot: voiced speech-like sound, white noise, mains hum, silence (PCM16 mono). */

/** A voiced sound: a fundamental with harmonics under a syllable-rate (4 Hz) envelope. */
export function voiced(seconds: number, rate: number, f0 = 140, amplitude = 8000): Int16Array {
  const n = Math.round(seconds * rate);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    let v = 0;
    for (let h = 1; h <= 6; h++) v += Math.sin(2 * Math.PI * f0 * h * t) / h;
    out[i] = Math.round(amplitude * envelope * v * 0.5);
  }
  return out;
}

/** Deterministic white noise at roughly `dbfs` RMS. */
export function noise(seconds: number, rate: number, dbfs: number, seed = 1): Int16Array {
  const n = Math.round(seconds * rate);
  const out = new Int16Array(n);
  const amp = 32768 * 10 ** (dbfs / 20) * Math.sqrt(3); // uniform noise: RMS = amp/√3
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = Math.round(((x >>> 0) / 0xffffffff - 0.5) * 2 * amp);
  }
  return out;
}

/** A 50 Hz hum at roughly `dbfs` RMS. */
export function hum(seconds: number, rate: number, dbfs: number): Int16Array {
  const n = Math.round(seconds * rate);
  const amp = 32768 * 10 ** (dbfs / 20) * Math.SQRT2;
  return Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 50 * i) / rate)));
}

export function add(...tracks: Int16Array[]): Int16Array {
  const n = Math.max(...tracks.map((t) => t.length));
  return Int16Array.from({ length: n }, (_, i) => Math.max(-32768, Math.min(32767, tracks.reduce((s, t) => s + (t[i] ?? 0), 0))));
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** 20 ms frames. */
export function frames20(samples: Int16Array, rate: number): Int16Array[] {
  const size = rate / 50;
  return Array.from({ length: Math.ceil(samples.length / size) }, (_, i) => samples.subarray(i * size, (i + 1) * size));
}
