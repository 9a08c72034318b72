import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulaw } from '../../../src/audio/g711.js';
import { concat, silence } from '../../../src/audio/pcm.js';
import { resample } from '../../../src/audio/resample.js';
import { loadConfig } from '../../../src/config.js';
import { speechProviders } from '../../../src/providers/speech.js';
import type { SttEvent } from '../../../src/providers/stt/types.js';
import type { TtsEvent, TtsProvider, TtsStreamOptions } from '../../../src/providers/tts/types.js';
import { ClipBook } from './clips.js';
import { startVoiceDoubles, type VoiceDoubles } from './voice.js';

let voice: VoiceDoubles;

/** Speaks one text through a TTS provider; its audio chunks. */
function speakAll(tts: TtsProvider, options: TtsStreamOptions, text: string): Promise<Int16Array[]> {
  const audio: Int16Array[] = [];
  return new Promise((resolve, reject) => {
    const s = tts.open(options, (e: TtsEvent) => {
      if (e.type === 'audio') audio.push(e.samples);
      if (e.type === 'done') resolve(audio);
      if (e.type === 'error') reject(new Error(e.message));
    });
    s.push(text);
    s.end();
  });
}
beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(() => voice.close());

describe('startVoiceDoubles', () => {
  it('gives an environment the service configuration accepts, which selects the doubles as providers', () => {
    const config = loadConfig({ ...voice.env });
    const providers = speechProviders(config);
    expect(providers.stt.map((p) => p.name)).toEqual(['deepgram', 'openai']);
    expect(providers.tts.map((p) => p.name)).toEqual(['elevenlabs', 'openai']);
    expect(providers.realtime.map((p) => p.name)).toEqual(['openai']);
    expect(config.LLM_BASE_URL).toBe(voice.llm.baseUrl);
    expect(speechProviders(loadConfig({ ...voice.envFor({ stt: 'openai' }) })).stt.map((p) => p.name)).toEqual(['openai']);
  });

  it('round trip through the real adapters: what the TTS double says, the STT double recognises (shared clips)', async () => {
    const providers = speechProviders(loadConfig({ ...voice.env }));
    const tts = providers.tts.find((p) => p.name === 'elevenlabs')!;
    const audio = await speakAll(tts, { voice: 'v1', sampleRate: 8000, language: 'en' }, 'Your table is booked for eight.');
    const events: SttEvent[] = [];
    const stt = await providers.stt[0].open({ sampleRate: 8000, language: 'en', endpointingMs: 300 }, (e) => events.push(e));
    const caller = voice.say('Thank you, goodbye.', 8000);
    const stream = concat([silence(200, 8000), ...audio, silence(500, 8000), caller, silence(500, 8000)]);
    for (let i = 0; i < stream.length; i += 160) stt.write(stream.subarray(i, i + 160));
    await stt.close();
    const finals = events.flatMap((e) => (e.type === 'transcript' && e.isFinal ? [e.text] : []));
    expect(finals).toEqual(['Your table is booked for eight.', 'Thank you, goodbye.']);
  });

  it('round trip over the OpenAI-compatible pair: speech double audio, resampled to 16 kHz, is transcribed back', async () => {
    const providers = speechProviders(loadConfig({ ...voice.envFor({ stt: 'openai' }) }));
    const tts = providers.tts.find((p) => p.name === 'openai')!;
    const audio = await speakAll(tts, { voice: 'alloy', sampleRate: 24_000, language: 'en' }, 'Your appointment is on Monday.');
    const events: SttEvent[] = [];
    const stt = await providers.stt[0].open({ sampleRate: 16_000, language: 'en' }, (e) => events.push(e));
    stt.write(resample(concat(audio), 24_000, 16_000));
    stt.finalize();
    await stt.close();
    expect(events[0]).toEqual({ type: 'transcript', text: 'Your appointment is on Monday.', isFinal: true, speechFinal: true });
  });

  it("with voice 'local' the TTS doubles speak eSpeak audio, which the STT double recognises after a phone line", async () => {
    const local = await startVoiceDoubles({ voice: 'local' });
    try {
      const providers = speechProviders(loadConfig({ ...local.env }));
      const tts = providers.tts.find((p) => p.name === 'elevenlabs')!;
      const audio = await speakAll(tts, { voice: 'v1', sampleRate: 16_000, language: 'en' }, 'Good morning, how can I help?');
      const spoken = concat(audio);
      // Real speech: what the local voice says for the text, not the speech-like sound.
      const book = new ClipBook().add('espeak', await local.speak('Good morning, how can I help?', 16_000), 16_000).add('speech-like', voice.say('Good morning, how can I help?', 16_000), 16_000);
      expect(book.matchAudio(spoken, 16_000)?.text).toBe('espeak');
      const phone = mulaw.decode(mulaw.encode(resample(spoken, 16_000, 8000)));
      const events: SttEvent[] = [];
      const stt = await providers.stt[0].open({ sampleRate: 8000, language: 'en', endpointingMs: 400 }, (e) => events.push(e));
      stt.write(concat([silence(200, 8000), phone, silence(600, 8000)]));
      await stt.close();
      expect(events.filter((e) => e.type === 'transcript' && e.isFinal)).toEqual([{ type: 'transcript', text: 'Good morning, how can I help?', isFinal: true, speechFinal: true }]);
    } finally {
      await local.close();
    }
  });

  it('recognises the real-speech fixtures over a phone line: the 8 kHz μ-law caller audio becomes their text', async () => {
    const providers = speechProviders(loadConfig({ ...voice.env }));
    const events: SttEvent[] = [];
    const stt = await providers.stt[0].open({ sampleRate: 8000, language: 'en', endpointingMs: 500 }, (e) => events.push(e));
    // One utterance at a time: under 5 s each, what the adapter holds while it connects.
    stt.write(concat([silence(300, 8000), voice.fixture('book-appointment', 8000), silence(900, 8000)]));
    while (!events.some((e) => e.type === 'transcript' && e.isFinal)) await new Promise((r) => setTimeout(r, 10));
    stt.write(concat([voice.fixture('friday-afternoon', 8000), silence(900, 8000)]));
    await stt.close();
    expect(events.flatMap((e) => (e.type === 'transcript' && e.isFinal ? [e.text] : []))).toEqual([
      'I would like to book an appointment for tomorrow.',
      'Friday afternoon would be best for me.',
    ]);
  });
});
