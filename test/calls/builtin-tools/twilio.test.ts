/**
 * Built-in tools on Twilio calls (issue 20), through the Twilio double and the voice doubles:
 * the person asks to be put through; the model presses keys (dtmf_input) — in-band DTMF tones
 * in the media stream, which the person's side hears and a Goertzel receiver recognises — then
 * transfers the call (call_transfer): the person hears the transfer message, then the double
 * receives the REST update of the live call with a `<Dial>` to the number and connects it.
 * The call record is `completed` with the transfer in its transcript.
 *
 * collect_keypad: the person presses keys after the assistant asks for them — Twilio's `dtmf`
 * media-stream messages — and the keys up to the stop key (or until the timeout) are the
 * function's result in the model's next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { END_CALL_TOOL } from '../../../src/calls/session.js';
import { fullProcess } from '../../../src/compose.js';
import { fixture } from '../../support/audio-fixtures.js';
import { detectDtmf } from '../../support/dtmf.js';
import type { TwilioDouble } from '../../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { addTwilioNumber, startRoutedTwilioDouble, twilioEnv } from '../../support/twilio-service.js';

const GREETING = 'Hello, this is Switchboard.';
const QUESTION = fixture('book-appointment');
const MESSAGE = 'Connecting you to our team now.';
const TARGET = '+4930123456';
const KEYPAD_QUESTION = fixture('friday-afternoon');
const TIMEOUT_QUESTION = fixture('yes-that-works');
const ASK_FOR_KEYS = 'Please type your customer number on the keypad.';
/** About 7 s of the double's speech: far longer than the 2 s timeout of the case that uses it. */
const LONG_ASK_FOR_KEYS = 'Please type your customer number on the keypad. You find it at the top of your last invoice, right after the letters CN.';

let voice: VoiceDoubles;
let double: TwilioDouble;
let t: TestService;
let user: TestUser;
let local = '';

beforeAll(async () => {
  voice = await startVoiceDoubles();
  voice.llm.on(
    QUESTION.text,
    { toolCalls: [{ id: 'p1', name: 'press-digits', args: { digits: '12#' } }] },
    { toolCalls: [{ id: 'x1', name: 'transfer-call', args: {} }] },
  );
  // collect_keypad: the model asks for the keys and waits for them in the same answer, then
  // thanks the caller and ends the call once it has the keys.
  for (const [question, id, ask] of [
    [KEYPAD_QUESTION, 'k1', ASK_FOR_KEYS],
    [TIMEOUT_QUESTION, 'k2', LONG_ASK_FOR_KEYS],
  ] as const) {
    voice.llm.on(
      question.text,
      { text: ask, toolCalls: [{ id, name: 'collect-keypad', args: {} }] },
      { text: 'Thank you, goodbye.', toolCalls: [{ id: `${id}-end`, name: END_CALL_TOOL, args: {} }] },
    );
  }
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
  user = await t.createUser({ name: 'Twilio tools' });
}, 90_000);

afterAll(async () => {
  await t?.close();
  await double?.close();
  await voice?.close();
});

describe('built-in tools on a Twilio call', () => {
  it('dtmf_input plays DTMF tones the person hears; call_transfer redirects the live call to a <Dial> of the number', async () => {
    const number = await t.admin.post(`/api/admin/users/${user.id}/phone-numbers`, {
      phone_number: '+14155550800',
      type_label: 'Normal',
      carrier: 'twilio',
      carrier_sid: 'PN' + 'd'.repeat(32),
    });
    expect(number.status).toBe(201);
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: 'Double voice tools', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const assistant = await insertAssistant(t, user.id, { phoneNumberId: number.body.data.id, voiceId: voiceRow.id, initialMessage: GREETING, maxDuration: 60 });
    const put = await user.put(`/api/user/assistant/${assistant.id}`, {
      tools: [{ type: 'dtmf_input' }, { type: 'call_transfer', phone_number: TARGET, warm_transfer: true, warm_transfer_message: MESSAGE }],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    double.script('+14155550811', {
      ringMs: 300,
      steps: [{ waitForAssistant: { timeoutMs: 15_000 } }, { say: voice.fixture(QUESTION.name, 8000), label: QUESTION.name }, { pause: 20_000 }],
    });
    const res = await user.post('/api/user/make_call', { phone_number: '+14155550811', assistant_id: assistant.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const call = await double.callTo('+14155550811');
    await call.done;
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);

    // The double got the REST update of the live call with the <Dial>, and connected the number.
    const update = double.requests.find((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${call.sid}.json`) && r.form.get('Twiml'));
    expect(update?.form.get('Twiml')).toContain(`<Dial><Number>${TARGET}</Number></Dial>`);
    // The assistant's max_duration no longer limits the caller's talk with a person: Twilio's own ceiling does.
    expect(update?.form.get('TimeLimit')).toBe('14400');
    expect(call.dialed).toEqual([TARGET]);
    // The person heard the keys (in-band tones) and the transfer message before the redirect.
    expect(detectDtmf(call.person!.heardTimeline(), 8000)).toBe('12#');
    expect(voice.speech.received.map((r) => r.body.input)).toContain(MESSAGE);

    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record.status).toBe('completed');
    const lines = record.transcript.split('\n');
    expect(lines).toContain('DTMF: the assistant pressed 12#.');
    expect(lines.slice(-2)).toEqual([`AI: ${MESSAGE}`, `Transfer: the call was transferred to ${TARGET}.`]);
  }, 90_000);

  /**
   * One call to a collect_keypad assistant: the person asks `question`, waits for the request
   * for keys, presses `keys` (one Twilio `dtmf` message each) and stays on the line until the
   * assistant ends the call. Returns the tool message of the model's request after the keys.
   */
  async function keypadCall(opts: { question: typeof KEYPAD_QUESTION; ask: string; keys: string; stopKey: '#' | null; timeout: number; from: string; callee: string; sidChar: string }) {
    const number = await addTwilioNumber(t, user.id, opts.from, opts.sidChar);
    expect(number.status).toBe(201);
    const voiceRow = (await t.admin.post('/api/admin/voices', { name: `Double voice keypad ${opts.sidChar}`, mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' })).body.data;
    const assistant = await insertAssistant(t, user.id, { phoneNumberId: number.id, voiceId: voiceRow.id, initialMessage: GREETING, maxDuration: 60 });
    const put = await user.put(`/api/user/assistant/${assistant.id}`, { tools: [{ type: 'collect_keypad', timeout: opts.timeout, stop_key: opts.stopKey }] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    double.script(opts.callee, {
      ringMs: 300,
      steps: [
        { waitForAssistant: { timeoutMs: 15_000 } },
        { say: voice.fixture(opts.question.name, 8000), label: opts.question.name },
        { waitForAssistant: { timeoutMs: 15_000 } },
        { dtmf: opts.keys },
        { pause: 20_000 },
      ],
    });
    const before = voice.llm.received.length;
    const spokenBefore = voice.speech.received.length;
    const res = await user.post('/api/user/make_call', { phone_number: opts.callee, assistant_id: assistant.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const call = await double.callTo(opts.callee);
    await call.done;
    await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);

    // The request for keys was spoken; the keys went over the media stream as Twilio's dtmf messages.
    expect(voice.speech.received.slice(spokenBefore).map((r) => r.body.input).join(' ')).toContain(opts.ask);
    expect(call.person!.events.filter((e) => e.type === 'out:dtmf').map((e) => e.detail).join('')).toBe(opts.keys);
    const afterKeys = voice.llm.received.slice(before).find((r) => r.body?.messages?.some((m: { role: string }) => m.role === 'tool'));
    const record = (await user.get(`/api/user/calls/${res.body.call_id}`)).body;
    return { toolMessage: afterKeys?.body.messages.at(-1), record, call };
  }

  it("collect_keypad: the person's key presses (Twilio dtmf messages) up to the stop key are the function's result", async () => {
    const { toolMessage, record } = await keypadCall({ question: KEYPAD_QUESTION, ask: ASK_FOR_KEYS, keys: '42#', stopKey: '#', timeout: 10, from: '+14155550820', callee: '+14155550821', sidChar: 'e' });
    expect(toolMessage).toEqual({ role: 'tool', tool_call_id: 'k1', content: JSON.stringify({ digits: '42', ended_by: 'stop_key' }) });
    expect(record.status).toBe('completed');
    // The request for keys and the thanks are one turn of the assistant; the keys are not in the transcript.
    expect(record.transcript.split('\n').at(-1)).toBe(`AI: ${ASK_FOR_KEYS} Thank you, goodbye.`);
  }, 90_000);

  it('collect_keypad without a stop key: the keys pressed until `timeout` seconds of quiet are the result, counted from the end of a long request', async () => {
    // The model asks and calls the function in one answer: the request (about 7 s) is still
    // being synthesised and played when the function runs. The 2 s timeout counts from when it
    // has been played; the person presses keys 0.7 s after it ends (waitForAssistant).
    const { toolMessage, record, call } = await keypadCall({ question: TIMEOUT_QUESTION, ask: LONG_ASK_FOR_KEYS, keys: '75', stopKey: null, timeout: 2, from: '+14155550830', callee: '+14155550831', sidChar: 'f' });
    expect(toolMessage).toEqual({ role: 'tool', tool_call_id: 'k2', content: JSON.stringify({ digits: '75', ended_by: 'timeout' }) });
    expect(record.status).toBe('completed');
    // The request played for longer than twice the timeout (from its first audio to its last
    // mark played back), all of it after the function's call: a timeout counted from the call
    // would have ended the collection, empty, before the person could press a key.
    const events = call.person!.events;
    const asked = events.findIndex((e) => e.type === 'step' && e.detail === `say ${TIMEOUT_QUESTION.name}`);
    const keysAt = events.find((e) => e.type === 'out:dtmf')!.atMs;
    const requestStart = events.find((e, i) => i > asked && e.type === 'in:media')!.atMs;
    const requestEnd = events.filter((e) => e.type === 'out:mark' && e.atMs <= keysAt).at(-1)!.atMs;
    expect(requestEnd - requestStart).toBeGreaterThan(4_000);
    expect(keysAt - requestEnd).toBeLessThan(2_000);
    expect(record.transcript).toContain(`AI: ${LONG_ASK_FOR_KEYS}`);
  }, 90_000);
});
