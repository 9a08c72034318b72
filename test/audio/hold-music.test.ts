import { describe, expect, it } from 'vitest';
import { HOLD_MUSIC_FULL_VOLUME_DBFS, HoldMusic, holdMusicLoop } from '../../src/audio/hold-music.js';
import { rms } from '../../src/audio/pcm.js';
import { goertzelPower } from '../support/dtmf.js';

const dbfs = (samples: Int16Array) => 20 * Math.log10(rms(samples) / 32768);

describe('hold music', () => {
  it.each([8000, 16_000, 24_000])('is a loop of whole bars at %i Hz, at −24 dBFS at full volume', (rate) => {
    const loop = holdMusicLoop(rate);
    // Eight bars at 84 bpm, 4/4: 22.857 s.
    expect(loop.length / rate).toBeCloseTo((8 * 4 * 60) / 84, 2);
    expect(dbfs(loop)).toBeCloseTo(HOLD_MUSIC_FULL_VOLUME_DBFS, 1);
  });

  it('repeats without a seam: the jump from the end to the start is no larger than any step inside', () => {
    const loop = holdMusicLoop(8000);
    let largest = 0;
    for (let i = 1; i < loop.length; i++) largest = Math.max(largest, Math.abs(loop[i]! - loop[i - 1]!));
    expect(Math.abs(loop[0]! - loop[loop.length - 1]!)).toBeLessThanOrEqual(largest);
  });

  it('plays the chord tones: the first note is middle C, not a tone outside the chord', () => {
    const loop = holdMusicLoop(8000);
    // The first eighth note is middle C (261.6 Hz) over the C pad; its power dwarfs a tone that is not played (D♯5, 622 Hz).
    const firstNote = loop.subarray(0, 2000);
    expect(goertzelPower(firstNote, 8000, 261.63)).toBeGreaterThan(20 * goertzelPower(firstNote, 8000, 622.25));
  });

  it.each([0.8, 0.5, 0.1])('plays at the volume asked for (%f), continuing across pieces of any size', (volume) => {
    const music = new HoldMusic(8000, volume);
    const pieces = [music.next(160), music.next(333), music.next(8000 * 30)];
    const joined = Int16Array.from(pieces.flatMap((p) => [...p]));
    const loop = holdMusicLoop(8000);
    for (let i = 0; i < joined.length; i += 997) expect(joined[i]).toBe(Math.round(loop[i % loop.length]! * volume) || 0);
    expect(dbfs(joined.subarray(0, loop.length))).toBeCloseTo(HOLD_MUSIC_FULL_VOLUME_DBFS + 20 * Math.log10(volume), 1);
  });
});
