import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat, silence } from '../../../src/audio/pcm.js';
import { OpenAiStt } from '../../../src/providers/stt/openai/index.js';
import type { SttEvent, SttStreamOptions } from '../../../src/providers/stt/types.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { OpenAiTranscriptionDouble } from '../../support/doubles/openai-transcription.js';

const clips = new ClipBook();
let double: OpenAiTranscriptionDouble;
const RATE = 16_000;
const FIRST = 'I would like to move my appointment.';
const SECOND = 'Thursday afternoon works for me.';

beforeAll(async () => {
  double = await new OpenAiTranscriptionDouble(clips).start();
  clips.say(FIRST, RATE);
  clips.say(SECOND, RATE);
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { apiKey: 'stt-test-key', delayMs: 0, failWith: null, segmentation: 'energy' }));

const stt = (over: Partial<ConstructorParameters<typeof OpenAiStt>[0]> = {}) => new OpenAiStt({ baseUrl: double.baseUrl, apiKey: 'stt-test-key', model: 'whisper-1', ...over });
const options: SttStreamOptions = { sampleRate: RATE, language: 'en', keywords: ['Anna', 'Dr. Weber'] };
const spoken = (text: string) => concat([silence(150, RATE), clips.say(text, RATE), silence(150, RATE)]);

async function open(provider = stt()) {
  const events: SttEvent[] = [];
  const stream = await provider.open(options, (e) => events.push(e));
  return { stream, events };
}

describe('OpenAI-compatible transcription adapter against the /v1/audio/transcriptions double', () => {
  it('uploads the utterance as a WAV with model, language, prompt and json format, and reports one final transcript and utterance-end', async () => {
    const { stream, events } = await open();
    stream.write(spoken(FIRST));
    stream.finalize();
    await stream.close();
    const req = double.received.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer stt-test-key');
    expect(req.fields).toEqual({ model: 'whisper-1', language: 'en', response_format: 'json', prompt: 'Anna, Dr. Weber' });
    expect(req.file).toMatchObject({ name: 'utterance.wav', type: 'audio/wav', sampleRate: RATE });
    expect(events).toEqual([
      { type: 'transcript', text: FIRST, isFinal: true, speechFinal: true },
      { type: 'utterance-end' },
    ]);
  });

  it('reports utterances in the order they were finalized even when the first answer is slower', async () => {
    const { stream, events } = await open();
    double.knobs.delayMs = 200;
    stream.write(spoken(FIRST));
    stream.finalize();
    double.knobs.delayMs = 0; // the second request is answered at once
    stream.write(spoken(SECOND));
    stream.finalize();
    await stream.close();
    expect(events.flatMap((e) => (e.type === 'transcript' ? [e.text] : []))).toEqual([FIRST, SECOND]);
  });

  it('keeps the audio between finalizes apart: each request carries only its own utterance', async () => {
    const { stream } = await open();
    const before = double.received.length;
    stream.write(spoken(FIRST));
    stream.finalize();
    stream.write(spoken(SECOND));
    stream.finalize();
    await stream.close();
    expect(double.received.slice(before).map((r) => r.text)).toEqual([FIRST, SECOND]);
  });

  it('a failed request is a non-fatal error and an empty final, and the stream stays usable', async () => {
    const { stream, events } = await open();
    double.knobs.failWith = 503;
    stream.write(spoken(FIRST));
    stream.finalize();
    await new Promise((r) => setTimeout(r, 100));
    double.knobs.failWith = null;
    stream.write(spoken(SECOND));
    stream.finalize();
    await stream.close();
    expect(events).toEqual([
      { type: 'error', message: 'transcription failed with status 503: The server had an error while processing your request.', fatal: false },
      { type: 'transcript', text: '', isFinal: true, speechFinal: true },
      { type: 'utterance-end' },
      { type: 'transcript', text: SECOND, isFinal: true, speechFinal: true },
      { type: 'utterance-end' },
    ]);
  });

  it('a finalize with no audio sends no request and reports an empty final', async () => {
    const { stream, events } = await open();
    const before = double.received.length;
    stream.finalize();
    await stream.close();
    expect(double.received.length).toBe(before);
    expect(events).toEqual([{ type: 'transcript', text: '', isFinal: true, speechFinal: true }, { type: 'utterance-end' }]);
  });

  it('times out a server that does not answer, as an error naming it', async () => {
    double.knobs.delayMs = 1000;
    const { stream, events } = await open(stt({ timeoutMs: 200 }));
    stream.write(spoken(FIRST));
    stream.finalize();
    await stream.close();
    expect(events[0]).toMatchObject({ type: 'error', fatal: false });
    expect(events.slice(1)).toEqual([{ type: 'transcript', text: '', isFinal: true, speechFinal: true }, { type: 'utterance-end' }]);
  });

  it('a wrong key is reported with the server\'s message', async () => {
    const { stream, events } = await open(stt({ apiKey: 'wrong' }));
    stream.write(spoken(FIRST));
    stream.finalize();
    await stream.close();
    expect(events[0]).toEqual({ type: 'error', message: 'transcription failed with status 401: Incorrect API key provided.', fatal: false });
  });
});

describe('transcription double', () => {
  it('answers text and verbose_json with segments per utterance', async () => {
    const { writeWav } = await import('../../../src/audio/wav.js');
    const form = () => {
      const f = new FormData();
      f.append('file', new Blob([new Uint8Array(writeWav(RATE, concat([spoken(FIRST), silence(400, RATE), spoken(SECOND)])))], { type: 'audio/wav' }), 'a.wav');
      f.append('model', 'whisper-1');
      return f;
    };
    const text = form();
    text.append('response_format', 'text');
    const res = await fetch(`${double.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer stt-test-key' }, body: text });
    expect(await res.text()).toBe(`${FIRST} ${SECOND}`);
    const verbose = form();
    verbose.append('response_format', 'verbose_json');
    const json = await (await fetch(`${double.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer stt-test-key' }, body: verbose })).json();
    expect(json.segments.map((s: { text: string }) => s.text.trim())).toEqual([FIRST, SECOND]);
    expect(json.segments[1].start).toBeGreaterThan(json.segments[0].end);
    const missing = new FormData();
    missing.append('model', 'whisper-1');
    const bad = await fetch(`${double.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer stt-test-key' }, body: missing });
    expect(bad.status).toBe(400);
  });

  it('cuts real speech with Silero VAD when asked (segmentation: silero): two fixtures in one file, both named', async () => {
    const { fixtureAudio, fixtureIndex } = await import('../../support/audio-fixtures.js');
    const { writeWav } = await import('../../../src/audio/wav.js');
    const book = new ClipBook();
    const silero = await new OpenAiTranscriptionDouble(book, { segmentation: 'silero' }).start();
    try {
      for (const f of fixtureIndex) if (f.kind !== 'silence') book.add(f.text, fixtureAudio(f.name, 16_000), 16_000);
      const f = new FormData();
      const audio = concat([silence(300, 8000), fixtureAudio('book-appointment', 8000), silence(900, 8000), fixtureAudio('yes-that-works', 8000), silence(300, 8000)]);
      f.append('file', new Blob([new Uint8Array(writeWav(8000, audio))], { type: 'audio/wav' }), 'a.wav');
      f.append('model', 'whisper-1');
      f.append('response_format', 'verbose_json');
      const res = await fetch(`${silero.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer stt-test-key' }, body: f });
      const json = await res.json();
      expect(json.text).toBe('I would like to book an appointment for tomorrow. Yes, that works for me.');
      expect(json.segments).toHaveLength(2);
    } finally {
      await silero.close();
    }
  });
});
