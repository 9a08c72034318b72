/**
 * Built-in tools on Twilio calls (issue 20), through the Twilio double and the voice doubles:
 * the person asks to be put through; the model presses keys (dtmf_input) — in-band DTMF tones
 * in the media stream, which the person's side hears and a Goertzel receiver recognises — then
 * transfers the call (call_transfer): the person hears the transfer message, then the double
 * receives the REST update of the live call with a `<Dial>` to the number and connects it.
 * The call record is `completed` with the transfer in its transcript.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../../src/compose.js';
import { fixture } from '../../support/audio-fixtures.js';
import { detectDtmf } from '../../support/dtmf.js';
import type { TwilioDouble } from '../../support/doubles/twilio.js';
import { startVoiceDoubles, type VoiceDoubles } from '../../support/doubles/voice.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { PUBLIC, startRoutedTwilioDouble, twilioEnv } from '../../support/twilio-service.js';

const GREETING = 'Hello, this is Switchboard.';
const QUESTION = fixture('book-appointment');
const MESSAGE = 'Connecting you to our team now.';
const TARGET = '+4930123456';

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
});
