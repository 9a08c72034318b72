import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { calls } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const NONE = { message: 'No inbound assistant on this number' };

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let aliceNumber: { id: number; phone_number: string };

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
  alice = await t.createUser();
  bob = await t.createUser();
  aliceNumber = await t.addPhoneNumber(alice.id, '+493012345670');
  await insertAssistant(t, alice.id, { name: 'Front desk', type: 'inbound', phoneNumberId: aliceNumber.id, initialMessage: 'Front desk, how can I help?' });
});
afterAll(() => t.close());

async function simulate(user: TestUser, body: unknown) {
  const res = await user.post('/api/user/sandbox/inbound-call', body);
  if (res.status === 200) await t.service.ctx.services.callEngine!.whenFinished(res.body.call_id);
  return res;
}

describe('POST /api/user/sandbox/inbound-call', () => {
  it('runs an inbound call on the number’s inbound assistant', async () => {
    const res = await simulate(alice, { to: aliceNumber.phone_number, from: '+4915123456700', variables: { topic: 'billing' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Inbound call simulated', call_id: expect.any(Number) });
    const record = (await alice.get(`/api/user/calls/${res.body.call_id}`)).body;
    expect(record).toMatchObject({
      type: 'inbound',
      status: 'completed',
      assistant_name: 'Front desk',
      assistant_phone_number: '+493012345670',
      client_phone_number: '+4915123456700',
      answered_by: 'human',
      variables: { topic: 'billing' },
      transcript: ['[offline stand-in: no LLM configured]', 'AI: Front desk, how can I help?', 'Customer: Hello, yes, speaking.', 'AI: Thank you for your time. Goodbye!'].join('\n'),
    });
  });

  it('lets the caller’s last two digits choose the behaviour', async () => {
    for (const [from, status] of [['+4915123456795', 'ended_by_customer'], ['+4915123456793', 'failed']]) {
      const res = await simulate(alice, { to: aliceNumber.phone_number, from });
      expect((await alice.get(`/api/user/calls/${res.body.call_id}`)).body.status).toBe(status);
    }
  });

  it('answers 404 when no active inbound assistant of the caller holds the number', async () => {
    const spare = await t.addPhoneNumber(alice.id, '+493012345671');
    const outboundNumber = await t.addPhoneNumber(alice.id, '+493012345672');
    await insertAssistant(t, alice.id, { type: 'outbound', phoneNumberId: outboundNumber.id });
    const inactiveNumber = await t.addPhoneNumber(alice.id, '+493012345673');
    await insertAssistant(t, alice.id, { type: 'inbound', status: 'inactive', phoneNumberId: inactiveNumber.id });
    const deletedNumber = await t.addPhoneNumber(alice.id, '+493012345674');
    await insertAssistant(t, alice.id, { type: 'inbound', phoneNumberId: deletedNumber.id, deletedAt: '2026-01-01 00:00:00+00' });
    for (const to of [spare.phone_number, outboundNumber.phone_number, inactiveNumber.phone_number, deletedNumber.phone_number, '+4930999', 'nonsense']) {
      const res = await simulate(alice, { to, from: '+4915123456700' });
      expect(res.status, to).toBe(404);
      expect(res.body).toEqual(NONE);
    }
  });

  it('answers another user exactly like a number without an inbound assistant', async () => {
    const res = await simulate(bob, { to: aliceNumber.phone_number, from: '+4915123456700' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NONE);
  });

  it('answers 429 when the account’s parallel calls are used up', async () => {
    const carol = await t.createUser({ max_calls_in_parallel: 1 });
    const number = await t.addPhoneNumber(carol.id, '+493012345679');
    const assistant = await insertAssistant(t, carol.id, { type: 'inbound', phoneNumberId: number.id });
    await t.service.ctx.database.db.insert(calls).values({
      userId: carol.id, assistantId: assistant.id, assistantName: 'x', type: 'inbound', status: 'in-progress', clientPhoneNumber: '+4915123456700', ownerInstance: t.service.ctx.instanceId,
    });
    const res = await simulate(carol, { to: number.phone_number, from: '+4915123456700' });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: 'Too many calls in parallel: your account allows 1 at a time.' });
  });

  it('validates the body', async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ from: '+4915123456700' }, { to: ['The to field is required.'] }],
      [{ to: aliceNumber.phone_number }, { from: ['The from field is required.'] }],
      [{ to: 493012345670, from: '+4915123456700' }, { to: ['The to field must be a string.'] }],
      [{ to: aliceNumber.phone_number, from: 'abc' }, { from: ['The from field must be a valid phone number in E.164 format.'] }],
      [{ to: aliceNumber.phone_number, from: '+4915123456700', variables: [1] }, { variables: ['The variables field must be an object.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await alice.post('/api/user/sandbox/inbound-call', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({ message: 'The given data was invalid.', errors });
    }
  });

  it('accepts a national-format caller number (normalised) and null variables', async () => {
    const res = await simulate(alice, { to: aliceNumber.phone_number, from: '0151 23456700', variables: null });
    expect(res.status).toBe(200);
    expect((await alice.get(`/api/user/calls/${res.body.call_id}`)).body.client_phone_number).toBe('+4915123456700');
  });
});
