/**
 * The voice factory honours an assistant's `synthesizer_provider_id` / `transcriber_provider_id`
 * (issue 20) among the providers the deployment really has: with the vendor doubles configured as
 * the service would configure them (speechProviders from the doubles' environment), the selected
 * synthesizer speaks (with its default voice when the assistant's voice is another provider's),
 * the selected transcriber hears the caller, and without a selection the voice's provider and
 * Deepgram stay the defaults. The process's Smart Turn model handed to the factory is asked at the
 * ends of the caller's speech (real speech, Silero VAD, the ONNX stand-in).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MemoryTurnRecorder, TurnTracker } from '../../src/calls/turns.js';
import { callTools, ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory, type AssistantVoiceRow, type VoiceFactoryDeps } from '../../src/voice/factory.js';
import { SileroVad, sharedVadRunner } from '../../src/audio/vad/silero.js';
import { SmartTurn } from '../../src/voice/turn/smart-turn.js';
import { fixtureAudio } from '../support/audio-fixtures.js';
import { logit, writeSmartTurnStandIn } from '../support/onnx-stand-in.js';
import type { Frame } from '../../src/voice/frames.js';
import { synthesizerById, transcriberById } from '../../src/providers/catalog.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { speechProviders } from '../../src/providers/speech.js';
import { silence, concat } from '../../src/audio/pcm.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { voiceRow } from '../support/voice-session.js';

const log = pino({ level: 'silent' });
let voice: VoiceDoubles;
let registry: ProviderRegistry;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.otherwise({ text: 'Okay.' });
  const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
  registry = new ProviderRegistry(llm, speechProviders(loadConfig({ ...voice.env })));
});
afterAll(async () => voice.close());

const ROW = voiceRow({ voiceProvider: 'elevenlabs', providerVoiceId: 'el-voice-7' });

function build(row: AssistantVoiceRow, extra: Partial<VoiceFactoryDeps> = {}) {
  const factory = voiceFactory(row, registry, { clock: systemClock, log, ...extra });
  const media = new SandboxMedia(8000, systemClock);
  const vc = factory!(media, {
    llm: {
      llm: registry.llm,
      model: 'double',
      temperature: 0,
      messages: [{ role: 'system', content: 'You help.' }],
      tools: callTools([], new ToolRunner({ allowPrivate: true, log })),
      specs: [],
      variables: {},
    },
    tracker: new TurnTracker(new MemoryTurnRecorder(), systemClock),
    tapStages: [],
  });
  return { vc, media };
}

const spokenBySpeechDouble = () => voice.speech.received.map((r) => `${r.body.voice}:${r.body.input}`);
const spokenByElevenLabs = () => voice.elevenlabs.streams.flatMap((s) => s.spoken.map((text) => `${s.voice}:${text}`));

describe('synthesizer_provider_id', () => {
  it('the selected synthesizer speaks with its default voice when the voice belongs to another provider', { timeout: 30_000 }, async () => {
    const { vc } = build({ ...ROW, synthesizerProvider: synthesizerById(3)!.code });
    await vc.say('The selected synthesizer speaks.', 'greeting');
    await vc.close('test over');
    expect(spokenBySpeechDouble()).toContain('alloy:The selected synthesizer speaks.');
    expect(spokenByElevenLabs().some((s) => s.endsWith('The selected synthesizer speaks.'))).toBe(false);
  });

  it("without a selection (or selecting the voice's own provider) the voice speaks with its own id", { timeout: 30_000 }, async () => {
    for (const synthesizerProvider of [null, synthesizerById(2)!.code]) {
      const text = `The voice's own provider speaks ${synthesizerProvider ?? 'by default'}.`;
      const { vc } = build({ ...ROW, synthesizerProvider });
      await vc.say(text, 'greeting');
      await vc.close('test over');
      expect(spokenByElevenLabs().join('|')).toContain(`el-voice-7:${text}`);
      expect(spokenBySpeechDouble().some((s) => s.endsWith(text))).toBe(false);
    }
  });
});

describe('transcriber_provider_id', () => {
  async function hear(transcriberProvider: string | null, text: string): Promise<string> {
    const { vc, media } = build({ ...ROW, transcriberProvider });
    const turn = new Promise<string>((resolve) => vc.onFrame((f: Frame) => f.kind === 'end-of-turn' && resolve(f.text)));
    await media.speak(concat([silence(300, 8000), voice.say(text, 8000), silence(1500, 8000)]));
    const heard = await turn;
    await vc.close('test over');
    return heard;
  }

  it('the selected transcriber hears the caller; Deepgram is the default', { timeout: 60_000 }, async () => {
    const deepgramBefore = voice.deepgram.connections.length;
    const batchBefore = voice.transcription.received.length;
    expect(await hear(transcriberById(2)!.code, 'I would like a table for two.')).toBe('I would like a table for two.');
    expect(voice.transcription.received.length).toBeGreaterThan(batchBefore);
    expect(voice.deepgram.connections.length).toBe(deepgramBefore);

    const batchAfter = voice.transcription.received.length;
    expect(await hear(null, 'Tomorrow at eight please.')).toBe('Tomorrow at eight please.');
    expect(voice.deepgram.connections.length).toBeGreaterThan(deepgramBefore);
    expect(voice.transcription.received.length).toBe(batchAfter);
  });
});

describe('the process\'s Smart Turn model (TURN_MODEL_PATH)', () => {
  it('reaches the call\'s end-of-turn policy: each end of the caller\'s speech is put to it', { timeout: 30_000 }, async () => {
    const model = await SmartTurn.load(writeSmartTurnStandIn(0, logit(0.9)));
    const runner = await sharedVadRunner();
    try {
      const { vc, media } = build(voiceRow(), { turnModel: model, vad: { prepare: async () => undefined, model: (rate) => new SileroVad(runner, rate >= 16_000 ? 16_000 : 8000) } });
      const turnOver = new Promise<void>((resolve) => vc.onFrame((f: Frame) => f.kind === 'end-of-turn' && resolve()));
      // Real speech, then silence: the VAD's end of speech asks the model.
      await media.speak(concat([fixtureAudio('book-appointment', 8000), silence(1_500, 8000)]));
      await turnOver;
      // The answer comes from the worker thread, maybe after the turn was settled by the other signals.
      await expect.poll(() => model.stats.predictions, { timeout: 3_000 }).toBeGreaterThanOrEqual(1);
      await vc.close('test over');
    } finally {
      await model.close();
    }
  });
});
