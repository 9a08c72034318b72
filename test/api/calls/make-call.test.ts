import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { calls } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const INVALID = 'Invalid phone number format. Please use E.164 format (e.g. +1234567890)';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;

beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart] });
  alice = await t.createUser();
  bob = await t.createUser();
  assistantId = (await insertAssistant(t, alice.id)).id;
});
afterAll(() => t.close());

async function finished(callId: number) {
  await t.service.ctx.services.callEngine!.whenFinished(callId);
}

describe('POST /api/user/make_call', () => {
  it('answers 200 with the call id and status initiated (numeric or digit-string assistant id)', async () => {
    for (const id of [assistantId, String(assistantId)]) {
      const res = await alice.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Call initiated successfully', call_id: expect.any(Number), status: 'initiated' });
      await finished(res.body.call_id);
    }
  });

  it('normalises a national number with the default region', async () => {
    const res = await alice.post('/api/user/make_call', { phone_number: '0151 23456700', assistant_id: assistantId });
    expect(res.status).toBe(200);
    await finished(res.body.call_id);
    expect((await alice.get(`/api/user/calls/${res.body.call_id}`)).body.client_phone_number).toBe('+4915123456700');
  });

  it.each(['12345', 'abc', '+49', '+4915123456700x', '', '+999123456789'])('refuses the invalid number %j with the E.164 message', async (phone) => {
    const res = await alice.post('/api/user/make_call', { phone_number: phone, assistant_id: assistantId });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: INVALID });
  });

  it('validates the field types', async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ assistant_id: assistantId }, { phone_number: ['The phone number field is required.'] }],
      [{ phone_number: 4915123456700, assistant_id: assistantId }, { phone_number: ['The phone number field must be a string.'] }],
      [{ phone_number: `+49${'1'.repeat(63)}`, assistant_id: assistantId }, { phone_number: ['The phone number field must not be greater than 64 characters.'] }],
      [{ phone_number: '+4915123456700' }, { assistant_id: ['The assistant id field is required.'] }],
      [{ phone_number: '+4915123456700', assistant_id: 'abc' }, { assistant_id: ['The assistant id field must be an integer.'] }],
      [{ phone_number: '+4915123456700', assistant_id: 1.5 }, { assistant_id: ['The assistant id field must be an integer.'] }],
      [{ phone_number: '+4915123456700', assistant_id: 0 }, { assistant_id: ['The selected assistant id is invalid.'] }],
      [{ phone_number: '+4915123456700', assistant_id: assistantId, variables: ['a'] }, { variables: ['The variables field must be an object.'] }],
      [{ phone_number: '+4915123456700', assistant_id: assistantId, variables: 'x' }, { variables: ['The variables field must be an object.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await alice.post('/api/user/make_call', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({ message: 'The given data was invalid.', errors });
    }
  });

  it('accepts 64 characters of number text and null variables (the accepted edges)', async () => {
    const padded = `+49 151 23456700${' '.repeat(64 - '+49 151 23456700'.length)}`;
    expect(padded).toHaveLength(64);
    const res = await alice.post('/api/user/make_call', { phone_number: padded, assistant_id: assistantId, variables: null });
    expect(res.status).toBe(200);
    await finished(res.body.call_id);
    expect((await alice.get(`/api/user/calls/${res.body.call_id}`)).body.variables).toEqual({});
  });

  it('answers 404 for an unknown assistant, another user’s assistant and a deleted one', async () => {
    const deleted = await insertAssistant(t, alice.id, { deletedAt: '2026-01-01 00:00:00+00' });
    const bobs = await insertAssistant(t, bob.id);
    for (const id of [999999, bobs.id, deleted.id]) {
      const res = await alice.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: id });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Assistant not found' });
    }
    const own = await bob.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: bobs.id });
    expect(own.status).toBe(200);
    await finished(own.body.call_id);
    // Bob's call is not Alice's.
    expect((await alice.get(`/api/user/calls/${own.body.call_id}`)).status).toBe(404);
  });

  it('answers 422 "Assistant is inactive." for an inactive assistant', async () => {
    const inactive = await insertAssistant(t, alice.id, { status: 'inactive' });
    const res = await alice.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: inactive.id });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Assistant is inactive.' });
  });

  it('enforces max_calls_in_parallel over live calls with 429 (the limit itself is reachable)', async () => {
    const carol = await t.createUser({ max_calls_in_parallel: 2 });
    const a = await insertAssistant(t, carol.id);
    const { db } = t.service.ctx.database;
    const live = (status: string) => ({ userId: carol.id, assistantId: a.id, assistantName: 'x', type: 'outbound', status, clientPhoneNumber: '+4915123456700', ownerInstance: t.service.ctx.instanceId });
    await db.insert(calls).values([live('in-progress'), live('completed'), live('busy')]);
    const ok = await carol.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: a.id });
    expect(ok.status).toBe(200); // 1 live → the 2nd slot is free
    await db.insert(calls).values([live('ringing')]);
    await finished(ok.body.call_id);
    await db.insert(calls).values([live('initiated')]);
    const refused = await carol.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: a.id });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too many calls in parallel: your account allows 2 at a time.' });
  });

  it('at the limit while calls end meanwhile, answers 429 and never 404 for an assistant that exists', async () => {
    const dave = await t.createUser({ max_calls_in_parallel: 2 });
    const a = await insertAssistant(t, dave.id);
    const { pool } = t.service.ctx.database;
    const row = `INSERT INTO calls (user_id, assistant_id, assistant_name, type, status, client_phone_number, owner_instance) VALUES ($1, $2, 'x', 'outbound', 'in-progress', '+4915123456700', $3) RETURNING id`;
    const values = [dave.id, a.id, t.service.ctx.instanceId];
    for (let i = 0; i < 2; i++) await pool.query(row, values);
    // Live calls end and new ones take their slot all the while: the account stays at its limit,
    // with a call ending between a refused INSERT and whatever the refusal looks at next.
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const { rows } = await pool.query(row, values).catch(() => ({ rows: [] as { id: number }[] }));
        await pool.query(`UPDATE calls SET status = 'completed', ended_at = now() WHERE user_id = $1 AND status = 'in-progress' AND id <> ALL($2::int[])`, [dave.id, rows.map((r) => r.id)]);
      }
    })();
    const answers: number[] = [];
    for (let round = 0; round < 8; round++) {
      const batch = await Promise.all(Array.from({ length: 12 }, () => dave.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: a.id })));
      answers.push(...batch.map((r) => r.status));
      for (const r of batch) if (r.status === 200) await finished(r.body.call_id);
    }
    churning = false;
    await churn;
    expect(answers.filter((s) => s !== 200 && s !== 429), `answers: ${answers.join(',')}`).toEqual([]);
    expect(answers).toContain(429);
  });

  it('needs a token', async () => {
    const res = await t.anonymous.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: assistantId });
    expect(res.status).toBe(401);
  });
});

describe('a fresh service with no configuration', () => {
  it('completes a make_call on the sandbox with the offline stand-in and a transcript', async () => {
    const user = await t.createUser();
    const created = await user.post('/api/user/assistant', { assistant_name: 'Tour', voice_id: 1, calls_direction: 'make', initial_message: 'Hi {{name}}!' });
    expect(created.status).toBe(201);
    const res = await user.post('/api/user/make_call', { phone_number: '+4915123456789', assistant_id: created.body.data.id, variables: { name: 'Sam' } });
    expect(res.status).toBe(200);
    await finished(res.body.call_id);
    const record = await user.get(`/api/user/calls/${res.body.call_id}`);
    expect(record.body).toMatchObject({
      status: 'completed',
      assistant_name: 'Tour',
      answered_by: 'human',
      transcript: ['[offline stand-in: no LLM configured]', 'AI: Hi Sam!', 'Customer: Hello, yes, speaking.', 'AI: Thank you for your time. Goodbye!'].join('\n'),
      evaluation: { status: true, summary: expect.any(String) },
    });
  });
});

describe('a process without the call engine (HTTP only)', () => {
  it('answers 503 instead of accepting calls it cannot run', async () => {
    const httpOnly = await startTestService({});
    try {
      const user = await httpOnly.createUser();
      const a = await insertAssistant(httpOnly, user.id);
      const res = await user.post('/api/user/make_call', { phone_number: '+4915123456700', assistant_id: a.id });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: 'The call engine is not running.' });
      const inbound = await user.post('/api/user/sandbox/inbound-call', { to: '+493012345670', from: '+4915123456700' });
      expect(inbound.status).toBe(503);
    } finally {
      await httpOnly.close();
    }
  });
});
