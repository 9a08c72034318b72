/**
 * Silero (SileroVad) as the voice core's VadModel: the VAD stage (src/voice/vad.ts) on
 * the caller fixtures, 8 kHz μ-law phone audio scored without resampling and 16 kHz audio
 * from a browser. Speech-started lands at the fixture's onset, speech-stopped after it ends.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { SileroVadRunner } from '../../../src/audio/vad/silero.js';
import type { Frame } from '../../../src/voice/frames.js';
import { Pipeline } from '../../../src/voice/pipeline.js';
import { VadStage, type VadModel } from '../../../src/voice/vad.js';
import { FakeClock } from '../../../src/telephony/clock.js';
import { fixture, fixtureAudio } from '../../support/audio-fixtures.js';

const log = pino({ level: 'silent' });
let runner: SileroVadRunner;
beforeAll(async () => {
  runner = await SileroVadRunner.load();
});
afterAll(() => runner.close());

/** Plays `audio` into a VAD stage in 20 ms frames; returns speech-started/stopped times (ms). */
async function events(audio: Int16Array, rate: 8000 | 16_000, modelRate: 8000 | 16_000) {
  const clock = new FakeClock();
  const model: VadModel = runner.open(modelRate);
  const p = new Pipeline([new VadStage({ model, inputRate: rate, threshold: () => 0.5 })], { clock, log });
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  const frame = rate / 50;
  for (let i = 0; i < audio.length; i += frame) {
    await clock.advance(20);
    p.push({ kind: 'audio-in', turn: 0, samples: audio.subarray(i, i + frame), sampleRate: rate, at: clock.now() });
    await new Promise((r) => setImmediate(r)); // let the runner score as audio arrives
  }
  for (let i = 0; i < 50; i++) await new Promise((r) => setTimeout(r, 5));
  return out.filter((f) => f.kind === 'speech-started' || f.kind === 'speech-stopped').map((f) => `${f.kind}@${f.at}`);
}

const at = (e: string) => Number(e.split('@')[1]);

describe('VAD stage with Silero', () => {
  for (const [rate, modelRate] of [[8000, 8000], [16_000, 16_000], [8000, 16_000]] as const) {
    it(`finds the question at its onset and its end (${rate} Hz audio, ${modelRate} Hz model)`, async () => {
      const speechMs = fixture('book-appointment').durationMs - 300; // eSpeak's trailing silence
      const audio = concat([silence(500, rate), fixtureAudio('book-appointment', rate), silence(1000, rate)]);
      const seen = await events(audio, rate, modelRate);
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen[0]).toMatch(/^speech-started/);
      expect(at(seen[0])).toBeGreaterThanOrEqual(500);
      expect(at(seen[0])).toBeLessThan(800);
      const last = seen.at(-1)!;
      expect(last).toMatch(/^speech-stopped/);
      expect(at(last)).toBeGreaterThan(500 + speechMs - 300);
      expect(at(last)).toBeLessThan(500 + speechMs + 300);
    });
  }

  it('stays silent on silence', async () => {
    expect(await events(concat([fixtureAudio('silence', 8000), fixtureAudio('silence', 8000)]), 8000, 8000)).toEqual([]);
  });
});

describe('VAD stage ordering', () => {
  it('applies window scores in window order even when a model answers out of order', async () => {
    const clock = new FakeClock();
    // Speech in windows 2–9 (1-based: samples > 0), answered in reverse order per pair.
    const pending: (() => void)[] = [];
    const model: VadModel = {
      sampleRate: 8000,
      windowSamples: 160,
      probability: (w) =>
        new Promise((resolve) => {
          pending.push(() => resolve(w[0]! > 0 ? 0.9 : 0.1));
          if (pending.length === 2) pending.splice(0).reverse().forEach((answer) => answer());
        }),
    };
    const p = new Pipeline([new VadStage({ model, inputRate: 8000, threshold: () => 0.5, startMs: () => 60, stopMs: 60 })], { clock, log });
    const out: string[] = [];
    p.onOutput((f) => (f.kind === 'speech-started' || f.kind === 'speech-stopped') && out.push(`${f.kind}@${f.at}`));
    for (let i = 0; i < 14; i++) {
      const loud = i >= 2 && i < 10;
      p.push({ kind: 'audio-in', turn: 0, samples: new Int16Array(160).fill(loud ? 1000 : 0), sampleRate: 8000, at: i * 20 });
    }
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    // Started on the third loud window (60 ms), stopped at the first quiet one after them.
    expect(out).toEqual(['speech-started@80', 'speech-stopped@200']);
  });
});
