import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
});
afterAll(() => t.close());

describe('HTTP conventions (CONTRACT §1)', () => {
  it('answers an unknown route 404 with or without a token', async () => {
    expect(await t.anonymous.get('/api/user/nope')).toMatchObject({ status: 404, body: { message: 'Not found.' } });
    expect(await alice.get('/api/user/nope')).toMatchObject({ status: 404, body: { message: 'Not found.' } });
  });

  it('answers 401 Unauthenticated. without, with a malformed and with an unknown token', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer sb_unknown' }] as Record<string, string>[]) {
      const res = await t.anonymous.request('GET', '/api/user/me', undefined, headers);
      expect(res).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    }
  });

  it('answers 405 for a known path with another method', async () => {
    const res = await alice.request('PATCH', '/api/user/me', {});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: 'Method Not Allowed.' });
    expect(res.headers.allow).toContain('GET');
  });

  it('answers 400 to malformed JSON', async () => {
    const res = await t.admin.request('POST', '/api/admin/users', '{"name": ');
    expect(res).toMatchObject({ status: 400, body: { message: 'Malformed JSON body.' } });
  });

  it('answers 415 to a body that is not JSON, and accepts a charset', async () => {
    const res = await t.admin.request('POST', '/api/admin/users', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(typeof res.body.message).toBe('string');
    const ok = await t.admin.request('POST', '/api/admin/users', JSON.stringify({ name: 'C', email: 'c@example.test' }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(ok.status).toBe(201);
  });

  it('answers 413 to a body over 1 MiB, and accepts one just under', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), email: 'big@example.test' });
    const res = await t.admin.request('POST', '/api/admin/users', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Payload Too Large: the body may be at most 1 MiB.' });
    const under = JSON.stringify({ name: 'y'.repeat(1024 * 1024 - 100), email: 'under@example.test' });
    expect((await t.admin.request('POST', '/api/admin/users', under)).status).toBe(422); // too long a name, but parsed
  });

  it('answers 422 in the Laravel shape', async () => {
    const res = await t.admin.post('/api/admin/users', { email: 'not-an-email', max_tools: 'x' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        name: ['The name field is required.'],
        email: ['The email field must be a valid email address.'],
        max_tools: ['The max tools field must be an integer.'],
      },
    });
  });

  it('serves a GET without Content-Type and Accept headers', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/api/user/me', headers: { authorization: `Bearer ${alice.token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('reports liveness and readiness', async () => {
    expect((await t.anonymous.get('/health')).body).toEqual({ status: 'ok' });
    expect((await t.anonymous.get('/ready')).body).toEqual({ status: 'ready' });
  });
});

describe('path ids', () => {
  it('answer 404 when not a positive integer a row could have', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999']) {
      const res = await t.admin.post(`/api/admin/users/${id}/tokens`);
      expect(res.status).toBe(404);
    }
  });
});

describe('bodies that are not JSON objects', () => {
  it('have no fields: required-field errors, never an empty attribute name', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const res = await t.admin.request('POST', '/api/admin/voices', body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ name: ['The name field is required.'], mode: ['The mode field is required.'] });
    }
  });
});
