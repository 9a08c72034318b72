/**
 * The booking conversation that the end-to-end voice tests through the whole service hold
 * (test/voice/service-e2e.test.ts for the pipeline, service-e2e-multimodal.test.ts for
 * the Realtime model): the assistant greets, the caller asks for an appointment, the model
 * checks the calendar with a mid-call tool and offers a slot, the caller says yes, the model
 * says goodbye and ends the call. Here are the script, the setup (user, Twilio number, voice,
 * tool, assistant) and the checks both make from the outside; what differs by mode (which
 * double plays the model, what it received, the first-audio delay) stays in each test file.
 */
import { expect } from 'vitest';
import { assistantTools } from '../../src/db/schema.js';
import { fixture } from './audio-fixtures.js';
import { heardUtterances } from './doubles/heard.js';
import type { DoubleCall, TwilioDouble } from './doubles/twilio.js';
import type { PersonStep } from './doubles/twilio-media.js';
import type { VoiceDoubles } from './doubles/voice.js';
import { insertAssistant } from './fixtures.js';
import type { TestService, TestUser } from './service.js';
import { addTwilioNumber, type startToolEndpoint } from './twilio-service.js';
import { waitFor } from './wait.js';

export const GREETING = 'Hello, this is the booking line.';
export const QUESTION = fixture('book-appointment');
export const YES = fixture('yes-that-works');
export const OFFER = 'I can offer tomorrow at ten, would that suit you?';
export const GOODBYE = 'Booked for tomorrow at ten, goodbye!';
/** What the calendar tool's endpoint answers. */
export const FREE_SLOTS = { free: ['10:00', '14:30'] };
/** The model's answer to QUESTION: check the calendar (a mid-call tool) first, then OFFER. */
export const CHECK_SLOTS = { toolCalls: [{ id: 'slots-1', name: 'check_slots', args: { day: 'tomorrow' } }] };
/** The model's answer to YES: GOODBYE, and the call ends. */
export const SAY_GOODBYE = { text: GOODBYE, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] };

export type ToolEndpoint = Awaited<ReturnType<typeof startToolEndpoint>>;

export type Turn = {
  kind: string;
  caller_text: string | null;
  assistant_text: string;
  interrupted: boolean;
  timings: { final_transcript_ms: number | null; llm_first_token_ms: number | null; tts_first_byte_ms: number | null; first_audio_ms: number | null };
};

export interface BookingLineOptions {
  userName: string;
  /** The assistant's Twilio number and the character its `PN…` sid is made of. */
  phoneNumber: string;
  sidChar: string;
  /** The admin's voice row the assistant speaks with. */
  voice: { name: string; mode: 'pipeline' | 'multimodal'; provider_voice_id: string };
  /** The endpoint of the `check_slots` tool (startToolEndpoint(FREE_SLOTS)). */
  tool: ToolEndpoint;
}

/** A user whose assistant answers on a Twilio number with the booking greeting and the calendar tool. */
export async function setUpBookingLine(t: TestService, o: BookingLineOptions): Promise<{ user: TestUser; assistantId: number }> {
  const user = await t.createUser({ name: o.userName, max_calls_in_parallel: 2 });
  const phone = await addTwilioNumber(t, user.id, o.phoneNumber, o.sidChar);
  expect(phone.status).toBe(201);
  const voiceRow = (await t.admin.post('/api/admin/voices', { ...o.voice, provider: 'openai' })).body.data;
  const created = await user.post('/api/user/tools', {
    name: 'check_slots',
    description: 'Free appointment slots on a day.',
    endpoint: `${o.tool.url}/slots`,
    method: 'POST',
    schema: [{ name: 'day', type: 'string', description: 'The day asked for', required: true }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const assistantId = (
    await insertAssistant(t, user.id, {
      phoneNumberId: phone.id,
      voiceId: voiceRow.id,
      ...(o.voice.mode === 'multimodal' ? { mode: 'multimodal' as const } : {}),
      initialMessage: GREETING,
      maxDuration: 90,
    })
  ).id;
  await t.service.ctx.database.db.insert(assistantTools).values({ assistantId, toolId: created.body.data.id, position: 0 });
  return { user, assistantId };
}

export interface BookingCall {
  callId: number;
  call: DoubleCall;
  /** The call's final record through the API. */
  record: any;
}

/**
 * Places the call to `number`, where the double's person says QUESTION and YES, each after the
 * assistant has spoken; returns once the call is over and its record final. Checks that the
 * tool's endpoint got the model's arguments.
 */
export async function holdBookingCall(
  t: TestService,
  user: TestUser,
  assistantId: number,
  { double, voice, tool, number }: { double: TwilioDouble; voice: VoiceDoubles; tool: ToolEndpoint; number: string },
): Promise<BookingCall> {
  tool.hits.length = 0;
  const steps: PersonStep[] = [
    { waitForAssistant: { timeoutMs: 20_000 } },
    { say: voice.fixture(QUESTION.name, 8000), label: QUESTION.name },
    { waitForAssistant: { timeoutMs: 20_000 } },
    { say: voice.fixture(YES.name, 8000), label: YES.name },
  ];
  double.script(number, { ringMs: 200, steps });
  const res = await user.post('/api/user/make_call', { phone_number: number, assistant_id: assistantId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const callId = Number(res.body.call_id);
  const call = await double.callTo(number);
  await call.done;
  const record = await waitFor('the final call record', async () => {
    const r = (await user.get(`/api/user/calls/${callId}`)).body;
    return ['initiated', 'ringing', 'in-progress'].includes(r.status) ? null : r;
  });
  await t.service.ctx.services.callEngine!.whenFinished(callId);

  // The tool's endpoint got the model's arguments.
  expect(tool.hits).toHaveLength(1);
  expect(JSON.stringify(tool.hits[0]!.body)).toContain('tomorrow');
  return { callId, call, record };
}

/**
 * What the caller and the API say about the call: the person heard the greeting, the offer and
 * the goodbye; the record is completed with the whole transcript; /turns has the greeting and
 * one reply per caller utterance, each with every stage timed in causal order; a second user
 * sees none of it. Returns the reply turns (for the mode's own timing check).
 */
export async function expectBookingCallRecorded(t: TestService, user: TestUser, voice: VoiceDoubles, { callId, call, record }: BookingCall): Promise<Turn[]> {
  // The person heard the greeting, the offer and the goodbye (matched back from the audio).
  const heard = heardUtterances(call.person!, voice.clips);
  const events = call.person!.events.filter((e) => e.type !== 'in:media').slice(-12);
  expect(heard.map((u) => u.text), JSON.stringify({ heard, segments: call.person!.heard.map((g) => [g.atMs, g.samples.length / 8]), events, endedBy: call.endedBy })).toEqual([GREETING, OFFER, GOODBYE]);

  // The record through the API.
  expect(record.status).toBe('completed');
  expect(record.transcript.split('\n')).toEqual([`AI: ${GREETING}`, `Customer: ${QUESTION.text}`, `AI: ${OFFER}`, `Customer: ${YES.text}`, `AI: ${GOODBYE}`]);

  // The turns: the greeting, then one reply per caller utterance, in order.
  const turnsRes = await user.get(`/api/user/calls/${callId}/turns`);
  expect(turnsRes.status).toBe(200);
  const turns = turnsRes.body.data as Turn[];
  expect(turns.map((x) => [x.kind, x.caller_text, x.assistant_text, x.interrupted])).toEqual([
    ['greeting', null, GREETING, false],
    ['reply', QUESTION.text, OFFER, false],
    ['reply', YES.text, GOODBYE, false],
  ]);
  const replies = turns.filter((x) => x.kind === 'reply');
  // The tool the model called in the first reply, with what it asked and what came back.
  const slots = (turns[1] as Turn & { tool_calls: { name: string; arguments: string; ok: boolean; answer: string; at_ms: number; duration_ms: number }[] }).tool_calls;
  expect(slots.map((c) => [c.name, JSON.parse(c.arguments), c.ok]), JSON.stringify(slots)).toEqual([['check_slots', { day: 'tomorrow' }, true]]);
  expect(slots[0]!.answer).toContain('14:30');
  expect(slots[0]!.at_ms).toBeGreaterThanOrEqual(0);
  expect(slots[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  for (const turn of replies) {
    const { final_transcript_ms: stt, llm_first_token_ms: llm, tts_first_byte_ms: tts, first_audio_ms: audio } = turn.timings;
    // Every stage happened, in causal order from the caller's end of speech. The model may answer
    // before the final transcript: the reply starts while the turn is only likely over (speculative,
    // src/voice/speculation.ts), but nothing is heard before the turn is confirmed.
    expect([stt, llm, tts, audio].every((v) => typeof v === 'number'), JSON.stringify(turn.timings)).toBe(true);
    expect(stt!).toBeGreaterThanOrEqual(0);
    expect(llm!).toBeGreaterThanOrEqual(0);
    expect(tts!).toBeGreaterThanOrEqual(llm!);
    expect(audio!).toBeGreaterThanOrEqual(tts!);
    expect(audio!).toBeGreaterThanOrEqual(stt!);
  }
  // The second user sees neither the call nor its turns.
  const other = await t.createUser({ name: `Other than ${user.id}` });
  expect((await other.get(`/api/user/calls/${callId}/turns`)).status).toBe(404);
  return replies;
}
