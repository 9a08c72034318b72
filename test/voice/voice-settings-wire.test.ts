/**
 * The assistant's voice settings really reach the vendors, as the vendors' doubles received
 * them on the wire: providers built from the configuration the way the service builds them
 * (providersFromConfig), the engine's voice factory with an assistant's stored settings, one
 * greeting spoken and one caller utterance heard on the sandbox line.
 *
 * - `voice_id` → the voice list's provider and its voice id: the ElevenLabs URL path, the OpenAI
 *   speech request's `voice` (and the Realtime session's voice, in speech-to-speech.test.ts);
 * - `voice_stability` / `voice_similarity` / `speech_speed` → ElevenLabs `voice_settings` in the
 *   first message (`speed` on the OpenAI speech request);
 * - `language` → Deepgram's `language` query parameter, the batch STT request's `language` field,
 *   ElevenLabs' `language_code`;
 * - `endpoint_sensitivity` → Deepgram's `endpointing` and `utterance_end_ms`.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, silence } from '../../src/audio/pcm.js';
import { providersFromConfig } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { callTools, ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory, type AssistantVoiceRow } from '../../src/voice/factory.js';
import type { Frame } from '../../src/voice/frames.js';
import { endpointRule } from '../../src/voice/sensitivity.js';
import type { ChatMessage } from '../../src/providers/llm/types.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { fixture } from '../support/audio-fixtures.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { voiceRow } from '../support/voice-session.js';

const log = pino({ level: 'silent' });
const RATE = 16_000;
const GREETING = 'Guten Tag, Zahnarztpraxis.';
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(async () => voice.close());

/** An assistant's stored voice settings (the columns' numeric text, as the engine reads them). */
const ROW = voiceRow({
  voiceProvider: 'elevenlabs',
  providerVoiceId: 'pNInz6obpgDQGcFmaJgB',
  languageIso2: 'de',
  voiceStability: '0.35',
  voiceSimilarity: '0.90',
  speechSpeed: '1.10',
  endpointSensitivity: '4',
  endpointType: 'ai',
});

/** One greeting said and one caller utterance heard through the factory's voice call. */
async function converse(row: AssistantVoiceRow, env: Record<string, string>): Promise<void> {
  const providers = providersFromConfig(loadConfig({ ...env }));
  const media = new SandboxMedia(RATE, systemClock);
  const messages: ChatMessage[] = [{ role: 'system', content: 'Sie sind die Rezeption.' }];
  const vc = voiceFactory(row, providers, { clock: systemClock, log })!(media, {
    llm: { llm: providers.llm, model: 'double', temperature: 0, messages, tools: callTools([], new ToolRunner({ allowPrivate: true, log })), specs: [], variables: {} },
    tracker: new TurnTracker(new MemoryTurnRecorder(), systemClock),
    tapStages: [],
  });
  const heard = new Promise<void>((resolve) => vc.onFrame((f: Frame) => f.kind === 'end-of-turn' && resolve()));
  try {
    await vc.say(GREETING, 'greeting');
    await media.speak(concat([silence(300, RATE), voice.fixture('yes-that-works', RATE), silence(2500, RATE)]));
    await heard;
  } finally {
    await vc.close('test over');
  }
}

describe("the assistant's voice settings on the vendors' wire", () => {
  it('ElevenLabs voice, stability, similarity, speed and language; Deepgram language and endpointing from endpoint_sensitivity', { timeout: 30_000 }, async () => {
    const streams = voice.elevenlabs.streams.length;
    const connections = voice.deepgram.connections.length;
    await converse(ROW, voice.env);

    const tts = voice.elevenlabs.streams.slice(streams);
    expect(tts.length).toBeGreaterThanOrEqual(1);
    // voice_id → the URL path /v1/text-to-speech/{voice_id}/stream-input
    expect(tts[0]!.voice).toBe('pNInz6obpgDQGcFmaJgB');
    expect(tts[0]!.query.get('language_code')).toBe('de');
    // The first message initialises the stream with the voice settings.
    expect(tts[0]!.received[0]).toEqual({ text: ' ', voice_settings: { stability: 0.35, similarity_boost: 0.9, speed: 1.1 } });
    expect(tts[0]!.spoken.join(' ')).toContain(GREETING);

    const stt = voice.deepgram.connections.slice(connections);
    expect(stt.length).toBeGreaterThanOrEqual(1);
    const rule = endpointRule('4');
    expect(stt[0]!.query.get('language')).toBe('de');
    expect(stt[0]!.query.get('endpointing')).toBe(String(rule.sttEndpointingMs));
    expect(stt[0]!.query.get('utterance_end_ms')).toBe(String(rule.utteranceEndMs));
    expect(stt[0]!.query.get('sample_rate')).toBe(String(RATE));
    expect(stt[0]!.heard.map((h) => h.text)).toContain(fixture('yes-that-works').text);
  });

  it('a lower endpoint_sensitivity waits longer: the endpointing Deepgram is told follows it', { timeout: 30_000 }, async () => {
    const connections = voice.deepgram.connections.length;
    await converse({ ...ROW, endpointSensitivity: '1' }, voice.env);
    const stt = voice.deepgram.connections.slice(connections);
    expect(Number(stt[0]!.query.get('endpointing'))).toBe(endpointRule('1').sttEndpointingMs);
    expect(endpointRule('1').sttEndpointingMs).toBeGreaterThan(endpointRule('4').sttEndpointingMs);
  });

  it("OpenAI-compatible speech gets the voice's id and speed; batch transcription gets the language", { timeout: 30_000 }, async () => {
    const speeches = voice.speech.received.length;
    const transcriptions = voice.transcription.received.length;
    await converse({ ...ROW, voiceProvider: 'openai', providerVoiceId: 'nova', languageIso2: 'fr', endpointType: 'vad' }, voice.envFor({ stt: 'openai' }));

    const speech = voice.speech.received.slice(speeches);
    expect(speech.length).toBeGreaterThanOrEqual(1);
    expect(speech[0]!.body).toMatchObject({ voice: 'nova', input: GREETING, speed: 1.1 });

    const batch = voice.transcription.received.slice(transcriptions);
    expect(batch.length).toBeGreaterThanOrEqual(1);
    expect(batch[0]!.fields.language).toBe('fr');
    expect(batch.map((b) => b.text)).toContain(fixture('yes-that-works').text);
  });
});
