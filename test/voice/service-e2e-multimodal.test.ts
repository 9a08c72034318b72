/**
 * `mode: multimodal` end to end THROUGH THE SERVICE: a phone call on the Twilio double (the
 * person's fixture speech in 20 ms μ-law frames at real pace, silence between), the whole
 * process as `npm start` composes it with REALTIME_URL pointing at the Realtime double, and an
 * assistant in multimodal mode whose voice is the realtime provider's `shimmer`. The model hears
 * the caller's audio over the Realtime protocol (G.711 μ-law at 8 kHz, as the line carries it),
 * calls a mid-call tool on a local HTTP endpoint (its result goes back as a function output),
 * and ends the call with end-call. Checked from the outside: what the person heard, the tool
 * request, the record's transcript and status through the API, and /turns. The conversation and
 * the checks shared with the pipeline test are test/support/service-conversation.ts.
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
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

/** The Realtime double waits this long before an answer's first delta. */
const FIRST_DELTA_MS = 80;

let voice: VoiceDoubles;
let double: TwilioDouble;
let tool: ToolEndpoint;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.realtime.knobs.firstDeltaDelayMs = FIRST_DELTA_MS;
  voice.realtime.on(QUESTION.text, CHECK_SLOTS, { text: OFFER });
  voice.realtime.on(YES.text, SAY_GOODBYE);
  tool = await startToolEndpoint(FREE_SLOTS);
  double = await startRoutedTwilioDouble(() => local);
}, 60_000);

afterAll(async () => {
  await double?.close();
  await voice?.close();
  await tool?.close();
});

describe('a multimodal phone call through the service', () => {
  const number = '+14155550813';
  let t: TestService;
  let user: TestUser;
  let assistantId: number;

  beforeAll(async () => {
    t = await startTestService({
      listen: true,
      parts: fullProcess,
      env: {
        ...voice.env,
        ...twilioEnv(double),
        // The mid-call tool's endpoint is on this machine.
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    local = t.service.url!;
    ({ user, assistantId } = await setUpBookingLine(t, {
      userName: 'Voice e2e multimodal',
      phoneNumber: '+14155550803',
      sidChar: 'f',
      voice: { name: 'Realtime double voice', mode: 'multimodal', provider_voice_id: 'shimmer' },
      tool,
    }));
  }, 90_000);

  afterAll(async () => {
    await t?.close();
  });

  it('the caller is heard, the tool runs, the answers are heard; the record and its turns say so', async () => {
    const held = await holdBookingCall(t, user, assistantId, { double, voice, tool, number });
    // The model got the tool's result as a function output, then was asked to go on.
    const session = voice.realtime.sessions.at(-1)!;
    const output = session.received.findIndex((e) => e.type === 'conversation.item.create' && e.item?.type === 'function_call_output');
    expect(session.received[output].item.call_id).toBe('slots-1');
    expect(session.received[output].item.output).toContain('14:30');
    expect(session.received[output + 1]).toEqual({ type: 'response.create' });
    // The session as the assistant configured it: μ-law on the phone line, its voice; the model heard both utterances.
    expect(session.session.audio.input.format).toEqual({ type: 'audio/pcmu' });
    expect(session.session.audio.output.voice).toBe('shimmer');
    expect(session.transcripts).toEqual([QUESTION.text, YES.text]);
    expect(session.closed).toBe(true);

    const replies = await expectBookingCallRecorded(t, user, voice, held);
    for (const { timings } of replies) {
      // The model's first audio came no sooner than the double's configured delay after the caller stopped.
      expect(timings.tts_first_byte_ms!, JSON.stringify(timings)).toBeGreaterThanOrEqual(FIRST_DELTA_MS - 5);
    }
  }, 120_000);
});
