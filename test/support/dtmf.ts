/**
 * A DTMF detector for tests (Goertzel): tells which keys a stretch of audio carries, the way a
 * phone menu's receiver would — per 20 ms block, the strongest row and column tone, each well
 * above the other tones of its group and together most of the block's energy; a key counts
 * once it holds for two blocks in a row, and again only after a gap.
 */
import { DTMF_FREQUENCIES } from '../../src/audio/dtmf.js';

const ROWS = [697, 770, 852, 941];
const COLUMNS = [1209, 1336, 1477, 1633];

/** Power of `freq` in `x` (Goertzel). */
export function goertzelPower(x: ArrayLike<number>, sampleRate: number, freq: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * freq) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < x.length; i++) {
    const s0 = x[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}

function keyOf(row: number, column: number): string {
  return Object.entries(DTMF_FREQUENCIES).find(([, [r, c]]) => r === row && c === column)![0];
}

/** The key a block carries, or null. */
function blockKey(block: Int16Array, sampleRate: number): string | null {
  let energy = 0;
  for (const v of block) energy += v * v;
  if (energy / block.length < 200 * 200) return null; // quieter than about -44 dBFS: silence
  const best = (freqs: number[]) => {
    const powers = freqs.map((f) => goertzelPower(block, sampleRate, f));
    const sorted = [...powers].sort((a, b) => b - a);
    return { freq: freqs[powers.indexOf(sorted[0])]!, power: sorted[0], second: sorted[1] };
  };
  const row = best(ROWS);
  const column = best(COLUMNS);
  // Each tone stands out of its group by 10 dB; together they carry most of the energy.
  if (row.power < 10 * row.second || column.power < 10 * column.second) return null;
  const toneEnergy = ((row.power + column.power) * 2) / block.length;
  if (toneEnergy < 0.5 * energy) return null;
  return keyOf(row.freq, column.freq);
}

/** The keys in `samples` (PCM16 mono), in order. */
export function detectDtmf(samples: Int16Array, sampleRate: number): string {
  const size = Math.round(sampleRate / 50);
  let out = '';
  let previous: string | null = null;
  let held = 0;
  let emitted = false;
  for (let i = 0; i + size <= samples.length; i += size) {
    const key = blockKey(samples.subarray(i, i + size), sampleRate);
    if (key !== null && key === previous) held++;
    else {
      held = key === null ? 0 : 1;
      emitted = false;
    }
    previous = key;
    if (key !== null && held >= 2 && !emitted) {
      out += key;
      emitted = true;
    }
  }
  return out;
}
