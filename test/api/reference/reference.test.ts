import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let numbers: { normal: number; callerId: number; assigned: number; outboundUsed: number };
let privateVoice: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser();
  bob = await t.createUser();
  const normal = await t.addPhoneNumber(alice.id, '+4930111111');
  const callerId = await t.addPhoneNumber(alice.id, '+4930222222', 'Caller ID');
  const assigned = await t.addPhoneNumber(alice.id, '+4930333333');
  const outboundUsed = await t.addPhoneNumber(alice.id, '+4930444444');
  await t.addPhoneNumber(bob.id, '+4930555555');
  await insertAssistant(t, alice.id, { type: 'inbound', phoneNumberId: assigned.id });
  await insertAssistant(t, alice.id, { type: 'outbound', phoneNumberId: outboundUsed.id });
  numbers = { normal: normal.id, callerId: callerId.id, assigned: assigned.id, outboundUsed: outboundUsed.id };
  privateVoice = (await t.admin.post('/api/admin/voices', { name: 'Alice clone', mode: 'pipeline', user_id: alice.id })).body.data.id;
});
afterAll(() => t.close());

describe('GET /api/user/assistants/phone-numbers', () => {
  it("lists the caller's numbers with is_available", async () => {
    const res = await alice.get('/api/user/assistants/phone-numbers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: numbers.normal, phone_number: '+4930111111', country_code: 'DE', type_label: 'Normal', is_available: true },
      { id: numbers.callerId, phone_number: '+4930222222', country_code: 'DE', type_label: 'Caller ID', is_available: true },
      { id: numbers.assigned, phone_number: '+4930333333', country_code: 'DE', type_label: 'Normal', is_available: false },
      { id: numbers.outboundUsed, phone_number: '+4930444444', country_code: 'DE', type_label: 'Normal', is_available: true },
    ]);
  });

  it('with type=inbound leaves out Caller ID and assigned numbers', async () => {
    const res = await alice.get('/api/user/assistants/phone-numbers?type=inbound');
    expect(res.body.map((n: { id: number }) => n.id)).toEqual([numbers.normal, numbers.outboundUsed]);
    const outbound = await alice.get('/api/user/assistants/phone-numbers?type=outbound');
    expect(outbound.body).toHaveLength(4);
  });

  it('rejects an unknown type', async () => {
    const res = await alice.get('/api/user/assistants/phone-numbers?type=sideways');
    expect(res).toMatchObject({ status: 422, body: { message: 'The given data was invalid.', errors: { type: ['The selected type is invalid.'] } } });
  });

  it("never shows another user's numbers", async () => {
    const res = await bob.get('/api/user/assistants/phone-numbers');
    expect(res.body.map((n: { phone_number: string }) => n.phone_number)).toEqual(['+4930555555']);
    const all = await bob.get('/api/user/phone-numbers/all');
    expect(all.body.data.map((n: { phone_number: string }) => n.phone_number)).toEqual(['+4930555555']);
  });
});

describe('GET /api/user/phone-numbers/all', () => {
  it('wraps all numbers in data', async () => {
    const res = await alice.get('/api/user/phone-numbers/all');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(4);
  });
});

describe('GET /api/user/assistants/voices', () => {
  it('lists public voices and the caller\'s own', async () => {
    const res = await alice.get('/api/user/assistants/voices');
    expect(res.status).toBe(200);
    expect(res.body.some((v: { id: number }) => v.id === privateVoice)).toBe(true);
    expect(res.body.filter((v: { mode: string }) => v.mode === 'multimodal').length).toBeGreaterThan(0);
    for (const v of res.body) expect(Object.keys(v).sort()).toEqual(['id', 'mode', 'name']);
  });

  it('filters by mode and rejects an unknown mode', async () => {
    const multimodal = await alice.get('/api/user/assistants/voices?mode=multimodal');
    expect(multimodal.body.length).toBeGreaterThan(0);
    expect(multimodal.body.every((v: { mode: string }) => v.mode === 'multimodal')).toBe(true);
    expect((await alice.get('/api/user/assistants/voices?mode=opera')).status).toBe(422);
  });

  it("never shows another user's private voices", async () => {
    const res = await bob.get('/api/user/assistants/voices');
    expect(res.body.some((v: { id: number }) => v.id === privateVoice)).toBe(false);
  });
});

describe('models and languages', () => {
  it('lists at least 4 models as {id, name}', async () => {
    const res = await alice.get('/api/user/assistants/models');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(4);
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(['id', 'name']);
  });

  it('lists at least 8 languages as {id, name, iso_2}', async () => {
    const res = await alice.get('/api/user/assistants/languages');
    expect(res.body.length).toBeGreaterThanOrEqual(8);
    expect(res.body).toContainEqual({ id: expect.any(Number), name: 'German', iso_2: 'de' });
    expect(res.body).toContainEqual({ id: expect.any(Number), name: 'English', iso_2: 'en' });
  });

  it('need a token', async () => {
    expect((await t.anonymous.get('/api/user/assistants/languages')).status).toBe(401);
  });
});

describe('reference caching', () => {
  it('reads languages and models from the database once per process', async () => {
    const pool = t.service.ctx.database.pool;
    await alice.get('/api/user/assistants/languages');
    await alice.get('/api/user/assistants/models');
    const original = pool.query.bind(pool);
    let queries = 0;
    (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
      queries++;
      return (original as (...a: unknown[]) => unknown)(...args);
    };
    try {
      for (let i = 0; i < 5; i++) {
        expect((await alice.get('/api/user/assistants/languages')).status).toBe(200);
        expect((await alice.get('/api/user/assistants/models')).status).toBe(200);
      }
    } finally {
      (pool as unknown as { query: unknown }).query = original;
    }
    expect(queries).toBe(0);
  });
});
