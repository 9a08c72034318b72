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
 * no shorter than the speech double's configured delay.
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
/** The speech double waits this long before its first byte; the turn's TTS stage cannot be shorter. */
const TTS_FIRST_BYTE_MS = 120;

let voice: VoiceDoubles;
let double: TwilioDouble;
let tool: Awaited<ReturnType<typeof startToolEndpoint>>;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.speech.knobs.firstByteDelayMs = TTS_FIRST_BYTE_MS;
  // The question makes the model check the calendar (a mid-call tool) before it answers.
  voice.llm.on(QUESTION.text, { toolCalls: [{ id: 'slots-1', name: 'check_slots', args: { day: 'tomorrow' } }] }, { text: OFFER });
  voice.llm.on(YES.text, { text: GOODBYE, toolCalls: [{ id: 'end-1', name: 'end-call', args: {} }] });
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

describe.each([
  { stt: 'deepgram' as const, number: '+14155550811' },
  { stt: 'openai' as const, number: '+14155550812' },
])('a phone call through the service with $stt speech-to-text', ({ stt, number }) => {
  let t: TestService;
  let user: TestUser;
  let assistantId: number;

  beforeAll(async () => {
    t = await startTestService({
      listen: true,
      parts: fullProcess,
      env: {
        ...voice.envFor({ stt }),
        ...twilioEnv(double),
        // The mid-call tool's endpoint is on this machine.
        ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    local = t.service.url!;
    user = await t.createUser({ name: `Voice e2e ${stt}`, max_calls_in_parallel: 2 });
    const phone = await addTwilioNumber(t, user.id, stt === 'deepgram' ? '+14155550801' : '+14155550802', stt === 'deepgram' ? 'd' : 'e');
    expect(phone.status).toBe(201);
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: `Double voice ${stt}`, mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const created = await user.post('/api/user/tools', {
      name: 'check_slots',
      description: 'Free appointment slots on a day.',
      endpoint: `${tool.url}/slots`,
      method: 'POST',
      schema: [{ name: 'day', type: 'string', description: 'The day asked for', required: true }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    assistantId = (
      await insertAssistant(t, user.id, { phoneNumberId: phone.id, voiceId: voiceRow.id, initialMessage: GREETING, maxDuration: 90 })
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
    // The model saw the tool's result before it answered.
    const afterTool = voice.llm.received.find((r) => r.body?.messages?.some((m: { role: string }) => m.role === 'tool'));
    expect(JSON.stringify(afterTool?.body.messages)).toContain('14:30');

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
      // Text-to-speech starts after the first words and its first byte takes the double's delay.
      expect(tts! - llm!, JSON.stringify(turn.timings)).toBeGreaterThanOrEqual(TTS_FIRST_BYTE_MS - 5);
    }
    // The second user sees neither the call nor its turns.
    const other = await t.createUser({ name: `Other ${stt}` });
    expect((await other.get(`/api/user/calls/${callId}/turns`)).status).toBe(404);
  }, 120_000);
});
