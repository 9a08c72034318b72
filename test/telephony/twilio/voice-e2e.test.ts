/**
 * Twilio calls through the real voice core (issue 16 "Must show"): the Twilio double places the
 * person on the line, who speaks caller fixtures (real speech) in 20 ms μ-law frames at real
 * pace and keeps what they heard; the service runs the session on the media stream with the
 * vendor doubles — Deepgram live recognises the caller's clips, the chat double answers (and
 * closes the call with end-call), the OpenAI speech double speaks. Checked: calls from
 * `make_call` and from a running campaign reach `completed` with the transcript of what was
 * said, and the person heard the assistant's replies (matched back to the spoken sentences);
 * barge-in: talking over a reply gets Twilio a `clear`, the person stops hearing the reply and
 * the transcript keeps only what was heard; keys the person presses reach the session and the
 * model as a caller turn (`[keypad: 42#]`, src/voice/keypad.ts).
 *
 * Real pace (double speed 1): the service hands audio out paced at real time, so a faster
 * double would play each frame as it arrives and hear gaps.
 * @one-database: real-pace audio through the service; the database only stores what the call did,
 * which the API tests check on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, rms } from '../../../src/audio/pcm.js';
import { fullProcess } from '../../../src/compose.js';
import { leads } from '../../../src/db/schema.js';
import { fixture } from '../../support/audio-fixtures.js';
import type { TwilioDouble, DoubleCall } from '../../support/doubles/twilio.js';
import type { PersonStep, StreamPerson } from '../../support/doubles/twilio-media.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { PUBLIC, startRoutedTwilioDouble, twilioEnv } from '../../support/twilio-service.js';

const GREETING = 'Hello, this is Switchboard.';
const QUESTION = fixture('book-appointment');
const YES = fixture('yes-that-works');
const OFFER = 'Of course, would tomorrow at ten suit you?';
const GOODBYE = 'Great, see you tomorrow at ten, goodbye!';
const FRIDAY = fixture('friday-afternoon');
// Long enough that the VAD's barge-in rule (default interrupt_sensitivity: 0.8 for 280 ms) always
// fires; the two short words of 'wait-stop' only just pass it and sometimes do not.
const INTERRUPTION = fixture('long-interruption');
/** Long enough that the person talks over it. */
const SLOTS =
  'On Friday afternoon I can offer you two o clock, half past two, three o clock, a quarter to four, or five in the evening, and if none of these suit you there is still Saturday morning.';
const WHAT_INSTEAD = 'Of course, what would you like instead?';
const OPTION = 'Option forty two it is, goodbye!';
const SALES = 'You chose sales, one moment please.';
const WORDS_AND_KEYS = 'Booking with option five, goodbye!';

let voice: VoiceDoubles;
let double: TwilioDouble;
let t: TestService;
let user: TestUser;
let assistantId: number;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(QUESTION.text, { text: OFFER });
  voice.llm.on(YES.text, { text: GOODBYE, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] });
  voice.llm.on(FRIDAY.text, { text: SLOTS });
  voice.llm.on(INTERRUPTION.text, { text: WHAT_INSTEAD });
  voice.llm.on('[keypad: 1]', { text: SALES });
  voice.llm.on('[keypad: 42#]', { text: OPTION, toolCalls: [{ id: 'end-2', name: 'end-call', args: {} }] });
  voice.llm.on(`${QUESTION.text} [keypad: 5#]`, { text: WORDS_AND_KEYS, toolCalls: [{ id: 'end-3', name: 'end-call', args: {} }] });
  double = await startRoutedTwilioDouble(() => local);
  t = await startTestService({
    listen: true,
    parts: fullProcess,
    env: {
      ...voice.envFor({ stt: 'deepgram' }),
      ...twilioEnv(double),
    },
  });
  local = t.service.url!;
  user = await t.createUser({ name: 'Twilio voice', max_calls_in_parallel: 5 });
  const number = await t.admin.post(`/api/admin/users/${user.id}/phone-numbers`, {
    phone_number: '+14155550700',
    type_label: 'Normal',
    carrier: 'twilio',
    carrier_sid: 'PN' + 'c'.repeat(32),
  });
  expect(number.status).toBe(201);
  // The assistant speaks through the OpenAI-compatible speech double.
  const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Double voice', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
  assistantId = (
    await insertAssistant(t, user.id, { phoneNumberId: number.body.data.id, voiceId: voiceRow.id, initialMessage: GREETING, maxDuration: 60 })
  ).id;
}, 90_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
  await voice?.close();
});

/** The person's side: waits for the greeting, asks, waits for the offer, agrees, then listens. */
const conversation = (): PersonStep[] => [
  { waitForAssistant: { timeoutMs: 15_000 } },
  { say: voice.fixture(QUESTION.name, 8000), label: QUESTION.name },
  { waitForAssistant: { timeoutMs: 15_000 } },
  { say: voice.fixture(YES.name, 8000), label: YES.name },
];

const EXPECTED_TRANSCRIPT = [`AI: ${GREETING}`, `Customer: ${QUESTION.text}`, `AI: ${OFFER}`, `Customer: ${YES.text}`, `AI: ${GOODBYE}`];

async function callRow(id: number) {
  const { rows } = await t.service.ctx.database.pool.query('SELECT * FROM calls WHERE id = $1', [id]);
  return rows[0];
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function finished(callId: number): Promise<Record<string, any>> {
  await until(`call ${callId} to end`, async () => !['initiated', 'ringing', 'in-progress'].includes((await callRow(callId)).status));
  await t.service.ctx.services.callEngine!.whenFinished(callId);
  return callRow(callId);
}

/** A pause in what the person heard shorter than this is the line running dry for a moment (late audio), not a new turn. */
const UNDERRUN_MS = 250;

/**
 * What the person heard, one entry per stretch of assistant audio (a turn; here every turn is one
 * sentence), named after the clip it matches. Brief gaps where the double had nothing queued
 * (audio handed out late on a busy machine, as a real line would play it) are left out before
 * matching: they shift the rest of the envelope and say nothing about what was said.
 */
function heardSentences(person: StreamPerson): Array<{ text: string | null; startMs: number; endMs: number }> {
  const groups: Array<{ startMs: number; endMs: number; parts: Int16Array[] }> = [];
  for (const segment of person.heard) {
    const endMs = segment.atMs + (segment.samples.length / 8000) * 1000;
    const last = groups.at(-1);
    if (last && segment.atMs - last.endMs < UNDERRUN_MS) {
      last.parts.push(segment.samples);
      last.endMs = endMs;
    } else groups.push({ startMs: segment.atMs, endMs, parts: [segment.samples] });
  }
  return groups
    .map((g) => ({ ...g, samples: concat(g.parts) }))
    .filter((g) => rms(g.samples) > 100)
    .map((g) => ({ text: voice.clips.matchAudio(g.samples, 8000)?.text ?? null, startMs: g.startMs, endMs: g.endMs }));
}

function describeCall(call: DoubleCall): string {
  const person = call.person;
  return JSON.stringify({
    status: call.status,
    endedBy: call.endedBy,
    events: person?.events.filter((e) => e.type !== 'in:media').slice(-30),
    // What was played to the person: [call time ms, length ms] per stretch without an underrun.
    heard: person?.heard.map((h) => [h.atMs, h.samples.length / 8]),
  });
}

describe('Twilio calls through the voice core', () => {
  it('make_call: the person hears the greeting, is understood, hears the answers; the assistant closes the call: completed', async () => {
    double.script('+14155550711', { ringMs: 300, steps: conversation() });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550711', assistant_id: assistantId });
    expect(res.status).toBe(200);
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550711');
    await call.done;
    const row = await finished(callId);
    expect(row.status, describeCall(call)).toBe('completed');
    expect(row.carrier_call_sid).toBe(call.sid);
    expect(row.transcript.split('\n')).toEqual(EXPECTED_TRANSCRIPT);
    // The assistant ended the call (closing the stream, then REST), after the goodbye was heard.
    expect(['service', 'rest']).toContain(call.endedBy);
    expect(heardSentences(call.person!).map((s) => s.text), describeCall(call)).toEqual([GREETING, OFFER, GOODBYE]);
    // The record through the API says the same.
    const record = (await user.get(`/api/user/calls/${callId}`)).body;
    expect(record).toMatchObject({ status: 'completed', transcript: row.transcript });
  }, 90_000);

  it('a running campaign: its lead is called on Twilio, the conversation runs, the call completes and so does the campaign', async () => {
    const campaign = await insertCampaign(t, user.id, assistantId, { maxCallsInParallel: 1, maxRetries: 1, retryInterval: 0 });
    double.script('+14155550712', { ringMs: 300, steps: conversation() });
    await t.service.ctx.database.db.insert(leads).values({ userId: user.id, campaignId: campaign.id, phoneNumber: '+14155550712' });
    expect((await user.post('/api/user/campaigns/update-status', { campaign_id: campaign.id, action: 'start' })).status).toBe(200);
    const call = await double.callTo('+14155550712', 60_000);
    await call.done;
    const { rows } = await t.service.ctx.database.pool.query('SELECT id FROM calls WHERE campaign_id = $1', [campaign.id]);
    expect(rows).toHaveLength(1);
    const row = await finished(rows[0].id);
    expect(row.status, describeCall(call)).toBe('completed');
    expect(row.transcript.split('\n')).toEqual(EXPECTED_TRANSCRIPT);
    expect(heardSentences(call.person!).map((s) => s.text), describeCall(call)).toEqual([GREETING, OFFER, GOODBYE]);
    await until('the campaign to complete', async () => (await t.service.ctx.database.pool.query('SELECT status FROM campaigns WHERE id = $1', [campaign.id])).rows[0].status === 'completed', 60_000);
  }, 120_000);

  it('barge-in: the person talks over the reply; Twilio gets clear, the person stops hearing it, the transcript keeps only what was heard', async () => {
    double.script('+14155550713', {
      ringMs: 300,
      steps: [
        { waitForAssistant: { timeoutMs: 15_000 } },
        { say: voice.fixture(FRIDAY.name, 8000), label: FRIDAY.name },
        { waitUntilHearing: { afterMs: 1500, timeoutMs: 15_000 } },
        { say: voice.fixture(INTERRUPTION.name, 8000), label: INTERRUPTION.name },
        { waitForAssistant: { timeoutMs: 15_000 } },
        { hangUp: true },
      ],
    });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550713', assistant_id: assistantId });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550713');
    await call.done;
    const row = await finished(callId);
    const person = call.person!;
    expect(row.status, describeCall(call)).toBe('ended_by_customer');

    // Twilio was told to drop the reply's queued audio once the person spoke over it.
    expect(person.clears.length, describeCall(call)).toBeGreaterThanOrEqual(1);
    const clearAt = person.clears[0];
    const interruptionAt = person.events.find((e) => e.type === 'step' && e.detail === `say ${INTERRUPTION.name}`)!.atMs;
    expect(clearAt).toBeGreaterThanOrEqual(interruptionAt);
    // The person stopped hearing the reply at the clear: the heard audio stops growing there and
    // nothing more plays until the answer to the interruption, after the person finished speaking.
    const sentences = heardSentences(person);
    const cut = sentences.find((s) => s.startMs <= clearAt && s.endMs >= clearAt - 100)!;
    expect(cut, JSON.stringify(sentences)).toBeDefined();
    const seen = JSON.stringify({ clearAt, interruptionAt, sentences, transcript: row.transcript });
    expect(cut.endMs, seen).toBeLessThanOrEqual(clearAt + 40);
    const after = sentences.filter((s) => s.startMs > clearAt);
    expect(after.map((s) => s.text), seen).toEqual([WHAT_INSTEAD]);
    expect(after[0].startMs).toBeGreaterThan(interruptionAt + INTERRUPTION.durationMs - 200);
    // Heard: the greeting, a beginning of the slots (not the whole of it), the answer.
    expect(sentences[0].text).toBe(GREETING);
    const fullSlotsMs = (voice.clips.say(SLOTS, 8000).length / 8000) * 1000;
    expect(cut.endMs - cut.startMs).toBeLessThan(fullSlotsMs * 0.8);

    // The transcript keeps what the person heard of the reply, and what came after.
    const lines = row.transcript.split('\n');
    expect(lines[0]).toBe(`AI: ${GREETING}`);
    expect(lines[1]).toBe(`Customer: ${FRIDAY.text}`);
    const heard = lines[2].replace(/^AI: /, '').replace(/…$/, '').trim();
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.length).toBeLessThan(SLOTS.length);
    expect(SLOTS.startsWith(heard)).toBe(true);
    expect(lines.slice(3)).toEqual([`Customer: ${INTERRUPTION.text}`, `AI: ${WHAT_INSTEAD}`]);
    const turns = (await user.get(`/api/user/calls/${callId}/turns`)).body.data;
    expect(turns.find((turn: { caller_text: string | null }) => turn.caller_text === FRIDAY.text)).toMatchObject({ interrupted: true });
  }, 90_000);

  it('DTMF: the keys the person presses reach the session as a caller turn the model answers', async () => {
    double.script('+14155550714', {
      ringMs: 300,
      steps: [{ waitForAssistant: { timeoutMs: 15_000 } }, { dtmf: '42#' }, { waitForAssistant: { timeoutMs: 15_000 } }],
    });
    const before = voice.llm.received.length;
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550714', assistant_id: assistantId });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550714');
    await call.done;
    const row = await finished(callId);
    expect(row.status, describeCall(call)).toBe('completed');
    expect(call.person!.events.filter((e) => e.type === 'out:dtmf').map((e) => e.detail)).toEqual(['4', '2', '#']);
    expect(row.transcript.split('\n')).toEqual([`AI: ${GREETING}`, 'Customer: [keypad: 42#]', `AI: ${OPTION}`]);
    // The model read the keys as the caller's message.
    const asked = voice.llm.received.slice(before).filter((r) => r.body?.stream);
    expect(asked.some((r) => r.body.messages.at(-1)?.content === '[keypad: 42#]')).toBe(true);
    const sentences = heardSentences(call.person!);
    expect(sentences.map((s) => s.text), describeCall(call)).toEqual([GREETING, OPTION]);
    const turns = (await user.get(`/api/user/calls/${callId}/turns`)).body.data;
    expect(turns.map((turn: { caller_text: string | null }) => turn.caller_text)).toContain('[keypad: 42#]');
  }, 90_000);

  it('DTMF during a sentence: the words and the keys are one caller turn, both in the transcript and the model\'s message', async () => {
    const question = voice.fixture(QUESTION.name, 8000);
    const half = Math.floor(question.length / 2);
    double.script('+14155550716', {
      ringMs: 300,
      steps: [
        { waitForAssistant: { timeoutMs: 15_000 } },
        { say: question.subarray(0, half), label: 'first half' },
        // '#' ends the keys at once: before, it opened a turn of its own and the sentence was lost.
        { dtmf: '5#' },
        { say: question.subarray(half), label: 'second half' },
        { waitForAssistant: { timeoutMs: 15_000 } },
      ],
    });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550716', assistant_id: assistantId });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550716');
    await call.done;
    const row = await finished(callId);
    expect(row.status, describeCall(call)).toBe('completed');
    expect(row.transcript.split('\n')).toEqual([`AI: ${GREETING}`, `Customer: ${QUESTION.text} [keypad: 5#]`, `AI: ${WORDS_AND_KEYS}`]);
    expect(heardSentences(call.person!).map((s) => s.text), describeCall(call)).toEqual([GREETING, WORDS_AND_KEYS]);
  }, 90_000);

  it('DTMF: a key pressed during the greeting cuts it off (Twilio gets clear) and is answered', async () => {
    double.script('+14155550715', {
      ringMs: 300,
      steps: [{ waitUntilHearing: { afterMs: 800, timeoutMs: 15_000 } }, { dtmf: '1' }, { waitForAssistant: { timeoutMs: 15_000 } }, { hangUp: true }],
    });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550715', assistant_id: assistantId });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550715');
    await call.done;
    const row = await finished(callId);
    const person = call.person!;
    expect(row.status, describeCall(call)).toBe('ended_by_customer');
    const keyAt = person.events.find((e) => e.type === 'out:dtmf')!.atMs;
    expect(person.clears.length, describeCall(call)).toBeGreaterThanOrEqual(1);
    expect(person.clears[0]).toBeGreaterThanOrEqual(keyAt);
    const sentences = heardSentences(person);
    // The greeting stopped at the clear; the next thing heard is the answer to the key.
    expect(sentences[0].endMs, JSON.stringify(sentences)).toBeLessThanOrEqual(person.clears[0] + 40);
    expect(sentences.slice(1).map((s) => s.text)).toEqual([SALES]);
    // Half of the greeting was heard (the transcript counts whole words heard to their end).
    const lines = row.transcript.split('\n');
    const heard = lines[0].replace(/^AI: /, '').replace(/…$/, '').trim();
    expect(heard.length, row.transcript + describeCall(call)).toBeGreaterThan(0);
    expect(heard.length).toBeLessThan(GREETING.length);
    expect(GREETING.startsWith(heard), row.transcript + describeCall(call)).toBe(true);
    expect(lines.slice(1)).toEqual(['Customer: [keypad: 1]', `AI: ${SALES}`]);
  }, 90_000);
});
