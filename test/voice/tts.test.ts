/**
 * The TTS stage with the process's resampling thread, as sequences of frames: a 24 kHz voice on an
 * 8 kHz leg becomes `tts-audio` at 8 kHz, sample for sample what the output would have made at
 * playout, with the turn's `tts-spoken` and `tts-done` after their audio; a cancelled turn's
 * audio still in the thread never comes out.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat } from '../../src/audio/pcm.js';
import { Resampler } from '../../src/audio/resample.js';
import { ResampleThread } from '../../src/audio/resample-thread.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { FakeClock } from '../../src/telephony/clock.js';
import type { Frame } from '../../src/voice/frames.js';
import { Pipeline } from '../../src/voice/pipeline.js';
import { TtsStage } from '../../src/voice/tts.js';
import { OpenAiSpeechDouble } from '../support/doubles/openai-speech.js';
import { waitFor } from '../support/wait.js';

const log = pino({ level: 'silent' });
let speech: OpenAiSpeechDouble;
let thread: ResampleThread;

beforeAll(async () => {
  speech = await new OpenAiSpeechDouble(undefined, { chunkBytes: 4801, chunkDelayMs: 5 }).start();
  thread = ResampleThread.start();
  expect(await thread.started).toBe(true);
});
afterAll(async () => {
  await speech.close();
  await thread.close();
});

/** A TTS stage on an 8 kHz leg (with or without the thread) and the frames that come out of it. */
function ttsPipeline(rates: ResampleThread | null) {
  const tts = new OpenAiTts({ baseUrl: speech.baseUrl, apiKey: speech.knobs.apiKey!, model: 'tts-1' });
  const p = new Pipeline([new TtsStage(tts, { voice: 'alloy', sampleRate: 8000, language: 'en' }, rates)], { clock: new FakeClock(), log });
  const out: Frame[] = [];
  p.onOutput((f) => out.push(f));
  return { p, out };
}
const say = (p: Pipeline, turn: number, ...sentences: string[]) => {
  for (const text of sentences) p.push({ kind: 'speak', turn, text, source: 'llm', at: 0 });
  p.push({ kind: 'speak-end', turn, at: 0 });
};
const kinds = (out: Frame[]) => out.filter((f) => f.kind.startsWith('tts-')).map((f) => (f.kind === 'tts-spoken' ? `spoken:${f.text}` : f.kind));
const audio = (out: Frame[]) => out.flatMap((f) => (f.kind === 'tts-audio' ? [f] : []));

describe('TtsStage with the resampling thread', () => {
  it("hands on the leg's rate, the same samples as resampling at playout, each piece's audio before its end", async () => {
    const sentences = ['Your table is booked for eight.', 'Anything else?'];
    const plain = ttsPipeline(null);
    say(plain.p, plain.p.turns.current, ...sentences);
    await waitFor('the plain reply done', () => plain.out.some((f) => f.kind === 'tts-done'), 10_000, 10);
    expect(new Set(audio(plain.out).map((f) => f.sampleRate))).toEqual(new Set([24_000]));

    const threaded = ttsPipeline(thread);
    say(threaded.p, threaded.p.turns.current, ...sentences);
    await waitFor('the threaded reply done', () => threaded.out.some((f) => f.kind === 'tts-done'), 10_000, 10);
    expect(new Set(audio(threaded.out).map((f) => f.sampleRate))).toEqual(new Set([8000]));
    // Same events in the same order, audio only at another rate.
    expect(kinds(threaded.out)).toEqual(kinds(plain.out));
    expect(kinds(threaded.out).at(-1)).toBe('tts-done');
    expect(kinds(threaded.out).indexOf(`spoken:${sentences[0]}`)).toBeLessThan(kinds(threaded.out).lastIndexOf('tts-audio'));
    const r = new Resampler(24_000, 8000);
    const expected = concat(audio(plain.out).map((f) => r.process(f.samples)));
    expect(Array.from(concat(audio(threaded.out).map((f) => f.samples)))).toEqual(Array.from(expected));
  });

  it("drops a cancelled turn's audio still in the thread", async () => {
    const { p, out } = ttsPipeline(thread);
    const turn = p.turns.current;
    say(p, turn, 'This reply is cut off by the caller before a word of it is heard.');
    // Cancel on the first audio's heels: the next chunks are on their way to or back from the thread.
    await waitFor('the first audio', () => audio(out).length > 0, 10_000, 1);
    p.turns.cancel(turn, 'barge-in');
    const heard = audio(out).length;
    await new Promise((r) => setTimeout(r, 200));
    expect(audio(out).length).toBe(heard);
    expect(out.some((f) => f.kind === 'tts-done')).toBe(false);
  });
});
