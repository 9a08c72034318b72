import { describe, expect, it } from 'vitest';
import { alaw, mulaw } from '../../src/audio/g711.js';
import { monoOf, readWav, WavError, writeG711Wav, writeWav } from '../../src/audio/wav.js';

/** A WAV built by hand, chunk by chunk, the way other writers lay them out. */
function riff(chunks: [string, Uint8Array, number?][], riffSize?: number): Uint8Array {
  const parts: Buffer[] = [];
  for (const [id, body, declared] of chunks) {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'ascii');
    head.writeUInt32LE(declared ?? body.length, 4);
    parts.push(head, Buffer.from(body));
    if (body.length & 1 && declared === undefined) parts.push(Buffer.alloc(1));
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(riffSize ?? body.length + 4, 4);
  head.write('WAVE', 8, 'ascii');
  return Buffer.concat([head, body]);
}

function fmt(code: number, channels: number, rate: number, bits: number, extra?: Buffer): Uint8Array {
  const b = Buffer.alloc(16);
  b.writeUInt16LE(code, 0);
  b.writeUInt16LE(channels, 2);
  b.writeUInt32LE(rate, 4);
  b.writeUInt32LE((rate * channels * bits) / 8, 8);
  b.writeUInt16LE((channels * bits) / 8, 12);
  b.writeUInt16LE(bits, 14);
  return extra ? Buffer.concat([b, extra]) : b;
}

const samples = Int16Array.from({ length: 300 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));

describe('WAV', () => {
  it('writes mono μ-law and A-law WAVs that read back as their G.711 decoding', () => {
    for (const law of ['mulaw', 'alaw'] as const) {
      const odd = samples.subarray(0, 299); // odd data size: padded to an even chunk
      const file = writeG711Wav(8000, odd, law);
      expect(file.length % 2).toBe(0);
      expect(file.readUInt32LE(4)).toBe(file.length - 8);
      const wav = readWav(file);
      const codec = law === 'mulaw' ? mulaw : alaw;
      expect(wav).toEqual({ sampleRate: 8000, encoding: law, channels: [codec.decode(codec.encode(odd))] });
    }
  });

  it('writes and reads mono PCM16 with the standard 44-byte header', () => {
    const file = writeWav(16000, samples);
    expect(file.length).toBe(44 + 600);
    expect(file.toString('ascii', 0, 4)).toBe('RIFF');
    expect(file.readUInt32LE(4)).toBe(36 + 600);
    expect(file.readUInt32LE(28)).toBe(32000);
    const wav = readWav(file);
    expect(wav).toMatchObject({ sampleRate: 16000, encoding: 'pcm16' });
    expect(wav.channels).toHaveLength(1);
    expect(Array.from(wav.channels[0])).toEqual(Array.from(samples));
  });

  it('writes and reads stereo interleaved, and mixes it down to mono', () => {
    const right = samples.map((s) => -s);
    const file = writeWav(8000, samples, right);
    expect(file.readUInt16LE(22)).toBe(2);
    expect(file.readInt16LE(44 + 2)).toBe(right[0]);
    const wav = readWav(file);
    expect(Array.from(wav.channels[1])).toEqual(Array.from(right));
    expect(monoOf(wav).every((s) => s === 0)).toBe(true);
    expect(() => writeWav(8000, samples, samples.subarray(1))).toThrow(WavError);
  });

  it('walks past LIST/fact chunks and odd-sized chunks to μ-law and A-law data', () => {
    const list = new TextEncoder().encode('INFOISFT\x05\x00\x00\x00sox!'); // odd length, padded
    for (const [code, codec, encoding] of [
      [7, mulaw, 'mulaw'],
      [6, alaw, 'alaw'],
    ] as const) {
      const coded = codec.encode(samples);
      const fact = Buffer.alloc(4);
      fact.writeUInt32LE(samples.length);
      const file = riff([
        ['LIST', list],
        ['fmt ', fmt(code, 1, 8000, 8, Buffer.alloc(2))],
        ['fact', fact],
        ['data', coded],
      ]);
      const wav = readWav(file);
      expect(wav).toMatchObject({ sampleRate: 8000, encoding });
      expect(Array.from(wav.channels[0])).toEqual(Array.from(codec.decode(coded)));
    }
  });

  it("tolerates a streaming writer's size placeholder (espeak-ng writes 0x7FFFF000)", () => {
    const pcm = Buffer.from(samples.buffer.slice(0));
    const file = riff([['fmt ', fmt(1, 1, 22050, 16)], ['data', pcm, 0x7ffff000]], 0x7ffff000 + 36);
    const wav = readWav(file);
    expect(wav.sampleRate).toBe(22050);
    expect(Array.from(wav.channels[0])).toEqual(Array.from(samples));
  });

  it('reads WAVE_FORMAT_EXTENSIBLE PCM', () => {
    const ext = Buffer.alloc(24);
    ext.writeUInt16LE(22, 0); // cbSize
    ext.writeUInt16LE(16, 2); // valid bits
    ext.writeUInt16LE(1, 8); // sub-format GUID starts with the format code (PCM)
    const file = riff([['fmt ', fmt(0xfffe, 1, 48000, 16, ext)], ['data', Buffer.from(samples.buffer.slice(0))]]);
    expect(Array.from(readWav(file).channels[0])).toEqual(Array.from(samples));
  });

  it('refuses what it cannot read with a clear error', () => {
    expect(() => readWav(new Uint8Array(4))).toThrow('not a RIFF/WAVE file');
    expect(() => readWav(riff([['data', new Uint8Array(4)]]))).toThrow('data chunk before fmt chunk');
    expect(() => readWav(riff([['fmt ', fmt(1, 1, 8000, 16)]]))).toThrow('no data chunk');
    expect(() => readWav(riff([['fmt ', fmt(3, 1, 8000, 32)], ['data', new Uint8Array(8)]]))).toThrow(
      'unsupported WAV format 3 with 32 bits per sample',
    );
  });
});
