import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { concat } from '../../../src/audio/pcm.js';
import { ElevenLabsTts, elevenLabsRate } from '../../../src/providers/tts/elevenlabs/index.js';
import type { TtsEvent, TtsStream, TtsStreamOptions } from '../../../src/providers/tts/types.js';
import { ClipBook } from '../../support/doubles/clips.js';
import { recordEvents } from '../../support/doubles/recorder.js';
import { ElevenLabsDouble } from '../../support/doubles/elevenlabs.js';

let double: ElevenLabsDouble;

beforeAll(async () => {
  double = await new ElevenLabsDouble().start();
});
afterAll(() => double.close());
beforeEach(() => Object.assign(double.knobs, { firstAudioDelayMs: 0, chunkDelayMs: 0, chunkMs: 100, failAfterChunks: null }));

const tts = (over: Partial<ConstructorParameters<typeof ElevenLabsTts>[0]> = {}) =>
  new ElevenLabsTts({ url: double.url, apiKey: double.knobs.apiKey, model: 'eleven_flash_v2_5', ...over });
const options: TtsStreamOptions = { voice: 'voice-anna', sampleRate: 16_000, language: 'de', stability: 0.4, similarity: 0.8, speed: 1.5 };

function open(provider = tts(), opts = options) {
  const rec = recordEvents<TtsEvent>();
  const stream: TtsStream = provider.open(opts, rec.emit);
  return { stream, events: rec.events, until: (type: TtsEvent['type']) => rec.until(type).then(() => undefined) };
}

const audioOf = (events: TtsEvent[]) => concat(events.flatMap((e) => (e.type === 'audio' ? [e.samples] : [])));

describe('ElevenLabs stream-input adapter against the ElevenLabs double', () => {
  it('opens with the init message (one space, voice settings, speed clamped), sends each piece flushed, ends with ""', async () => {
    const { stream, until } = open();
    stream.push('Guten Tag.');
    stream.push('Wie kann ich helfen?');
    stream.end();
    await until('done');
    const record = double.streams.at(-1)!;
    expect(record.voice).toBe('voice-anna');
    expect(Object.fromEntries(record.query)).toMatchObject({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000', language_code: 'de', inactivity_timeout: '60' });
    expect(record.received).toEqual([
      { text: ' ', voice_settings: { stability: 0.4, similarity_boost: 0.8, speed: 1.2 } },
      { text: 'Guten Tag. ', flush: true },
      { text: 'Wie kann ich helfen? ', flush: true },
      { text: '' },
    ]);
  });

  it('delivers real audio that matches each sentence back, reports each piece spoken in order after its audio, then done', async () => {
    const { stream, events, until } = open(tts(), { ...options, speed: undefined });
    stream.push('Hello, this is Anna.');
    stream.push('How can I help you today?');
    stream.end();
    await until('done');
    const kinds = events.map((e) => (e.type === 'spoken' ? `spoken:${e.text}` : e.type));
    expect(kinds.at(-1)).toBe('done');
    const firstSpoken = kinds.indexOf('spoken:Hello, this is Anna.');
    const secondSpoken = kinds.indexOf('spoken:How can I help you today?');
    expect(firstSpoken).toBeGreaterThan(kinds.indexOf('audio'));
    expect(secondSpoken).toBeGreaterThan(firstSpoken);
    expect(kinds.slice(firstSpoken + 1, secondSpoken)).toContain('audio');
    for (const e of events) if (e.type === 'audio') expect(e.sampleRate).toBe(16_000);
    // The audio before each `spoken` is that sentence: name it with a book of the sentences.
    const book = new ClipBook();
    book.say('Hello, this is Anna.', 16_000);
    book.say('How can I help you today?', 16_000);
    const pieces: Int16Array[][] = [[]];
    for (const e of events) {
      if (e.type === 'audio') pieces.at(-1)!.push(e.samples);
      if (e.type === 'spoken') pieces.push([]);
    }
    const heard = pieces.slice(0, 2).map((p) => book.matchAudio(concat(p), 16_000));
    expect(heard.map((h) => h?.text)).toEqual(['Hello, this is Anna.', 'How can I help you today?']);
    for (const h of heard) expect(h!.score).toBeGreaterThan(0.9);
  });

  it('passes the character alignment through, chunk-relative, covering the text', async () => {
    const { stream, events, until } = open();
    stream.push('Eins zwei drei.');
    stream.end();
    await until('done');
    const aligned = events.flatMap((e) => (e.type === 'audio' && e.alignment ? e.alignment.chars : [])).join('');
    expect(aligned.trim()).toBe('Eins zwei drei.');
    for (const e of events) {
      if (e.type !== 'audio' || !e.alignment) continue;
      expect(e.alignment.startMs.length).toBe(e.alignment.chars.length);
      const chunkMs = (e.samples.length / e.sampleRate) * 1000;
      for (const t of e.alignment.startMs) {
        expect(t).toBeGreaterThanOrEqual(0);
        expect(t).toBeLessThan(chunkMs + 1);
      }
    }
  });

  it('asks for the next higher PCM rate when the wanted one is not offered', () => {
    expect(elevenLabsRate(8000)).toBe(8000);
    expect(elevenLabsRate(12_000)).toBe(16_000);
    expect(elevenLabsRate(96_000)).toBe(48_000);
    expect(tts().streamUrl({ ...options, sampleRate: 12_000 }).url).toContain('output_format=pcm_16000');
    expect(tts({ model: 'eleven_multilingual_v2' }).streamUrl(options).url).not.toContain('language_code');
  });

  it('cancel mid-stream closes the socket at once and nothing follows', async () => {
    double.knobs.chunkDelayMs = 30;
    const { stream, events, until } = open();
    stream.push('This is a long sentence that takes a while to say out loud.');
    await until('audio');
    stream.cancel();
    const count = events.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(events.length).toBe(count);
    expect(events.some((e) => e.type === 'done' || e.type === 'spoken' || e.type === 'error')).toBe(false);
    expect(double.streams.at(-1)!.closedByClient).toBe(true);
    expect(double.streams.at(-1)!.audioChunks).toBeLessThan(10);
  });

  it('reports a refused key as an error naming the status', async () => {
    const { until, events } = open(tts({ apiKey: 'wrong' }));
    await until('error');
    expect(events).toEqual([{ type: 'error', message: 'ElevenLabs refused the connection: HTTP 401 Unauthorized' }]);
  });

  it('reports a close in the middle of the audio as an error, with no done', async () => {
    double.knobs.failAfterChunks = 2;
    const { stream, events, until } = open();
    stream.push('A sentence long enough for several chunks of audio.');
    stream.end();
    await until('error');
    await new Promise((r) => setTimeout(r, 50));
    expect(events.filter((e) => e.type === 'audio')).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: 'error', message: 'ElevenLabs: An internal server error occurred.' });
    expect(events.some((e) => e.type === 'done')).toBe(false);
  });

  it('asks for pcm_8000 for telephony, and reports whitespace pieces are reported spoken without a request', async () => {
    const { stream, events, until } = open(tts(), { ...options, sampleRate: 8000 });
    stream.push('Ja.');
    stream.push('   ');
    stream.end();
    await until('done');
    expect(double.streams.at(-1)!.query.get('output_format')).toBe('pcm_8000');
    expect(events.filter((e) => e.type === 'spoken').map((e) => (e as { text: string }).text)).toEqual(['Ja.', '   ']);
    expect(double.streams.at(-1)!.received.map((m) => m.text)).toEqual([' ', 'Ja. ', '']);
  });

  it('cancel before the socket is open leaves no events and no stream behind', async () => {
    const before = double.streams.length;
    const { stream, events } = open();
    stream.push('Never said.');
    stream.cancel();
    await new Promise((r) => setTimeout(r, 150));
    expect(events).toEqual([]);
    // Either the handshake never completed or the double saw the client close it.
    for (const s of double.streams.slice(before)) expect(s.spoken).toEqual([]);
  });

  it('waits out a slow first audio and keeps pieces in order across several flushes', async () => {
    double.knobs.firstAudioDelayMs = 80;
    const { stream, events, until } = open();
    for (const t of ['One.', 'Two.', 'Three.']) stream.push(t);
    stream.end();
    await until('done');
    expect(events.filter((e) => e.type === 'spoken').map((e) => (e as { text: string }).text)).toEqual(['One.', 'Two.', 'Three.']);
    expect(double.streams.at(-1)!.spoken).toEqual(['One. ', 'Two. ', 'Three. ']);
  });
});
