/**
 * `mode: multimodal` end to end THROUGH THE SERVICE: a phone call on the Twilio double (the
 * person's fixture speech in 20 ms μ-law frames at real pace, silence between), the whole
 * process as `npm start` composes it with REALTIME_URL pointing at the Realtime double, and an
 * assistant in multimodal mode whose voice is the realtime provider's `shimmer`. The model hears
 * the caller's audio over the Realtime protocol (G.711 μ-law at 8 kHz, as the line carries it),
 * calls a mid-call tool on a local HTTP endpoint (its result goes back as a function output),
 * and ends the call with end-call. Checked from the outside: what the person heard, the tool
 * request, the record's transcript and status through the API, and /turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../../src/compose.js';
import { assistantTools } from '../../../src/db/schema.js';
import { fixture } from '../../support/audio-fixtures.js';
import { heardUtterances } from '../../support/doubles/heard.js';
import type { TwilioDouble } from '../../support/doubles/twilio.js';
import type { PersonStep } from '../../support/doubles/twilio-media.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';
import { addTwilioNumber, startRoutedTwilioDouble, startToolEndpoint, twilioEnv } from '../../support/twilio-service.js';

const GREETING = 'Hello, this is the booking line.';
const QUESTION = fixture('book-appointment');
const YES = fixture('yes-that-works');
const OFFER = 'I can offer tomorrow at ten, would that suit you?';
const GOODBYE = 'Booked for tomorrow at ten, goodbye!';
/** The Realtime double waits this long before an answer's first delta. */
const FIRST_DELTA_MS = 80;

let voice: VoiceDoubles;
let double: TwilioDouble;
let tool: Awaited<ReturnType<typeof startToolEndpoint>>;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.realtime.knobs.firstDeltaDelayMs = FIRST_DELTA_MS;
  // The question makes the model check the calendar (a mid-call tool) before it answers.
  voice.realtime.on(QUESTION.text, { toolCalls: [{ id: 'slots-1', name: 'check_slots', args: { day: 'tomorrow' } }] }, { text: OFFER });
  voice.realtime.on(YES.text, { text: GOODBYE, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] });
  tool = await startToolEndpoint({ free: ['10:00', '14:30'] });
  double = await startRoutedTwilioDouble(() => local);
}, 60_000);

afterAll(async () => {
  await double?.close();
  await voice?.close();
  await tool?.close();
});

type Turn = {
  kind: string;
  caller_text: string | null;
  assistant_text: string;
  interrupted: boolean;
  timings: { final_transcript_ms: number | null; llm_first_token_ms: number | null; tts_first_byte_ms: number | null; first_audio_ms: number | null };
};

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
    user = await t.createUser({ name: 'Voice e2e multimodal', max_calls_in_parallel: 2 });
    const phone = await addTwilioNumber(t, user.id, '+14155550803', 'f');
    expect(phone.status).toBe(201);
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Realtime double voice', mode: 'multimodal', provider: 'openai', provider_voice_id: 'shimmer' })).body.data;
    const created = await user.post('/api/user/tools', {
      name: 'check_slots',
      description: 'Free appointment slots on a day.',
      endpoint: `${tool.url}/slots`,
      method: 'POST',
      schema: [{ name: 'day', type: 'string', description: 'The day asked for', required: true }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    assistantId = (
      await insertAssistant(t, user.id, { phoneNumberId: phone.id, voiceId: voiceRow.id, mode: 'multimodal', initialMessage: GREETING, maxDuration: 90 })
    ).id;
    await t.service.ctx.database.db.insert(assistantTools).values({ assistantId, toolId: created.body.data.id, position: 0 });
  }, 90_000);

  afterAll(async () => {
    await t?.close();
  });

  it('the caller is heard, the tool runs, the answers are heard; the record and its turns say so', async () => {
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
    for (const turn of turns.filter((x) => x.kind === 'reply')) {
      const { final_transcript_ms: stt_, llm_first_token_ms: llm, tts_first_byte_ms: tts, first_audio_ms: audio } = turn.timings;
      // Every stage happened, in causal order from the caller's end of speech.
      expect([stt_, llm, tts, audio].every((v) => typeof v === 'number'), JSON.stringify(turn.timings)).toBe(true);
      expect(stt_!).toBeGreaterThanOrEqual(0);
      expect(llm!).toBeGreaterThanOrEqual(stt_!);
      expect(tts!).toBeGreaterThanOrEqual(llm!);
      expect(audio!).toBeGreaterThanOrEqual(tts!);
      // The model's first audio came no sooner than the double's configured delay after the caller stopped.
      expect(tts!, JSON.stringify(turn.timings)).toBeGreaterThanOrEqual(FIRST_DELTA_MS - 5);
    }
    // The second user sees neither the call nor its turns.
    const other = await t.createUser({ name: 'Other multimodal' });
    expect((await other.get(`/api/user/calls/${callId}/turns`)).status).toBe(404);
  }, 120_000);
});
