import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
});
afterAll(() => t.close());

describe('API tokens', () => {
  it('are sb_-prefixed, random, and stored only as a SHA-256 hash', async () => {
    expect(alice.token).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    const { rows } = await t.service.ctx.database.pool.query('SELECT token_hash FROM api_tokens');
    for (const r of rows) expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(alice.token);
  });

  it('serve GET /api/user/me for their user', async () => {
    const res = await alice.get('/api/user/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: alice.id, name: 'Alice', email: expect.any(String), max_tools: 5, max_calls_in_parallel: 10 });
  });

  it('are refused at once after revocation on this instance', async () => {
    const issued = await t.admin.post(`/api/admin/users/${alice.id}/tokens`);
    expect(issued.status).toBe(201);
    const second = t.client(issued.body.data.token);
    expect((await second.get('/api/user/me')).status).toBe(200); // now cached
    const revoked = await t.admin.delete(`/api/admin/users/${alice.id}/tokens/${issued.body.data.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { message: expect.any(String) } });
    expect(await second.get('/api/user/me')).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    expect((await alice.get('/api/user/me')).status).toBe(200);
    expect((await t.admin.delete(`/api/admin/users/${alice.id}/tokens/${issued.body.data.id}`)).status).toBe(404);
  });

  it('are refused within 5 s on another instance sharing the database', async () => {
    const other = await startTestService({ databaseUrl: t.databaseUrl });
    try {
      const issued = await t.admin.post(`/api/admin/users/${alice.id}/tokens`);
      const onOther = other.client(issued.body.data.token);
      expect((await onOther.get('/api/user/me')).status).toBe(200);
      await t.admin.delete(`/api/admin/users/${alice.id}/tokens/${issued.body.data.id}`);
      const started = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - started < 7000) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await onOther.get('/api/user/me')).status;
      }
      expect(status).toBe(401);
      expect(Date.now() - started).toBeLessThanOrEqual(5500);
    } finally {
      await other.close();
    }
  });
});

describe('admin API', () => {
  it('refuses user tokens and no token', async () => {
    expect(await alice.post('/api/admin/users', { name: 'X', email: 'x@example.test' })).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    expect((await t.anonymous.post('/api/admin/voices', { name: 'V', mode: 'pipeline' })).status).toBe(401);
  });

  it('refuses the admin token on user routes', async () => {
    expect((await t.admin.get('/api/user/me')).status).toBe(401);
  });

  it('creates users with plan limits and refuses a duplicate email', async () => {
    const res = await t.admin.post('/api/admin/users', { name: 'Bob', email: 'Bob@Example.test', max_tools: 7, max_calls_in_parallel: 2 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Bob', email: 'Bob@Example.test', max_tools: 7, max_calls_in_parallel: 2 });
    expect(res.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const dup = await t.admin.post('/api/admin/users', { name: 'Bob 2', email: 'bob@example.test' });
    expect(dup).toMatchObject({ status: 422, body: { errors: { email: ['The email has already been taken.'] } } });
  });

  it('answers 404 for tokens and numbers of unknown users, and for non-integer ids', async () => {
    expect((await t.admin.post('/api/admin/users/999999/tokens')).status).toBe(404);
    expect((await t.admin.post('/api/admin/users/abc/tokens')).status).toBe(404);
    expect((await t.admin.post('/api/admin/users/999999/phone-numbers', { phone_number: '+4930123456', type_label: 'Normal' })).status).toBe(404);
  });

  it('validates phone numbers and voices', async () => {
    const bad = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '12345', type_label: 'Normal' });
    expect(bad).toMatchObject({ status: 422, body: { errors: { phone_number: ['Invalid phone number'] } } });
    const badType = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+4930123456', type_label: 'Mobile' });
    expect(badType).toMatchObject({ status: 422, body: { errors: { type_label: ['The selected type label is invalid.'] } } });
    const national = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '030 1234567', type_label: 'SIP' });
    expect(national).toMatchObject({ status: 201, body: { data: { phone_number: '+49301234567', country_code: 'DE', type_label: 'SIP', is_available: true } } });
    const voice = await t.admin.post('/api/admin/voices', { name: 'V', mode: 'karaoke' });
    expect(voice).toMatchObject({ status: 422, body: { errors: { mode: ['The selected mode is invalid.'] } } });
    expect((await t.admin.post('/api/admin/voices', { name: 'V', mode: 'pipeline', user_id: 999999 })).status).toBe(422);
  });
});
