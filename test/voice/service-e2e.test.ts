/**
 * The voice core end to end THROUGH THE SERVICE (issue 19 "Must show"): a phone call on the
 * Twilio double (the test carrier: the person's fixture speech in 20 ms μ-law frames at real
 * pace), the whole process as `npm start` composes it, and the vendor doubles — speech-to-text
 * (Deepgram live, or an OpenAI-compatible transcription server after VAD end), the chat double
 * calling a mid-call tool on a local HTTP endpoint, the OpenAI-compatible speech double with a
 * configured first-byte delay. Checked from the outside only: what the person heard (matched
 * back to the spoken sentences), the tool request that reached the endpoint, the call record's
 * transcript through the API, and `GET /api/user/calls/{id}/turns`: one turn per exchange with
 * the caller's and the assistant's text and stage timings in their causal order, the TTS stage
 * no shorter than the speech double's configured delay. The conversation and the checks shared
 * with the multimodal test are test/support/service-conversation.ts.
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { createLogger } from '../../src/logger.js';
import type { TwilioDouble } from '../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../support/doubles/voice.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import {
  CHECK_SLOTS,
  expectBookingCallRecorded,
  FREE_SLOTS,
  holdBookingCall,
  OFFER,
  QUESTION,
  SAY_GOODBYE,
  setUpBookingLine,
  YES,
  type ToolEndpoint,
} from '../support/service-conversation.js';
import { startRoutedTwilioDouble, startToolEndpoint, twilioEnv } from '../support/twilio-service.js';

/** The speech double waits this long before its first byte; the turn's TTS stage cannot be shorter. */
const TTS_FIRST_BYTE_MS = 120;

let voice: VoiceDoubles;
let double: TwilioDouble;
let tool: ToolEndpoint;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.speech.knobs.firstByteDelayMs = TTS_FIRST_BYTE_MS;
  voice.llm.on(QUESTION.text, CHECK_SLOTS, { text: OFFER });
  voice.llm.on(YES.text, SAY_GOODBYE);
  tool = await startToolEndpoint(FREE_SLOTS);
  double = await startRoutedTwilioDouble(() => local);
}, 60_000);

afterAll(async () => {
  await double?.close();
  await voice?.close();
  await tool?.close();
});

/**
 * Every line the service logged while the call ran carries the call's id — the engine's, the
 * carrier's, the mid-call tool's (the pipeline's debug lines come from the same call logger) —
 * except an HTTP request's own lines (they carry the request's id) and the service-wide jobs
 * named here.
 */
const SERVICE_WIDE = new Set(['call counters folded']);
function expectCallLinesCarryId(logged: Record<string, unknown>[], callId: number) {
  const first = logged.findIndex((l) => l.callId === callId);
  const last = logged.map((l) => l.callId === callId && l.msg === 'call finished').lastIndexOf(true);
  expect(first, 'the call logged').toBeGreaterThanOrEqual(0);
  expect(last, 'the call finished').toBeGreaterThan(first);
  const during = logged.slice(first, last + 1).filter((l) => !('reqId' in l) && !SERVICE_WIDE.has(String(l.msg)));
  expect(during.filter((l) => l.callId !== callId).map((l) => l.msg)).toEqual([]);
  const said = new Set(during.map((l) => l.msg));
  for (const msg of ['call placed with the carrier', 'mid-call tool answered', 'call finished']) expect(said, msg).toContain(msg);
}

describe.each([
  { stt: 'deepgram' as const, number: '+14155550811' },
  { stt: 'openai' as const, number: '+14155550812' },
])('a phone call through the service with $stt speech-to-text', ({ stt, number }) => {
  let t: TestService;
  let user: TestUser;
  let assistantId: number;
  /** Every line the service logged (the call's lines are checked for its id). */
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    });
    t = await startTestService({
      listen: true,
      parts: fullProcess,
      // The service's default level (the lines checked are info lines). With a debug logger this
      // call stalled now and then (the caller's second turn unanswered; cause not found yet).
      log: createLogger('info', 'json', sink),
      env: {
        ...voice.envFor({ stt }),
        ...twilioEnv(double),
        // The mid-call tool's endpoint is on this machine.
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    local = t.service.url!;
    ({ user, assistantId } = await setUpBookingLine(t, {
      userName: `Voice e2e ${stt}`,
      phoneNumber: stt === 'deepgram' ? '+14155550801' : '+14155550802',
      sidChar: stt === 'deepgram' ? 'd' : 'e',
      voice: { name: `Double voice ${stt}`, mode: 'pipeline', provider_voice_id: 'alloy' },
      tool,
    }));
  }, 90_000);

  afterAll(async () => {
    await t?.close();
  });

  it('the caller is heard, the tool runs, the answers are heard; the record and its turns say so', async () => {
    const held = await holdBookingCall(t, user, assistantId, { double, voice, tool, number });
    // The model saw the tool's result before it answered.
    const afterTool = voice.llm.received.find((r) => r.body?.messages?.some((m: { role: string }) => m.role === 'tool'));
    expect(JSON.stringify(afterTool?.body.messages)).toContain('14:30');

    const replies = await expectBookingCallRecorded(t, user, voice, held);
    expectCallLinesCarryId(logged, held.callId);
    for (const { timings } of replies) {
      // Text-to-speech starts after the first words and its first byte takes the double's delay.
      expect(timings.tts_first_byte_ms! - timings.llm_first_token_ms!, JSON.stringify(timings)).toBeGreaterThanOrEqual(TTS_FIRST_BYTE_MS - 5);
    }
  }, 120_000);
});
