/**
 * warm_call_transfer on Twilio calls (issue 20), through the whole service, the Twilio double and
 * the voice doubles. The person asks for help; the model calls `warm-transfer`:
 * - the person hears the hold message, then the hold music (found in what they heard, at the
 *   volume asked for);
 * - the supervisor's leg is placed over REST; the caller id asked for (the customer's number) is
 *   refused by Twilio as unverified, so the outbound number is shown, and the transcript says so;
 * - the supervisor is briefed with Twilio's voice (`<Say>` in the assistant's language): the
 *   briefing message and the LLM's summary, written from the conversation;
 * - both legs go into one conference room, the supervisor first; the call is the room's from
 *   then on and ends when the supervisor hangs up; the record is `completed`.
 * A supervisor who does not answer is hung up on and the assistant is back with the caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdMusicLoop } from '../../../src/audio/hold-music.js';
import { END_CALL_TOOL } from '../../../src/calls/session.js';
import { fullProcess } from '../../../src/compose.js';
import { fixture } from '../../support/audio-fixtures.js';
import { heardWithoutUnderruns } from '../../support/doubles/heard.js';
import type { TwilioDouble } from '../../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { addTwilioNumber, startRoutedTwilioDouble, twilioEnv } from '../../support/twilio-service.js';

const GREETING = 'Hello, this is Switchboard.';
const QUESTION = fixture('book-appointment');
const HOLD = 'Please hold, I am getting my supervisor.';
const CONNECTED = 'You are now connected with my supervisor.';
const SUMMARY = 'Ada wants to book an appointment.';
const SORRY = 'I am sorry, nobody could be reached. Goodbye.';
const OUTBOUND = '+14155550800';
const VOLUME = 50;

let voice: VoiceDoubles;
let double: TwilioDouble;
let t: TestService;
let user: TestUser;
let local = '';
let outboundId = 0;

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(QUESTION.text, { toolCalls: [{ id: 'w1', name: 'warm-transfer', args: {} }] }, { text: SORRY, toolCalls: [{ id: 'e1', name: END_CALL_TOOL, args: {} }] });
  // The summary request: the transcript so far, which starts with the greeting.
  voice.llm.on(/^AI: /, { text: SUMMARY });
  // Twilio shows only the account's numbers (and verified ones) as the caller id.
  double = await startRoutedTwilioDouble(() => local, { verifiedCallerIds: [OUTBOUND] });
  t = await startTestService({ listen: true, parts: fullProcess, env: { ...voice.envFor({ stt: 'deepgram' }), ...twilioEnv(double) } });
  local = t.service.url!;
  user = await t.createUser({ name: 'Twilio warm transfer' });
  const number = await addTwilioNumber(t, user.id, OUTBOUND, 'e');
  expect(number.status).toBe(201);
  outboundId = number.id;
}, 90_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
  await voice?.close();
});

async function callWithWarmTransfer(customer: string, supervisor: string) {
  const voiceRow = (await t.admin.post('/api/admin/voices', { name: `Warm ${customer}`, mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
  const assistant = await insertAssistant(t, user.id, { phoneNumberId: outboundId, voiceId: voiceRow.id, initialMessage: GREETING, maxDuration: 90 });
  const put = await user.put(`/api/user/assistant/${assistant.id}`, {
    tools: [
      {
        type: 'warm_call_transfer',
        supervisor_phone: supervisor,
        outbound_phone_id: outboundId,
        description: 'Put the caller through to a supervisor.',
        caller_id_mode: 'customer_number',
        hold_music: 'hold_music',
        hold_music_volume: VOLUME,
        hold_message: HOLD,
        summary_instructions: 'One sentence for the supervisor.',
        briefing_initial_message: 'Hi, I have a caller for you.',
        connected_message: CONNECTED,
      },
    ],
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  double.script(customer, {
    ringMs: 300,
    steps: [{ waitForAssistant: { timeoutMs: 15_000 } }, { say: voice.fixture(QUESTION.name, 8000), label: QUESTION.name }, { pause: 40_000 }],
  });
  const res = await user.post('/api/user/make_call', { phone_number: customer, assistant_id: assistant.id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const call = await double.callTo(customer);
  await call.done;
  await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
  return { call, record };
}

/**
 * Where the hold music starts in what the person heard, and how well the next second matches it:
 * the music starts at the loop's beginning, so its first 250 ms are searched for (normalised
 * correlation; μ-law leaves it near 1), then the following second is compared with the loop.
 */
function findHoldMusic(heard: Int16Array, volume: number): { at: number; correlation: number; levelRatio: number } {
  const loop = holdMusicLoop(8000);
  const probe = loop.subarray(0, 2000);
  const probeEnergy = Math.sqrt(probe.reduce((s, v) => s + v * v, 0));
  let best = { at: -1, score: -1 };
  for (let at = 0; at + probe.length <= heard.length; at++) {
    let dot = 0;
    let energy = 0;
    for (let i = 0; i < probe.length; i++) {
      const h = heard[at + i]!;
      dot += h * probe[i]!;
      energy += h * h;
    }
    const score = energy > 0 ? dot / (Math.sqrt(energy) * probeEnergy) : 0;
    if (score > best.score) best = { at, score };
  }
  const second = Math.min(8000, heard.length - best.at);
  let dot = 0;
  let heardEnergy = 0;
  let loopEnergy = 0;
  for (let i = 0; i < second; i++) {
    const h = heard[best.at + i]!;
    const l = loop[i]! * volume;
    dot += h * l;
    heardEnergy += h * h;
    loopEnergy += l * l;
  }
  return { at: best.at, correlation: dot / Math.sqrt(heardEnergy * loopEnergy), levelRatio: Math.sqrt(heardEnergy / loopEnergy) };
}

describe('warm_call_transfer on a Twilio call', () => {
  it('holds the caller with music, briefs the supervisor with Twilio’s voice, then joins both in one conference', async () => {
    const SUPERVISOR = '+14155550900';
    const CUSTOMER = '+14155550811';
    double.script(SUPERVISOR, { ringMs: 2500, conferenceMs: 1500 });
    const { call, record } = await callWithWarmTransfer(CUSTOMER, SUPERVISOR);

    // The supervisor's leg: the customer's number was refused as caller id, the outbound number shown.
    const creates = double.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.form.get('To') === SUPERVISOR);
    expect(creates.map((r) => [r.form.get('From'), r.status])).toEqual([
      [CUSTOMER, 400],
      [OUTBOUND, 201],
    ]);
    const supervisor = await double.callTo(SUPERVISOR);
    // Briefed with Twilio's voice in the assistant's language: the message, then the LLM's summary.
    expect(supervisor.said).toEqual([`Hi, I have a caller for you. ${SUMMARY}`]);
    expect(supervisor.sayLanguages).toEqual(['en-US']);
    const summaryRequest = voice.llm.received.find((r) => r.body?.tools === undefined && r.body?.messages?.[0]?.content === 'One sentence for the supervisor.');
    expect(summaryRequest?.body.messages[1].content).toContain(`Customer: ${QUESTION.text}`);

    // Both in one room: the supervisor starts it, either leaving ends it; hold music while waiting.
    const room = double.conferences.get(supervisor.conference!)!;
    expect(room.participants.map((p) => [p.sid, p.spec.startConferenceOnEnter, p.spec.endConferenceOnExit, p.spec.waitUrl, p.spec.beep])).toEqual([
      [supervisor.sid, true, true, undefined, false],
      [call.sid, false, true, undefined, false],
    ]);
    expect(call.conference).toBe(room.room);
    // Both legs leave the assistant's time limit behind (max_duration): Twilio's four hours apply.
    const joins = double.requests.filter((r) => r.method === 'POST' && (r.form.get('Twiml') ?? '').includes('<Conference'));
    expect(joins.map((r) => [r.path.includes(supervisor.sid) ? 'supervisor' : r.path.includes(call.sid) ? 'caller' : r.path, r.form.get('TimeLimit')])).toEqual([
      ['supervisor', '14400'],
      ['caller', '14400'],
    ]);
    // The supervisor hung up after talking; the room ended and with it the caller's call.
    expect(supervisor.endedBy).toBe('person');
    expect(call.status).toBe('completed');
    expect(room.endedAt).not.toBeNull();

    // The person heard the hold message, then the music at the volume asked for, then the connected message.
    const said = voice.speech.received.map((r) => r.body.input);
    expect(said).toEqual(expect.arrayContaining([GREETING, HOLD, CONNECTED]));
    const music = findHoldMusic(heardWithoutUnderruns(call.person!), VOLUME / 100);
    expect(music.correlation).toBeGreaterThan(0.9);
    expect(music.levelRatio).toBeGreaterThan(0.85);
    expect(music.levelRatio).toBeLessThan(1.15);

    expect(record.status).toBe('completed');
    const lines = record.transcript.split('\n').filter((l: string) => !l.startsWith('Customer:'));
    expect(lines.slice(-6)).toEqual([
      `AI: ${HOLD}`,
      `Warm transfer: calling the supervisor ${SUPERVISOR} from ${CUSTOMER}.`,
      `Warm transfer: the carrier refused ${CUSTOMER} as the caller id; the supervisor sees ${OUTBOUND}.`,
      `Briefing (to the supervisor): Hi, I have a caller for you. ${SUMMARY}`,
      `AI: ${CONNECTED}`,
      `Warm transfer: the caller was connected to the supervisor ${SUPERVISOR}.`,
    ]);
  }, 120_000);

  it('a supervisor who does not answer is hung up on; the assistant is back with the caller and says so', async () => {
    const SUPERVISOR = '+14155550901';
    const CUSTOMER = '+14155550812';
    double.script(SUPERVISOR, { outcome: 'no-answer', ringMs: 2000 });
    const { call, record } = await callWithWarmTransfer(CUSTOMER, SUPERVISOR);
    const supervisor = await double.callTo(SUPERVISOR);
    expect(supervisor.status).toBe('no-answer');
    expect(supervisor.said).toEqual([]);
    expect(call.conference).toBeNull();
    // The person heard the music while the phone rang.
    expect(findHoldMusic(heardWithoutUnderruns(call.person!), VOLUME / 100).correlation).toBeGreaterThan(0.9);
    expect(record.status).toBe('completed');
    const lines = record.transcript.split('\n').filter((l: string) => !l.startsWith('Customer:'));
    expect(lines.slice(-4)).toEqual([
      `Warm transfer: calling the supervisor ${SUPERVISOR} from ${CUSTOMER}.`,
      `Warm transfer: the carrier refused ${CUSTOMER} as the caller id; the supervisor sees ${OUTBOUND}.`,
      `Warm transfer: the supervisor did not answer (no-answer); back to the caller.`,
      `AI: ${SORRY}`,
    ]);
  }, 120_000);
});
