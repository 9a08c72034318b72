/**
 * WAV files (RIFF/WAVE): reading what tools and vendors produce, writing PCM16 for fixtures,
 * recordings and downloads. The reader walks the chunk list instead of assuming a 44-byte
 * header (LIST/fact chunks come first in many files), and it tolerates a size that runs past
 * the end: espeak-ng and other streaming writers put a placeholder (0x7FFFF000) in the RIFF
 * and data sizes because they do not know the length when they start writing.
 */
import { alaw, mulaw } from './g711.js';

export type WavEncoding = 'pcm16' | 'mulaw' | 'alaw';

export interface Wav {
  sampleRate: number;
  /** One PCM16 array per channel (μ-law/A-law files are decoded). */
  channels: Int16Array[];
  /** How the samples were stored in the file. */
  encoding: WavEncoding;
}

const FORMAT_PCM = 1;
const FORMAT_ALAW = 6;
const FORMAT_MULAW = 7;
const FORMAT_EXTENSIBLE = 0xfffe;

export class WavError extends Error {}

export function readWav(bytes: Uint8Array): Wav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new WavError('not a RIFF/WAVE file');
  let format: { code: number; channels: number; sampleRate: number; bits: number } | null = null;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const declared = view.getUint32(at + 4, true);
    const start = at + 8;
    const size = Math.min(declared, bytes.length - start); // streaming writers' placeholder
    if (id === 'fmt ') {
      if (size < 16) throw new WavError('fmt chunk too short');
      let code = view.getUint16(start, true);
      if (code === FORMAT_EXTENSIBLE && size >= 26) code = view.getUint16(start + 24, true); // sub-format GUID's first two bytes
      format = {
        code,
        channels: view.getUint16(start + 2, true),
        sampleRate: view.getUint32(start + 4, true),
        bits: view.getUint16(start + 14, true),
      };
    } else if (id === 'data') {
      if (!format) throw new WavError('data chunk before fmt chunk');
      return decodeData(bytes.subarray(start, start + size), format);
    }
    at = start + size + (size & 1); // chunks are padded to an even length
  }
  throw new WavError(format ? 'no data chunk' : 'no fmt chunk');
}

function decodeData(data: Uint8Array, f: { code: number; channels: number; sampleRate: number; bits: number }): Wav {
  if (f.channels < 1) throw new WavError('no channels');
  let interleaved: Int16Array;
  let encoding: WavEncoding;
  if (f.code === FORMAT_PCM && f.bits === 16) {
    const count = data.length >> 1;
    interleaved = new Int16Array(count);
    const view = new DataView(data.buffer, data.byteOffset, count * 2);
    for (let i = 0; i < count; i++) interleaved[i] = view.getInt16(i * 2, true);
    encoding = 'pcm16';
  } else if ((f.code === FORMAT_MULAW || f.code === FORMAT_ALAW) && f.bits === 8) {
    interleaved = (f.code === FORMAT_MULAW ? mulaw : alaw).decode(data);
    encoding = f.code === FORMAT_MULAW ? 'mulaw' : 'alaw';
  } else {
    throw new WavError(`unsupported WAV format ${f.code} with ${f.bits} bits per sample`);
  }
  const frames = Math.floor(interleaved.length / f.channels);
  const channels = Array.from({ length: f.channels }, () => new Int16Array(frames));
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < f.channels; c++) channels[c][i] = interleaved[i * f.channels + c];
  }
  return { sampleRate: f.sampleRate, channels, encoding };
}

/** A PCM16 WAV file of one or more equally long channels. */
export function writeWav(sampleRate: number, ...channels: Int16Array[]): Buffer {
  if (channels.length === 0) throw new WavError('no channels');
  const frames = channels[0].length;
  if (channels.some((c) => c.length !== frames)) throw new WavError('channels differ in length');
  const dataSize = frames * channels.length * 2;
  const out = Buffer.alloc(44 + dataSize);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataSize, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(channels.length, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels.length * 2, 28); // byte rate
  out.writeUInt16LE(channels.length * 2, 32); // block align
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataSize, 40);
  let at = 44;
  for (let i = 0; i < frames; i++) {
    for (const c of channels) {
      out.writeInt16LE(c[i], at);
      at += 2;
    }
  }
  return out;
}

/**
 * A mono 8-bit G.711 WAV (format 7 μ-law, 6 A-law): what telephone audio is on the wire, at a
 * quarter of the size of PCM16 at the same rate (caller-speech fixtures, call recordings).
 */
export function writeG711Wav(sampleRate: number, samples: Int16Array, law: 'mulaw' | 'alaw' = 'mulaw'): Buffer {
  const data = (law === 'mulaw' ? mulaw : alaw).encode(samples);
  // fmt chunk of 18 bytes (cbSize = 0), as non-PCM formats require, then a fact chunk.
  const out = Buffer.alloc(12 + 26 + 12 + 8 + data.length + (data.length & 1));
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(out.length - 8, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(18, 16);
  out.writeUInt16LE(law === 'mulaw' ? FORMAT_MULAW : FORMAT_ALAW, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate, 28); // byte rate
  out.writeUInt16LE(1, 32); // block align
  out.writeUInt16LE(8, 34);
  out.writeUInt16LE(0, 36); // cbSize
  out.write('fact', 38, 'ascii');
  out.writeUInt32LE(4, 42);
  out.writeUInt32LE(samples.length, 46);
  out.write('data', 50, 'ascii');
  out.writeUInt32LE(data.length, 54);
  Buffer.from(data.buffer, data.byteOffset, data.length).copy(out, 58);
  return out;
}

/** Channel 0 of a WAV, or the average of all channels: what a mono pipeline hears. */
export function monoOf(wav: Wav): Int16Array {
  if (wav.channels.length === 1) return wav.channels[0];
  const out = new Int16Array(wav.channels[0].length);
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (const c of wav.channels) sum += c[i];
    out[i] = Math.round(sum / wav.channels.length);
  }
  return out;
}
