/**
 * A whole call on the sandbox's audio leg, through the real session and voice core: the
 * customer speaks its script as real audio (its own voice, a different one from the assistant's)
 * and hears the assistant's audio at real pace; the assistant greets, answers through the chat
 * double and the speech double, and closes the call with end-call after its goodbye has played.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import type { SandboxMedia } from '../../src/telephony/sandbox/media.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(async () => voice.close());

describe('sandbox audio leg', () => {
  // No retries: the silent-customer flake was a mark timer firing early (test/telephony/sandbox/media.test.ts).
  it('converses in real audio both ways and ends with end-call once the goodbye was heard', { retry: 0, timeout: 60_000 }, async () => {
    const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
    const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
    voice.llm.on(SANDBOX_SCRIPTS.converses[0], { text: 'Can you come tomorrow at ten?' });
    voice.llm.on(SANDBOX_SCRIPTS.converses[1], { text: 'Great, see you then. Goodbye!', toolCalls: [{ id: 'e1', name: 'end-call', args: {} }] });
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    expect(leg.media).toBeDefined();
    const factory = voiceFactory(
      voiceRow(),
      new ProviderRegistry(llm, { tts: [tts] }),
      { clock: systemClock, log },
    );
    const session = new CallSession(
      sessionSettings(),
      { leg, llm, tools: new ToolRunner({ allowPrivate: true, log }), clock: systemClock, log, voice: factory },
    );
    const before = voice.speech.received.length;
    const result = await session.run();
    expect(result.status).toBe('completed');
    expect(result.transcript.split('\n')).toEqual([
      'AI: Hello, this is Anna from the clinic.',
      `Customer: ${SANDBOX_SCRIPTS.converses[0]}`,
      'AI: Can you come tomorrow at ten?',
      `Customer: ${SANDBOX_SCRIPTS.converses[1]}`,
      'AI: Great, see you then. Goodbye!',
    ]);
    expect(result.customerUtterances).toBe(2);
    // Both voices went through the speech server: the assistant's (alloy) and the customer's (echo).
    const voices = voice.speech.received.slice(before).map((r) => `${r.body.voice}:${r.body.input}`);
    expect(voices).toContain('echo:' + SANDBOX_SCRIPTS.converses[0]);
    expect(voices).toContain('alloy:Hello, this is Anna from the clinic.');
    expect(voices).toContain('alloy:Great, see you then.');
    // The customer heard the assistant's audio: the greeting first, recognisably.
    const heard = (leg.media as SandboxMedia).heard();
    expect(heard.length / 8000).toBeGreaterThan(2);
  });
});
