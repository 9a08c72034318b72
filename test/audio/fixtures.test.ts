/**
 * The checked-in caller-speech fixtures are what their index says: the right rates and
 * lengths, speech where speech is (and the same speech at both rates), none in the silence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rms } from '../../src/audio/pcm.js';
import { readWav } from '../../src/audio/wav.js';
import { FIXTURE_DIR, fixtureAudio, fixtureIndex } from '../support/audio-fixtures.js';

/** RMS per 20 ms frame. */
function envelope(samples: Int16Array, sampleRate: number): number[] {
  const n = sampleRate / 50;
  const out: number[] = [];
  for (let at = 0; at + n <= samples.length; at += n) out.push(rms(samples.subarray(at, at + n)));
  return out;
}

function pearson(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const mean = (x: number[]) => x.slice(0, n).reduce((s, v) => s + v, 0) / n;
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0, da = 0, db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

describe('caller-speech fixtures', () => {
  it('has the kinds of utterance the voice tests need', () => {
    const kinds = new Set(fixtureIndex.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['answer', 'backchannel', 'interruption', 'question', 'silence', 'voicemail']);
    expect(fixtureIndex.map((c) => c.name)).toEqual(expect.arrayContaining(['book-appointment', 'mhm', 'yeah', 'wait-stop', 'hold-on', 'long-interruption', 'silence', 'voicemail-greeting']));
  });

  it('stays small (checked into the repository)', () => {
    const bytes = fs.readdirSync(FIXTURE_DIR).reduce((n, f) => n + fs.statSync(path.join(FIXTURE_DIR, f)).size, 0);
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  for (const clip of fixtureIndex) {
    it(`${clip.name}: 16 kHz PCM16 and 8 kHz μ-law of the indexed length${clip.kind === 'silence' ? ', silent' : ', the same speech at both rates'}`, () => {
      const wide = readWav(fs.readFileSync(path.join(FIXTURE_DIR, clip.file)));
      const narrow = readWav(fs.readFileSync(path.join(FIXTURE_DIR, clip.file8k)));
      expect([wide.sampleRate, wide.encoding, wide.channels.length]).toEqual([16_000, 'pcm16', 1]);
      expect([narrow.sampleRate, narrow.encoding, narrow.channels.length]).toEqual([8000, 'mulaw', 1]);
      expect(Math.abs(wide.channels[0].length / 16 - clip.durationMs)).toBeLessThanOrEqual(1);
      expect(Math.abs(narrow.channels[0].length / 8 - clip.durationMs)).toBeLessThan(30);
      const [a, b] = [fixtureAudio(clip.name, 16_000), fixtureAudio(clip.name, 8000)];
      if (clip.kind === 'silence') {
        expect(rms(a)).toBe(0);
        expect(rms(b)).toBeLessThan(10);
      } else {
        expect(rms(a)).toBeGreaterThan(1000);
        expect(pearson(envelope(a, 16_000), envelope(b, 8000))).toBeGreaterThan(0.9);
      }
    });
  }
});
