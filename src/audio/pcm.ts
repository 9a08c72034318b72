/**
 * Linear PCM helpers. Audio inside Switchboard is mono 16-bit PCM (`Int16Array`) at a
 * stated sample rate; these convert to and from bytes and floats and do the little
 * arithmetic the voice core needs (level, gain, mixing). Results saturate at the 16-bit
 * range instead of wrapping, because a wrapped sample is a loud click.
 */

/** Whether typed arrays store an Int16 with its low byte first (then PCM16 in memory is the wire format). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function clamp16(value: number): number {
  return value > 32767 ? 32767 : value < -32768 ? -32768 : Math.round(value);
}

/** PCM16 to floats in [-1, 1). */
export function int16ToFloat32(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i] / 32768;
  return out;
}

/** Floats (nominally [-1, 1]) to PCM16, rounded and saturated. */
export function float32ToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clamp16(samples[i] * 32768);
  return out;
}

/**
 * Little-endian s16 bytes (as on every wire we speak) to samples. Copies, so the result
 * never aliases a pooled Buffer and any byte offset works; an odd trailing byte is ignored.
 */
export function bytesToInt16(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  const out = new Int16Array(count);
  if (LITTLE_ENDIAN) {
    // The same bytes in the same order: one copy (memcpy), not a read per sample.
    new Uint8Array(out.buffer).set(bytes.subarray(0, count * 2));
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** Samples to little-endian s16 bytes (a Buffer, ready for a socket or base64). */
export function int16ToBytes(samples: Int16Array): Buffer {
  // On a little-endian machine (every one Node runs on in practice) the samples' memory is
  // already the wire's bytes: one copy. Per-sample writes were a hot spot of every call's
  // audio to the recogniser (a CPU profile at 60 calls: 2 % of the main thread).
  if (LITTLE_ENDIAN) return Buffer.from(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i], i * 2);
  return out;
}

/** Root mean square on the 16-bit scale (0 for no samples). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / samples.length);
}

/** Level relative to full scale (a full-scale square wave is 0 dBFS); -Infinity for silence. */
export function dbfs(samples: Int16Array): number {
  const level = rms(samples);
  return level === 0 ? -Infinity : 20 * Math.log10(level / 32768);
}

export function dbToGain(db: number): number {
  return 10 ** (db / 20);
}

/** A copy scaled by `factor` (linear), saturated. */
export function applyGain(samples: Int16Array, factor: number): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clamp16(samples[i] * factor);
  return out;
}

/**
 * Sums tracks sample by sample, each at its own gain (default 1), saturated. The result is
 * as long as the longest track; shorter tracks count as silence after their end.
 */
export function mix(tracks: Int16Array[], gains: number[] = []): Int16Array {
  const length = Math.max(0, ...tracks.map((t) => t.length));
  const sum = new Float64Array(length);
  tracks.forEach((track, k) => {
    const g = gains[k] ?? 1;
    for (let i = 0; i < track.length; i++) sum[i] += track[i] * g;
  });
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) out[i] = clamp16(sum[i]);
  return out;
}

/** Joins sample buffers end to end. */
export function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `ms` milliseconds of silence at `sampleRate`. */
export function silence(ms: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.round((ms * sampleRate) / 1000));
}
