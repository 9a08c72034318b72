/**
 * One call per sandbox outcome (CONTRACT §9), placed through make_call on a service with no
 * LLM configured (the offline stand-in), each checked as the full call record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { insertAssistant } from '../support/fixtures.js';
import { SANDBOX_SCRIPTS } from '../../src/telephony/sandbox/carrier.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let user: TestUser;
let assistantPhone: string;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
  user = await t.createUser({ max_calls_in_parallel: 50 });
  const number = await t.addPhoneNumber(user.id, '+4930555000');
  assistantPhone = number.phone_number;
});
afterAll(() => t.close());

const NOTE = '[offline stand-in: no LLM configured]';

async function assistant(overrides: Parameters<typeof insertAssistant>[2] = {}) {
  return insertAssistant(t, user.id, { name: 'Outcome assistant', phoneNumberId: (await phoneId()), ...overrides });
}

async function phoneId(): Promise<number> {
  const res = await t.service.ctx.database.pool.query('SELECT id FROM phone_numbers WHERE user_id = $1 ORDER BY id LIMIT 1', [user.id]);
  return res.rows[0].id;
}

async function call(assistantId: number, phone: string, variables: Record<string, unknown> = { customer_name: 'Ada' }) {
  const res = await user.post('/api/user/make_call', { phone_number: phone, assistant_id: assistantId, variables });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ message: 'Call initiated successfully', call_id: expect.any(Number), status: 'initiated' });
  await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  const record = await user.get(`/api/user/calls/${res.body.call_id}`);
  expect(record.status).toBe(200);
  return record.body;
}

function neverConnected(record: any, status: string, phone: string, assistantId: number) {
  expect(record).toEqual({
    id: expect.any(Number),
    assistant_name: 'Outcome assistant',
    campaign_name: null,
    type: 'outbound',
    duration: 0,
    assistant_phone_number: assistantPhone,
    client_phone_number: phone,
    status,
    transcript: '',
    variables: { customer_name: 'Ada' },
    evaluation: {},
    webhook_response: {},
    carrier_cost: 0,
    total_cost: 0,
    answered_by: 'unknown',
    recording_url: null,
    created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
  });
  expect(assistantId).toBeGreaterThan(0);
}

describe('sandbox outcomes by the last two digits', () => {
  it('…91 is busy', async () => {
    const a = await assistant();
    neverConnected(await call(a.id, '+4915123456791'), 'busy', '+4915123456791', a.id);
  });

  it('…92 is no-answer', async () => {
    const a = await assistant();
    neverConnected(await call(a.id, '+4915123456792'), 'no-answer', '+4915123456792', a.id);
  });

  it('…93 is failed', async () => {
    const a = await assistant();
    neverConnected(await call(a.id, '+4915123456793'), 'failed', '+4915123456793', a.id);
  });

  it('…94 is a voicemail box: answered_by machine, ended_by_assistant with end_call_on_voicemail', async () => {
    const a = await assistant({ endCallOnVoicemail: true });
    const record = await call(a.id, '+4915123456794');
    expect(record).toMatchObject({
      status: 'ended_by_assistant',
      answered_by: 'machine',
      transcript: NOTE,
      duration: 0,
      carrier_cost: 0,
      total_cost: 0,
      recording_url: null,
      variables: { customer_name: 'Ada' },
      evaluation: { status: false, summary: expect.stringContaining('ended with status ended_by_assistant') },
      webhook_response: {},
      client_phone_number: '+4915123456794',
      assistant_phone_number: assistantPhone,
      type: 'outbound',
    });
  });

  it('…94 with voice_mail_message: the message (its variables filled) is left after the box’s greeting, ended_by_assistant', async () => {
    const a = await assistant({ voiceMailMessage: 'Hi {{customer_name}}, this is Switchboard. Please call us back.' });
    const record = await call(a.id, '+4915123456794');
    expect(record).toMatchObject({ status: 'ended_by_assistant', answered_by: 'machine', client_phone_number: '+4915123456794' });
    expect(record.transcript.split('\n')).toEqual([NOTE, `Customer: ${SANDBOX_SCRIPTS.voicemail}`, 'AI: Hi Ada, this is Switchboard. Please call us back.']);
  });

  it('…95 is a person who hangs up mid-conversation: ended_by_customer', async () => {
    const a = await assistant();
    const record = await call(a.id, '+4915123456795');
    expect(record).toMatchObject({
      status: 'ended_by_customer',
      answered_by: 'human',
      transcript: [NOTE, 'AI: Hello Ada, this is Switchboard.', 'Customer: Sorry, I cannot talk right now.'].join('\n'),
      evaluation: { status: false, summary: expect.stringContaining('ended with status ended_by_customer') },
      recording_url: null,
      duration: 0,
    });
  });

  it('any other number is a person who converses and lets the assistant close: completed', async () => {
    const a = await assistant({
      record: true,
      postCallSchema: [
        { name: 'interested', type: 'bool', description: 'Is the customer interested?' },
        { name: 'customer_name', type: 'string', description: 'Name of the customer' },
        { name: 'budget', type: 'number', description: 'Budget in euro' },
      ],
    });
    const record = await call(a.id, '+4915123456700', { customer_name: 'Ada', plan: 'gold' });
    expect(record).toEqual({
      id: expect.any(Number),
      assistant_name: 'Outcome assistant',
      campaign_name: null,
      type: 'outbound',
      duration: 0,
      assistant_phone_number: assistantPhone,
      client_phone_number: '+4915123456700',
      status: 'completed',
      transcript: [NOTE, 'AI: Hello Ada, this is Switchboard.', 'Customer: Hello, yes, speaking.', 'AI: Thank you for your time. Goodbye!'].join('\n'),
      variables: { customer_name: 'Ada', plan: 'gold' },
      evaluation: {
        interested: false,
        customer_name: 'Ada',
        budget: 0,
        status: true,
        summary: 'Offline stand-in call: 1 customer utterance(s), 0 tool call(s), ended with status completed.',
      },
      webhook_response: {},
      carrier_cost: 0,
      total_cost: 0,
      answered_by: 'human',
      recording_url: null, // the sandbox records no audio, so there is nothing to link
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('waits for the customer to speak first when who_speaks_first is Customer', async () => {
    const a = await assistant({ waitForCustomer: true, postCallEvaluation: false });
    const record = await call(a.id, '+4915123456701');
    expect(record.status).toBe('completed');
    expect(record.evaluation).toEqual({});
    expect(record.transcript).toBe(
      [NOTE, 'Customer: Hello?', 'AI: Hello Ada, this is Switchboard.', 'Customer: Hello, yes, speaking.', 'AI: Thank you for your time. Goodbye!'].join('\n'),
    );
  });

  it('never speaks placeholders the call does not supply (issue 18; docs/decisions.md)', async () => {
    const a = await assistant({ initialMessage: 'Hi {{customer_name}}, about {{unknown_thing}}.' });
    const record = await call(a.id, '+4915123456702', {});
    expect(record.transcript.split('\n')[1]).toBe('AI: Hi, about.');
    expect(record.variables).toEqual({});
  });

  it('every call ends in a final state with ended_at set and no owner left running', async () => {
    const { rows } = await t.service.ctx.database.pool.query(
      `SELECT status, ended_at, updated_at >= created_at AS moved FROM calls WHERE user_id = $1`,
      [user.id],
    );
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const r of rows) {
      expect(['initiated', 'ringing', 'in-progress']).not.toContain(r.status);
      expect(r.ended_at).not.toBeNull();
      expect(r.moved).toBe(true);
    }
    expect(t.service.ctx.services.calls!.activeCalls()).toBe(0);
  });
});
