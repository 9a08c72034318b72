/**
 * G.711 μ-law and A-law (ITU-T G.711), the codecs of the telephone network: Twilio streams
 * μ-law at 8 kHz, European trunks use A-law. Each direction is a lookup table built once
 * at load (64 KiB per encoder, 512 bytes per decoder), so a 20 ms frame costs 160 reads.
 * The encoders take 16-bit linear PCM, as the common reference implementations do (they
 * are bit-identical to the `alawmulaw` package, which the tests check on every input).
 */

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

/** One 16-bit sample to a μ-law byte. */
function mulawEncodeSample(sample: number): number {
  const sign = (sample >> 8) & 0x80;
  let magnitude = sign ? -sample : sample;
  magnitude = Math.min(magnitude + MULAW_BIAS, MULAW_CLIP);
  const exponent = 31 - Math.clz32(magnitude >> 7);
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function mulawDecodeSample(code: number): number {
  const u = ~code & 0xff;
  const t = ((((u & 0x0f) << 3) + MULAW_BIAS) << ((u & 0x70) >> 4)) - MULAW_BIAS;
  return u & 0x80 ? -t : t;
}

/** One 16-bit sample to an A-law byte (even bits inverted, as sent on the wire). */
function alawEncodeSample(sample: number): number {
  const positive = sample >= 0;
  let magnitude = positive ? sample : -Math.max(sample, -32767);
  magnitude = Math.min(magnitude, MULAW_CLIP);
  let code: number;
  if (magnitude >= 256) {
    const exponent = 31 - Math.clz32(magnitude) - 7;
    code = (exponent << 4) | ((magnitude >> (exponent + 3)) & 0x0f);
  } else {
    code = magnitude >> 4;
  }
  return code ^ (positive ? 0xd5 : 0x55);
}

function alawDecodeSample(code: number): number {
  const a = code ^ 0x55;
  const segment = (a & 0x70) >> 4;
  let t = ((a & 0x0f) << 4) + (segment === 0 ? 8 : 0x108);
  if (segment > 1) t <<= segment - 1;
  return a & 0x80 ? t : -t;
}

function encodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(65536);
  for (let i = 0; i < 65536; i++) table[i] = encode((i << 16) >> 16);
  return table;
}

function decodeTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let i = 0; i < 256; i++) table[i] = decode(i);
  return table;
}

const MULAW_ENCODE = encodeTable(mulawEncodeSample);
const MULAW_DECODE = decodeTable(mulawDecodeSample);
const ALAW_ENCODE = encodeTable(alawEncodeSample);
const ALAW_DECODE = decodeTable(alawDecodeSample);

function encodeWith(table: Uint8Array, samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = table[samples[i] & 0xffff];
  return out;
}

function decodeWith(table: Int16Array, codes: Uint8Array): Int16Array {
  const out = new Int16Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]];
  return out;
}

export const mulaw = {
  encodeSample: (sample: number): number => MULAW_ENCODE[sample & 0xffff],
  decodeSample: (code: number): number => MULAW_DECODE[code & 0xff],
  encode: (samples: Int16Array): Uint8Array => encodeWith(MULAW_ENCODE, samples),
  decode: (codes: Uint8Array): Int16Array => decodeWith(MULAW_DECODE, codes),
};

export const alaw = {
  encodeSample: (sample: number): number => ALAW_ENCODE[sample & 0xffff],
  decodeSample: (code: number): number => ALAW_DECODE[code & 0xff],
  encode: (samples: Int16Array): Uint8Array => encodeWith(ALAW_ENCODE, samples),
  decode: (codes: Uint8Array): Int16Array => decodeWith(ALAW_DECODE, codes),
};
