/**
 * Silero VAD v5 on the real caller-speech fixtures: speech found where speech is, none in
 * silence, at 16 kHz and on 8 kHz μ-law phone audio; batching many calls into one inference
 * gives each call exactly what it would get alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { detectSpeech, type SpeechSegment } from '../../../src/audio/vad/detector.js';
import { SileroVadRunner, type VadRate } from '../../../src/audio/vad/silero.js';
import { fixtureAudio } from '../../support/audio-fixtures.js';

let runner: SileroVadRunner;
beforeAll(async () => {
  runner = await SileroVadRunner.load();
});
afterAll(() => runner.close());

/** Where a clip's sound is (the truth): first to last sample above an amplitude of 300. */
function soundSpan(samples: Int16Array, rate: number): SpeechSegment {
  let first = -1;
  let last = -1;
  samples.forEach((s, i) => {
    if (Math.abs(s) > 300) {
      if (first < 0) first = i;
      last = i;
    }
  });
  return { startMs: (first / rate) * 1000, endMs: (last / rate) * 1000 };
}

/** 1 s silence, the question, 1.5 s silence, the long interruption, 1 s silence. */
function conversation(rate: VadRate) {
  const question = fixtureAudio('book-appointment', rate);
  const interruption = fixtureAudio('long-interruption', rate);
  const audio = concat([silence(1000, rate), question, silence(1500, rate), interruption, silence(1000, rate)]);
  const q = soundSpan(question, rate);
  const i = soundSpan(interruption, rate);
  const qOffset = 1000;
  const iOffset = 1000 + (question.length / rate) * 1000 + 1500;
  return {
    audio,
    truth: [
      { startMs: qOffset + q.startMs, endMs: qOffset + q.endMs },
      { startMs: iOffset + i.startMs, endMs: iOffset + i.endMs },
    ],
  };
}

const overlap = (a: SpeechSegment, b: SpeechSegment) => Math.max(0, Math.min(a.endMs, b.endMs) - Math.max(a.startMs, b.startMs));

describe('Silero VAD on the caller fixtures', () => {
  for (const rate of [16_000, 8000] as const) {
    it(`finds both utterances and nothing in the silences (${rate} Hz${rate === 8000 ? ', μ-law' : ''})`, async () => {
      const { audio, truth } = conversation(rate);
      const segments = await detectSpeech(runner.open(rate), audio, rate);
      expect(segments.length).toBeGreaterThanOrEqual(2);
      for (const segment of segments) {
        // Every segment lies on an utterance (pad and hangover allowed), none in the silences.
        expect(truth.some((t) => overlap(segment, t) > 0)).toBe(true);
        expect(truth.some((t) => segment.startMs >= t.startMs - 150 && segment.endMs <= t.endMs + 400)).toBe(true);
      }
      for (const t of truth) {
        const covering = segments.filter((s) => overlap(s, t) > 0);
        expect(covering.length).toBeGreaterThanOrEqual(1);
        // Onset within 150 ms of the sound's onset, and most of the utterance is speech.
        expect(Math.abs(covering[0].startMs - t.startMs)).toBeLessThan(150);
        const covered = covering.reduce((n, s) => n + overlap(s, t), 0);
        expect(covered / (t.endMs - t.startMs)).toBeGreaterThan(0.8);
      }
    });
  }

  it('hears no speech in silence', async () => {
    for (const rate of [16_000, 8000] as const) {
      expect(await detectSpeech(runner.open(rate), fixtureAudio('silence', rate), rate)).toEqual([]);
    }
  });

  it('hears a backchannel as one short utterance', async () => {
    const audio = concat([silence(500, 16_000), fixtureAudio('mhm'), silence(500, 16_000)]);
    const segments = await detectSpeech(runner.open(16_000), audio, 16_000);
    expect(segments).toHaveLength(1);
    expect(segments[0].endMs - segments[0].startMs).toBeLessThan(900);
  });

  it('resamples audio at other rates (24 kHz TTS audio)', async () => {
    const { resample } = await import('../../../src/audio/resample.js');
    const audio = concat([silence(500, 24_000), resample(fixtureAudio('wait-stop'), 16_000, 24_000), silence(500, 24_000)]);
    const segments = await detectSpeech(runner.open(16_000), audio, 24_000);
    expect(segments).toHaveLength(1);
    expect(segments[0].startMs).toBeGreaterThan(350);
    expect(segments[0].startMs).toBeLessThan(650);
  });

  it('reports a failed window at the end instead of losing it', async () => {
    const closing = await SileroVadRunner.load();
    const { VoiceActivityDetector } = await import('../../../src/audio/vad/detector.js');
    const detector = new VoiceActivityDetector(closing.open(16_000), () => undefined);
    detector.push(fixtureAudio('book-appointment'));
    closing.close();
    await expect(detector.end()).rejects.toThrow('the VAD runner is closed');
  });

  it('refuses a window of the wrong size', async () => {
    await expect(runner.open(8000).probability(new Int16Array(512))).rejects.toThrow(/256 samples, not 512/);
  });
});

describe('batched inference', () => {
  it('gives every call exactly the probabilities it gets alone, in one inference per window step', async () => {
    const single = await SileroVadRunner.load({ maxBatch: 1 });
    try {
      const clips = ['book-appointment', 'mhm', 'wait-stop', 'silence', 'long-interruption', 'yeah'].map((n) => fixtureAudio(n, 8000));
      const windows = 40;
      const windowsOf = (clip: Int16Array) => Array.from({ length: windows }, (_, w) => {
        const out = new Int16Array(256);
        out.set(clip.subarray(w * 256, (w + 1) * 256));
        return out;
      });
      // Alone: one call at a time through the unbatched runner.
      const alone: number[][] = [];
      for (const clip of clips) {
        const vad = single.open(8000);
        const ps: number[] = [];
        for (const w of windowsOf(clip)) ps.push(await vad.probability(w));
        alone.push(ps);
      }
      // Together: all calls' windows submitted at once to the batching runner.
      const before = { ...runner.stats };
      const together = await Promise.all(clips.map((clip) => {
        const vad = runner.open(8000);
        return Promise.all(windowsOf(clip).map((w) => vad.probability(w)));
      }));
      for (let c = 0; c < clips.length; c++) {
        for (let w = 0; w < windows; w++) expect(together[c][w]).toBeCloseTo(alone[c][w], 5);
      }
      expect(runner.stats.windows - before.windows).toBe(clips.length * windows);
      expect(runner.stats.inferences - before.inferences).toBe(windows);
      // Speech scores high somewhere in the question and never in the silence.
      expect(Math.max(...alone[0])).toBeGreaterThan(0.8);
      expect(Math.max(...alone[3])).toBeLessThan(0.2);
    } finally {
      single.close();
    }
  });
});

describe('inference thread', () => {
  it('scores the same on the worker thread (the default) as in this thread', async () => {
    const inThread = await SileroVadRunner.load({ thread: 'main' });
    try {
      const clip = fixtureAudio('book-appointment', 8000);
      const worker = runner.open(8000);
      const main = inThread.open(8000);
      for (let w = 0; w < 30; w++) {
        const window = clip.slice(w * 256, (w + 1) * 256);
        expect(await worker.probability(window)).toBeCloseTo(await main.probability(window), 5);
      }
    } finally {
      inThread.close();
    }
  });

  it('fails the windows of a closed runner instead of hanging', async () => {
    const closing = await SileroVadRunner.load();
    const vad = closing.open(8000);
    const pending = Promise.all(Array.from({ length: 5 }, () => vad.probability(new Int16Array(256))));
    closing.close();
    await expect(pending).rejects.toThrow('the VAD runner is closed');
    await expect(vad.probability(new Int16Array(256))).rejects.toThrow('the VAD runner is closed');
  });
});
