import { describe, expect, it } from 'vitest';
import { mulaw } from '../../../src/audio/g711.js';
import { applyGain, concat, silence } from '../../../src/audio/pcm.js';
import { resample } from '../../../src/audio/resample.js';
import { fixtureAudio, fixtureIndex } from '../audio-fixtures.js';
import { ClipBook, EnergySegmenter, correlate, envelope, speechLike, trim } from './clips.js';

const phrases = [
  'Hello, this is Anna from the dental practice.',
  'I would like to book a table for two.',
  'Yes, please.',
  'No, thank you.',
  'Can you call me back tomorrow morning?',
  'My number is four five six.',
];

/** What a phone call does to audio: 24 kHz → 8 kHz, μ-law there and back, quieter. */
const throughThePhone = (samples: Int16Array) => applyGain(mulaw.decode(mulaw.encode(resample(samples, 24_000, 8000))), 0.6);

describe('speech-like synthesizer', () => {
  it('is deterministic, has per-character timings that add up, and gaps no longer than 90 ms', () => {
    const a = speechLike('Hello there. Bye', 16_000);
    const b = speechLike('Hello there. Bye', 16_000);
    expect(a.samples).toEqual(b.samples);
    expect(a.chars).toEqual([...'Hello there. Bye']);
    const total = a.startMs.at(-1)! + a.durationMs.at(-1)!;
    expect(Math.abs(total - (a.samples.length / 16_000) * 1000)).toBeLessThan(2);
    // One utterance: the energy segmenter with a 150 ms end silence sees it as one.
    const seg = new EnergySegmenter(16_000, 150);
    const events = [...seg.push(concat([silence(200, 16_000), a.samples, silence(400, 16_000)]))];
    expect(events.filter((e) => e.type === 'end')).toHaveLength(1);
  });
});

describe('clip matching', () => {
  it('matches audio that went through a phone line to its source above 0.9 and to every other phrase far below', () => {
    const book = new ClipBook();
    for (const p of phrases) book.add(p, speechLike(p, 24_000).samples, 24_000);
    for (const p of phrases) {
      const heard = throughThePhone(speechLike(p, 24_000).samples);
      const own = correlate(trim(envelope(heard, 8000)), trim(envelope(speechLike(p, 24_000).samples, 24_000)));
      expect(own).toBeGreaterThan(0.9);
      expect(book.matchAudio(heard, 8000)?.text).toBe(p);
      for (const other of phrases.filter((o) => o !== p)) {
        expect(correlate(trim(envelope(heard, 8000)), trim(envelope(speechLike(other, 24_000).samples, 24_000)))).toBeLessThan(0.75);
      }
    }
  });

  it('finds nothing for audio that was never registered, and names a partial utterance by its beginning', () => {
    const book = new ClipBook();
    for (const p of phrases) book.say(p, 16_000);
    expect(book.matchAudio(speechLike('Something else entirely was said here.', 16_000).samples, 16_000)).toBeNull();
    const full = speechLike(phrases[4], 16_000).samples;
    const half = full.subarray(0, Math.floor(full.length / 2));
    const prefix = book.matchPrefix(envelope(half, 16_000));
    expect(prefix?.text).toBe(phrases[4]);
    expect(prefix!.fraction).toBeGreaterThan(0.4);
    expect(prefix!.fraction).toBeLessThan(0.6);
  });

  it('segments a stream fed in odd-sized pieces into its utterances with audio-time bounds', () => {
    const rate = 8000;
    const a = speechLike(phrases[2], rate).samples;
    const b = speechLike(phrases[3], rate).samples;
    const stream = concat([silence(300, rate), a, silence(600, rate), b, silence(600, rate)]);
    const seg = new EnergySegmenter(rate, 300);
    const events = [];
    for (let i = 0; i < stream.length; i += 333) events.push(...seg.push(stream.subarray(i, i + 333)));
    const ends = events.flatMap((e) => (e.type === 'end' ? [e.utterance] : []));
    expect(events.filter((e) => e.type === 'start')).toHaveLength(2);
    expect(ends).toHaveLength(2);
    expect(ends[0].startMs).toBeGreaterThanOrEqual(290);
    expect(ends[0].startMs).toBeLessThanOrEqual(330);
    const book = new ClipBook().add(phrases[2], a, rate).add(phrases[3], b, rate);
    expect(ends.map((u) => book.match(u.env)?.text)).toEqual([phrases[2], phrases[3]]);
  });

  it('real speech (the eSpeak fixtures): the 8 kHz μ-law file matches its 16 kHz source above 0.9, and no other fixture', () => {
    const speech = fixtureIndex.filter((f) => f.kind !== 'silence');
    const book = new ClipBook();
    for (const f of speech) book.add(f.text, fixtureAudio(f.name, 16_000), 16_000);
    const scores: string[] = [];
    for (const f of speech) {
      const phone = fixtureAudio(f.name, 8000);
      const own = correlate(trim(envelope(phone, 8000)), trim(envelope(fixtureAudio(f.name, 16_000), 16_000)));
      scores.push(`${f.name}: ${own.toFixed(3)}`);
      expect(own).toBeGreaterThan(0.9);
      expect(book.matchAudio(phone, 8000)?.text).toBe(f.text);
    }
    expect(book.matchAudio(fixtureAudio('silence', 16_000), 16_000)).toBeNull();
  });
});
