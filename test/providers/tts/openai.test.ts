import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat } from '../../../src/audio/pcm.js';
import { OpenAiTts } from '../../../src/providers/tts/openai/index.js';
import type { TtsEvent, TtsStream, TtsStreamOptions } from '../../../src/providers/tts/types.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { recordEvents } from '../../support/doubles/recorder.js';
import { OpenAiSpeechDouble } from '../../support/doubles/openai-speech.js';

let double: OpenAiSpeechDouble;
beforeAll(async () => {
  double = await new OpenAiSpeechDouble().start();
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { apiKey: 'tts-test-key', firstByteDelayMs: 0, chunkDelayMs: 0, chunkBytes: 4801, dropAfterChunks: null, failWith: null }));

const tts = (over: Partial<ConstructorParameters<typeof OpenAiTts>[0]> = {}) => new OpenAiTts({ baseUrl: double.baseUrl, apiKey: 'tts-test-key', model: 'tts-1', ...over });
const options: TtsStreamOptions = { voice: 'alloy', sampleRate: 24_000, language: 'en' };

function open(provider = tts(), opts = options) {
  const rec = recordEvents<TtsEvent>();
  const stream: TtsStream = provider.open(opts, rec.emit);
  return { stream, events: rec.events, until: (type: TtsEvent['type']) => rec.until(type).then(() => undefined) };
}

/** The audio before each `spoken`, per piece. */
function piecesOf(events: TtsEvent[]): Int16Array[] {
  const pieces: Int16Array[][] = [[]];
  for (const e of events) {
    if (e.type === 'audio') pieces.at(-1)!.push(e.samples);
    if (e.type === 'spoken') pieces.push([]);
  }
  return pieces.slice(0, -1).map(concat);
}

describe('OpenAI-compatible speech adapter against the /v1/audio/speech double', () => {
  it('posts {model, input, voice, response_format: pcm, speed clamped} with the bearer key', async () => {
    const { stream, until } = open(tts(), { ...options, speed: 9 });
    stream.push('Hello there.');
    stream.end();
    await until('done');
    const req = double.received.at(-1)!;
    expect(req.headers.authorization).toBe('Bearer tts-test-key');
    expect(req.body).toEqual({ model: 'tts-1', input: 'Hello there.', voice: 'alloy', response_format: 'pcm', speed: 4 });
  });

  it('streams real 24 kHz audio (odd chunk sizes joined without a lost byte) that matches each piece, in push order even when a later piece is faster', async () => {
    double.knobs.chunkDelayMs = 5; // the long first piece takes longer than the short second one
    const first = 'This first sentence is a good deal longer than the second.';
    const second = 'Short one.';
    const { stream, events, until } = open();
    stream.push(first);
    stream.push(second);
    stream.end();
    await until('done');
    expect(events.filter((e) => e.type === 'spoken').map((e) => (e as { text: string }).text)).toEqual([first, second]);
    expect(events.at(-1)).toEqual({ type: 'done' });
    const book = new ClipBook();
    book.say(first, 24_000);
    book.say(second, 24_000);
    const [a, b] = piecesOf(events);
    expect(a).toEqual(new ClipBook().say(first, 24_000)); // byte-exact: no sample lost at odd chunk edges
    expect(book.matchAudio(a, 24_000)?.text).toBe(first);
    expect(book.matchAudio(b, 24_000)?.text).toBe(second);
    for (const e of events) if (e.type === 'audio') expect(e.sampleRate).toBe(24_000);
  });

  it('accepts the bare server as base URL (no /v1)', async () => {
    const { stream, until, events } = open(tts({ baseUrl: double.baseUrl.replace(/\/v1$/, '') }));
    stream.push('Okay.');
    stream.end();
    await until('done');
    expect(events.some((e) => e.type === 'audio')).toBe(true);
  });

  it('cancel stops at once: no more events, the request is aborted', async () => {
    double.knobs.chunkDelayMs = 20;
    double.knobs.chunkBytes = 960;
    const { stream, events, until } = open();
    stream.push('A long sentence that the caller interrupts before it is finished.');
    await until('audio');
    stream.cancel();
    const count = events.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(events.length).toBe(count);
    expect(events.some((e) => e.type !== 'audio')).toBe(false);
  });

  it('reports an error status with the server\'s message, and a dropped connection, as errors without done', async () => {
    double.knobs.failWith = 500;
    const failed = open();
    failed.stream.push('Hi.');
    failed.stream.end();
    await failed.until('error');
    expect(failed.events).toEqual([{ type: 'error', message: 'OpenAI-compatible TTS: speech request failed with status 500: The server had an error while processing your request.' }]);

    double.knobs.failWith = null;
    double.knobs.dropAfterChunks = 1;
    const dropped = open();
    dropped.stream.push('A sentence long enough to need several chunks of audio.');
    dropped.stream.end();
    await dropped.until('error');
    expect(dropped.events.at(-1)).toMatchObject({ type: 'error', message: expect.stringContaining('OpenAI-compatible TTS') });
    expect(dropped.events.some((e) => e.type === 'done' || e.type === 'spoken')).toBe(false);
  });

  it('reports a wrong key as a 401 error', async () => {
    const { stream, until, events } = open(tts({ apiKey: 'nope' }));
    stream.push('Hi.');
    await until('error');
    expect(events).toEqual([{ type: 'error', message: 'OpenAI-compatible TTS: speech request failed with status 401: Incorrect API key provided.' }]);
  });

  it('end() with nothing pushed reports done at once, without a request', async () => {
    const before = double.received.length;
    const { stream, events } = open();
    stream.end();
    expect(events).toEqual([{ type: 'done' }]);
    expect(double.received.length).toBe(before);
  });

  it('a whitespace piece between sentences is reported spoken in its place without a request', async () => {
    const before = double.received.length;
    const { stream, events, until } = open();
    stream.push('First.');
    stream.push('  ');
    stream.push('Second.');
    stream.end();
    await until('done');
    expect(events.filter((e) => e.type === 'spoken').map((e) => (e as { text: string }).text)).toEqual(['First.', '  ', 'Second.']);
    expect(double.received.slice(before).map((r) => r.body.input).sort()).toEqual(['First.', 'Second.']); // concurrent requests
  });
});
