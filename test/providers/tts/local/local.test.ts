import { afterAll, describe, expect, it } from 'vitest';
import { rms } from '../../../../src/audio/pcm.js';
import { EspeakPool, LocalTts, espeakVoice, wordsPerMinute } from '../../../../src/providers/tts/local/index.js';
import type { TtsEvent, TtsStreamOptions } from '../../../../src/providers/tts/types.js';

const tts = new LocalTts({ size: 1 });
afterAll(() => tts.close());

/** Runs one reply through a stream; resolves with its events once `done` or `error` arrives. */
function speak(provider: LocalTts, options: TtsStreamOptions, pieces: string[]): Promise<TtsEvent[]> {
  return new Promise((resolve) => {
    const events: TtsEvent[] = [];
    const stream = provider.open(options, (event) => {
      events.push(event);
      if (event.type === 'done' || event.type === 'error') resolve(events);
    });
    for (const piece of pieces) stream.push(piece);
    stream.end();
  });
}

const audioOf = (events: TtsEvent[]) => events.flatMap((e) => (e.type === 'audio' ? [e] : []));
const samplesOf = (events: TtsEvent[]) => audioOf(events).reduce((n, e) => n + e.samples.length, 0);

describe('local voice ids', () => {
  it('maps voice ids and the assistant language to eSpeak voices', () => {
    expect(espeakVoice('female', 'en')).toBe('en-us+f3');
    expect(espeakVoice('male', 'en')).toBe('en-us');
    expect(espeakVoice('male', 'de')).toBe('de');
    expect(espeakVoice('en-gb', 'de')).toBe('en-gb');
    expect(espeakVoice('en-gb+female', 'en')).toBe('en-gb+f3');
    expect(espeakVoice('en-us+m3', 'en')).toBe('en-us+m3');
    expect(espeakVoice('', 'en')).toBe('en-us');
  });

  it('refuses ids that could be taken for command-line options', () => {
    expect(() => espeakVoice('-w /etc/x', 'en')).toThrow(/not a local voice/);
    expect(() => espeakVoice('en+f3 -p 99', 'en')).toThrow(/not a local voice/);
  });

  it('turns the speaking-rate factor into words per minute within eSpeak limits', () => {
    expect(wordsPerMinute()).toBe(175);
    expect(wordsPerMinute(2)).toBe(350);
    expect(wordsPerMinute(0.1)).toBe(80);
    expect(wordsPerMinute(10)).toBe(450);
  });
});

describe('local voice (eSpeak NG in a child process)', () => {
  it('is available and reuses one eSpeak instance', async () => {
    expect(tts.available).toBe(true);
    expect(await tts.status()).toEqual({ available: true, reusesInstance: true });
  });

  it('speaks pushed pieces in order at the requested rate, then reports done', async () => {
    const events = await speak(tts, { voice: 'female', language: 'en', sampleRate: 16_000 }, [
      'Hello there.',
      ' ',
      'I would like to book an appointment for tomorrow.',
    ]);
    const kinds = events.filter((e) => e.type !== 'audio');
    expect(kinds).toEqual([
      { type: 'spoken', text: 'Hello there.' },
      { type: 'spoken', text: ' ' },
      { type: 'spoken', text: 'I would like to book an appointment for tomorrow.' },
      { type: 'done' },
    ]);
    const audio = audioOf(events);
    expect(audio.every((e) => e.sampleRate === 16_000 && e.samples.length <= 1600)).toBe(true);
    // Audio of the first piece comes before its `spoken`, the second's after it.
    const firstSpoken = events.findIndex((e) => e.type === 'spoken');
    const firstAudio = audioOf(events.slice(0, firstSpoken));
    const firstSeconds = firstAudio.reduce((n, e) => n + e.samples.length, 0) / 16_000;
    const totalSeconds = samplesOf(events) / 16_000;
    expect(firstSeconds).toBeGreaterThan(0.5);
    expect(firstSeconds).toBeLessThan(2);
    expect(totalSeconds).toBeGreaterThan(firstSeconds + 2);
    expect(totalSeconds).toBeLessThan(6);
    // It is sound, not silence.
    const all = new Int16Array(samplesOf(events));
    let at = 0;
    for (const e of audio) (all.set(e.samples, at), (at += e.samples.length));
    expect(rms(all)).toBeGreaterThan(500);
  });

  it('speaks faster with a higher speed and differently with another voice', async () => {
    const text = ['Please hold on while I check the calendar.'];
    const normal = samplesOf(await speak(tts, { voice: 'en-us', language: 'en', sampleRate: 8000 }, text));
    const fast = samplesOf(await speak(tts, { voice: 'en-us', language: 'en', sampleRate: 8000, speed: 1.6 }, text));
    expect(fast).toBeLessThan(normal * 0.8);
    const british = samplesOf(await speak(tts, { voice: 'en-gb', language: 'en', sampleRate: 8000 }, text));
    expect(british).not.toBe(normal);
  });

  it('stops at once on cancel: no events follow', async () => {
    const events: TtsEvent[] = [];
    const stream = tts.open({ voice: 'male', language: 'en', sampleRate: 8000 }, (e) => events.push(e));
    stream.push('This reply is interrupted before it is heard.');
    stream.push('And this sentence never gets spoken.');
    stream.cancel();
    stream.end();
    // A later reply on the same pool is still answered (the cancelled work did not jam it).
    const next = await speak(tts, { voice: 'male', language: 'en', sampleRate: 8000 }, ['Next.']);
    expect(next.at(-1)).toEqual({ type: 'done' });
    expect(events).toEqual([]);
  });

  it('reports a malformed voice id as an error event', async () => {
    const events = await speak(tts, { voice: '--help', language: 'en', sampleRate: 8000 }, ['Hello.']);
    expect(events).toEqual([{ type: 'error', message: expect.stringMatching(/not a local voice/) }]);
  });

  it('synthesises a whole text at once for fixtures', async () => {
    const out = await tts.speak('mhm', { voice: 'en-gb', language: 'en', sampleRate: 8000 });
    expect(out.sampleRate).toBe(8000);
    expect(out.samples.length / 8000).toBeGreaterThan(0.2);
    expect(out.samples.length / 8000).toBeLessThan(1.5);
  });
});

describe('local voice without eSpeak NG installed', () => {
  const absent = new LocalTts({ pool: new EspeakPool({ packageName: 'espeak-ng-not-installed' }) });

  it('says it is unavailable and why, and every stream reports an error', async () => {
    expect(absent.available).toBe(false);
    expect(await absent.status()).toEqual({ available: false, reason: expect.stringMatching(/espeak-ng-not-installed is not installed/) });
    const events = await speak(absent, { voice: 'female', language: 'en', sampleRate: 8000 }, ['Hello.']);
    expect(events).toEqual([{ type: 'error', message: expect.stringMatching(/^local voice unavailable: .*not installed/) }]);
  });
});
