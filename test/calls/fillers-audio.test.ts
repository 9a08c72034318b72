/**
 * `fillers` on an audio leg: while a slow mid-call tool runs, a phrase from `filler_config` is
 * said through the TTS and reaches the caller's ear before the tool's result comes back.
 *
 * No timing is assumed: the tool's endpoint (a local HTTP server) holds its answer until the
 * sandbox line has played a filler's worth of new assistant audio since the tool was called
 * (or 30 s passed, then the test fails). Once it answers, the audio the caller heard while the
 * tool ran is matched back to the filler phrase (envelope correlation against the speech
 * double's deterministic audio for it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { ChatDouble } from '../support/doubles/chat.js';
import { ClipBook, speechLike } from '../support/doubles/clips.js';
import { SPEECH_RATE } from '../support/doubles/openai-speech.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { sessionSettings, voiceRow } from '../support/voice-session.js';

const log = pino({ level: process.env.VC_DEBUG ? 'debug' : 'silent' });
const FILLER = 'One moment please.';
const RATE = 8000;
let voice: VoiceDoubles;

beforeAll(async () => {
  voice = await startVoiceDoubles();
});
afterAll(async () => voice.close());

/** A tool endpoint that answers once `ready()` holds (checked every 50 ms), or after `capMs`. */
async function gatedEndpoint(ready: () => boolean, onRequest: () => void, capMs: number) {
  const answered: { gated: boolean }[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      onRequest();
      const started = Date.now();
      const poll = setInterval(() => {
        const ok = ready();
        if (!ok && Date.now() - started < capMs) return;
        clearInterval(poll);
        answered.push({ gated: ok });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"free":["10:00"]}');
      }, 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, answered, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('fillers on a sandbox audio leg', () => {
  it('a slow tool gets a filler phrase spoken through the TTS before its result; in the transcript, not in the history', { timeout: 90_000 }, async () => {
    const tts = new OpenAiTts({ baseUrl: voice.speech.baseUrl, apiKey: voice.speech.knobs.apiKey!, model: 'tts-1' });
    const chat = await new ChatDouble().start();
    const llm = new OpenAiCompatibleLlm({ baseUrl: chat.baseUrl, apiKey: 'llm-test-key' });
    chat.on(
      SANDBOX_SCRIPTS.converses[0],
      { toolCalls: [{ id: 's1', name: 'slow_lookup', args: { day: 'today' } }] },
      { text: 'Ten is free. Goodbye!', toolCalls: [{ id: 'e2', name: 'end-call', args: {} }] },
    );
    const carrier = new SandboxCarrier({ timeScale: 1, voice: synthesizer(tts, 'echo') });
    const leg = carrier.dial({ customer: '+4915100000000', assistant: '', direction: 'outbound' });
    const media = leg.media as SandboxMedia;
    // The filler as the caller hears it: the speech double's audio for it (envelope matching).
    const book = new ClipBook(0.9).add(FILLER, speechLike(FILLER, SPEECH_RATE).samples, SPEECH_RATE);
    let heardAtRequest = -1;
    let heardAtAnswer = -1;
    const endpoint = await gatedEndpoint(
      () => {
        const heard = media.heard();
        if (book.matchAudio(heard.subarray(heardAtRequest), RATE)?.text !== FILLER) return false;
        heardAtAnswer = heard.length;
        return true;
      },
      () => (heardAtRequest = media.heard().length),
      30_000,
    );
    const factory = voiceFactory(
      voiceRow({
        // The simulated customer may speak up in the pause after the filler; this test is about
        // the filler, not barge-in (voice-call.test.ts), so nothing cuts the assistant off.
        allowInterruptions: false,
      }),
      new ProviderRegistry(llm, { tts: [tts] }),
      { clock: systemClock, log },
    );
    const session = new CallSession(
      sessionSettings({
        tools: [
          { id: 1, name: 'slow_lookup', description: 'Look up', endpoint: `${endpoint.url}/x`, method: 'POST', timeout: 60, headers: [], schema: [{ name: 'day', type: 'string', description: 'day' }] },
        ],
        fillers: true,
        fillerConfig: { neutral: [FILLER], negative: [], positive: [], question: [] },
      }),
      { leg, llm, tools: new ToolRunner({ allowPrivate: true, log }), clock: systemClock, log, voice: factory },
    );
    const before = voice.speech.received.length;
    try {
      const result = await session.run();
      expect(result.status).toBe('completed');
      // The tool answered because the filler had been heard, not because the cap ran out.
      expect(endpoint.answered).toEqual([{ gated: true }]);
      // The audio the caller heard while the tool ran is the filler phrase.
      const whileTool = media.heard().slice(heardAtRequest, heardAtAnswer);
      expect(book.matchAudio(whileTool, RATE)?.text).toBe(FILLER);
      // Said through the TTS in the assistant's voice, within the tool's turn (a second one may
      // follow FILLER_TIMING.repeatMs later on a loaded machine; fillers.test.ts covers the rhythm).
      const inputs = voice.speech.received.slice(before).map((r) => `${r.body.voice}:${r.body.input}`);
      expect(inputs).toContain(`alloy:${FILLER}`);
      const lines = result.transcript.split('\n');
      const asked = lines.indexOf(`Customer: ${SANDBOX_SCRIPTS.converses[0]}`);
      expect(asked).toBeGreaterThanOrEqual(0);
      expect(lines[asked + 1]).toMatch(new RegExp(`^AI: ${FILLER} (${FILLER} )?Ten is free\\. Goodbye!$`));
      // Not in the LLM's history: it would sit between the tool call and its result.
      expect(result.messages.some((m) => m.role === 'assistant' && m.content?.includes('One moment'))).toBe(false);
    } finally {
      await endpoint.close();
      await chat.close();
    }
  });
});
