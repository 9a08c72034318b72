/**
 * The speech recipes of docs/providers.md, configured as written there and pointed at the local
 * doubles of ElevenLabs and of an OpenAI-compatible speech server: the settings the recipe sets
 * choose the provider, the recipe's model and voice reach the wire, and real audio comes back.
 * Also the choice the page describes: Deepgram when its key is set (the default when an
 * OpenAI-compatible server is configured too), else the server of STT_BASE_URL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { speechProviders } from '../../src/providers/speech.js';
import type { TtsEvent, TtsProvider } from '../../src/providers/tts/types.js';
import { ElevenLabsDouble } from '../support/doubles/elevenlabs.js';
import { OpenAiSpeechDouble } from '../support/doubles/openai-speech.js';
import { recordEvents } from '../support/doubles/recorder.js';

const page = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/providers.md'), 'utf8');

/** The `export NAME=value` settings of the ```sh block under a heading of the page (first value wins). */
function recipe(heading: string): Record<string, string> {
  const start = page.indexOf(`### ${heading}`);
  expect(start, heading).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(page.slice(start))![1]!;
  const out: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const assignments = /^export\s+(.*?)(?:\s+#.*)?$/.exec(line)?.[1];
    for (const m of assignments?.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g) ?? []) out[m[1]!] ??= m[2]!.replace(/^'|'$/g, '');
  }
  return out;
}

/** The `--provider-voice-id` of the recipe's `voices add`. */
const voiceOf = (heading: string) => /--provider-voice-id (\S+)/.exec(page.slice(page.indexOf(`### ${heading}`)))![1]!;

async function speak(tts: TtsProvider, voice: string): Promise<TtsEvent[]> {
  const rec = recordEvents<TtsEvent>();
  const stream = tts.open({ voice, sampleRate: 16_000, language: 'en' }, rec.emit);
  stream.push('Hello, this is Switchboard.');
  stream.end();
  await rec.until('done');
  return rec.events;
}

let elevenLabs: ElevenLabsDouble;
let speech: OpenAiSpeechDouble;
beforeAll(async () => {
  elevenLabs = await new ElevenLabsDouble().start();
  speech = await new OpenAiSpeechDouble().start();
});
afterAll(async () => {
  await elevenLabs.close();
  await speech.close();
});

describe('the speech recipes of docs/providers.md', () => {
  it('ElevenLabs: the recipe key and model choose ElevenLabs, its voice id reaches the wire, audio comes back', async () => {
    const settings = recipe('Recipe: ElevenLabs');
    expect(Object.keys(settings).sort()).toEqual(['ELEVENLABS_API_KEY', 'ELEVENLABS_MODEL']);
    const config = loadConfig({ ...settings, ELEVENLABS_API_KEY: elevenLabs.knobs.apiKey, ELEVENLABS_URL: elevenLabs.url });
    const tts = speechProviders(config).tts.find((p) => p.name === 'elevenlabs')!;
    const events = await speak(tts, voiceOf('Recipe: ElevenLabs'));
    expect(events.some((e) => e.type === 'audio')).toBe(true);
    const stream = elevenLabs.streams.at(-1)!;
    expect(stream.voice).toBe(voiceOf('Recipe: ElevenLabs'));
    expect(stream.query.get('model_id')).toBe(settings.ELEVENLABS_MODEL);
  });

  it('an OpenAI-compatible speech server: the Kokoro recipe, written without /v1, works as the page says', async () => {
    const settings = recipe('Recipe: an OpenAI-compatible speech server');
    // The first line is OpenAI's own; the Kokoro line sets the base without /v1.
    const kokoro = /export TTS_BASE_URL=(http:\/\/localhost:\d+) TTS_MODEL=(\S+)/.exec(page)!;
    expect(new URL(kokoro[1]!).pathname).toBe('/');
    const withoutVersion = speech.baseUrl.replace(/\/v1$/, '');
    const config = loadConfig({ ...settings, TTS_BASE_URL: withoutVersion, TTS_API_KEY: speech.knobs.apiKey!, TTS_MODEL: kokoro[2]! });
    const tts = speechProviders(config).tts.find((p) => p.name === 'openai')!;
    const events = await speak(tts, voiceOf('Recipe: an OpenAI-compatible speech server'));
    expect(events.some((e) => e.type === 'audio')).toBe(true);
    expect(speech.received.at(-1)!.body).toMatchObject({ model: 'kokoro', voice: 'alloy', response_format: 'pcm' });
  });

  it('speech-to-text: Deepgram with its key, the OpenAI-compatible server without one, none without either', () => {
    const deepgram = recipe('Recipe: Deepgram');
    const server = recipe('Recipe: an OpenAI-compatible transcription server');
    expect(Object.keys(deepgram)).toContain('DEEPGRAM_API_KEY');
    expect(Object.keys(server)).toContain('STT_BASE_URL');
    expect(speechProviders(loadConfig({ ...deepgram, ...server })).stt.map((p) => p.name)).toEqual(['deepgram', 'openai']);
    expect(speechProviders(loadConfig(server)).stt.map((p) => p.name)).toEqual(['openai']);
    expect(speechProviders(loadConfig({})).stt).toEqual([]);
  });
});
