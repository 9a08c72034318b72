/**
 * The silence rule on the sandbox's audio leg (issue 27 item 6): a customer at real pace who has
 * run out of words and sends no more audio, with a model that never ends the call, is
 * re-engaged after `reengagement_interval` and hung up `max_silence_duration` after the first
 * prompt — not left in progress until `max_duration`.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silenceGoodbyeLine } from '../../src/calls/closing-lines.js';
import { REENGAGEMENT_LINE } from '../../src/calls/session-types.js';
import { CallSession } from '../../src/calls/session.js';
import { ToolRunner } from '../../src/calls/tool-runner.js';
import { voiceFactory } from '../../src/voice/factory.js';
import { OpenAiCompatibleLlm } from '../../src/providers/llm/openai.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { OpenAiTts } from '../../src/providers/tts/openai/index.js';
import { synthesizer } from '../../src/providers/synthesize.js';
import { systemClock } from '../../src/telephony/clock.js';
import { SandboxCarrier, SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(async () => voice.close());

describe('sandbox audio leg, a customer out of words', () => {
  // About 20 s: the script's five exchanges at real pace, then 5 s of silence.
  it('is re-engaged and hung up per max_silence_duration when the model never ends the call', { timeout: 60_000 }, async () => {
    const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
    const llm = new OpenAiCompatibleLlm({ baseUrl: voice.llm.baseUrl, apiKey: 'llm-test-key' });
    // The customer says its script's lines, then nothing (no more audio at all); the model answers
    // every line with "Okay." and never ends the call.
    for (const line of SANDBOX_SCRIPTS.converses) voice.llm.on(line, { text: 'Okay.' });
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    expect(leg.media).toBeDefined();
    // When the customer said its last words (the session listens to the same events).
    let lastWordsAt = 0;
    const onEvent = leg.onEvent.bind(leg);
    leg.onEvent = (listener) =>
      onEvent((event) => {
        if (event.type === 'customer-said') lastWordsAt = Date.now();
        listener(event);
      });
    const factory = voiceFactory(voiceRow(), new ProviderRegistry(llm, { tts: [tts] }), { clock: systemClock, log });
    const session = new CallSession(sessionSettings({ reengagementSec: 2, maxSilenceSec: 3, maxDurationSec: 600 }), {
      leg,
      llm,
      tools: new ToolRunner({ allowPrivate: true, log }),
      clock: systemClock,
      log,
      voice: factory,
    });
    const result = await session.run();
    const silentMs = Date.now() - lastWordsAt;
    expect(result.status).toBe('ended_by_assistant');
    const lines = result.transcript.split('\n');
    const lastWords = lines.lastIndexOf(`Customer: ${SANDBOX_SCRIPTS.converses.at(-1)}`);
    expect(lines[lastWords + 1]).toBe('AI: Okay.');
    // Then the prompt each interval until the limit, and the closing line before the hang-up.
    const after = lines.slice(lastWords + 2);
    expect(after.at(-1)).toBe(`AI: ${silenceGoodbyeLine(null, 'en')}`);
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after.slice(0, -1).every((l) => l === `AI: ${REENGAGEMENT_LINE}`)).toBe(true);
    expect(lines.filter((l) => l.startsWith('Customer:'))).toHaveLength(SANDBOX_SCRIPTS.converses.length);
    // The answer to the last words (a second or two), 2 s to the prompt, 3 s more to the closing line, and its playing.
    expect(silentMs).toBeGreaterThanOrEqual(5_000);
    expect(silentMs).toBeLessThan(16_000); // room for a loaded machine; the old code never hung up
  });
});
