/** The embeddable widget's keys and its public call endpoint: origins, keys, limits, owners. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../../src/calls/index.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService } from '../../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ parts: [callEnginePart], env: { WIDGET_CALLS_PER_MINUTE: '4', WIDGET_CALLS_PER_VISITOR_PER_MINUTE: '3', WIDGET_CALLS_PER_ADDRESS: '5' } });
});
afterAll(() => t.close());

const fromPage = (body: unknown, origin: string | null, ip = '203.0.113.7') =>
  t.service.app.inject({
    method: 'POST',
    url: '/widget/calls',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    payload: JSON.stringify(body),
  });

describe('widget keys', () => {
  it('creates, lists and revokes keys for the user’s own assistant, with normalised origins', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    const created = await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, {
      allowed_origins: ['https://shop.example.com', 'https://shop.example.com/', 'http://localhost:8080'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      assistant_id: assistant.id,
      key: expect.stringMatching(/^wk_[\w-]{24}$/),
      allowed_origins: ['https://shop.example.com', 'http://localhost:8080'],
    });
    const listed = await user.get(`/api/user/assistants/${assistant.id}/widget-keys`);
    expect(listed.body.data).toEqual([created.body.data]);
    expect(await user.delete(`/api/user/widget-keys/${created.body.data.id}`)).toMatchObject({ status: 200, body: { message: 'Widget key revoked' } });
    expect((await user.get(`/api/user/assistants/${assistant.id}/widget-keys`)).body.data).toEqual([]);
    expect((await user.delete(`/api/user/widget-keys/${created.body.data.id}`)).status).toBe(404);
  });

  it('refuses origins that are not origins, and too many or none', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    for (const bad of ['example.com', 'https://example.com/page', 'ftp://example.com', 'https://user:pw@example.com', 'https://example.com?x=1']) {
      const res = await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: [bad] });
      expect(res.status, bad).toBe(422);
      expect(res.body.errors['allowed_origins.0'][0]).toContain('must be an origin');
    }
    expect((await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: [] })).body.errors.allowed_origins).toEqual([
      'The allowed origins field must have at least 1 items.',
    ]);
    const many = Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`);
    expect((await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: many })).status).toBe(422);
    expect((await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: many.slice(0, 20) })).status).toBe(201);
  });

  it('keeps keys to their owner', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const assistant = await insertAssistant(t, owner.id);
    const key = (await owner.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: ['https://a.example'] })).body.data;
    expect((await other.get(`/api/user/assistants/${assistant.id}/widget-keys`)).status).toBe(404);
    expect((await other.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: ['https://b.example'] })).status).toBe(404);
    expect((await other.delete(`/api/user/widget-keys/${key.id}`)).status).toBe(404);
    expect((await owner.get(`/api/user/assistants/${assistant.id}/widget-keys`)).body.data).toHaveLength(1);
  });
});

describe('POST /widget/calls', () => {
  it('places a web call for the key’s owner from an allowed origin, and refuses other origins and keys', async () => {
    const user = await t.createUser();
    const assistant = await insertAssistant(t, user.id);
    const { key } = (await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: ['https://shop.example.com'] })).body.data;

    const preflight = await t.service.app.inject({ method: 'OPTIONS', url: '/widget/calls', headers: { origin: 'https://shop.example.com' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example.com');

    const ok = await fromPage({ key }, 'https://shop.example.com');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    const started = JSON.parse(ok.body);
    expect(started).toMatchObject({ call_id: expect.any(Number), mode: 'text', media_path: expect.stringContaining(`/web-calls/${started.call_id}/media?token=`) });
    expect((await user.get(`/api/user/calls/${started.call_id}`)).body).toMatchObject({ type: 'web', assistant_name: assistant.name });

    expect(await fromPage({ key }, 'https://evil.example.com').then((r) => [r.statusCode, JSON.parse(r.body)])).toEqual([403, { message: 'This origin may not use this widget key.' }]);
    expect((await fromPage({ key }, null)).statusCode).toBe(403);
    expect(await fromPage({ key: 'wk_notakeynotakeynotakey' }, 'https://shop.example.com').then((r) => [r.statusCode, JSON.parse(r.body)])).toEqual([403, { message: 'Unknown or revoked widget key.' }]);
    expect((await fromPage({}, 'https://shop.example.com')).statusCode).toBe(422);
    // A user's API token is not a widget key.
    expect((await fromPage({ key: user.token }, 'https://shop.example.com')).statusCode).toBe(403);
  });

  it('limits calls per visitor and per key, and stops at once when the key is revoked', async () => {
    const user = await t.createUser({ max_calls_in_parallel: 50 });
    const assistant = await insertAssistant(t, user.id);
    const created = (await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: ['https://shop.example.com'] })).body.data;
    const origin = 'https://shop.example.com';
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fromPage({ key: created.key }, origin, '198.51.100.1')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another visitor may still call, until the key's own limit (4 a minute) is used up.
    expect((await fromPage({ key: created.key }, origin, '198.51.100.2')).statusCode).toBe(200);
    expect((await fromPage({ key: created.key }, origin, '198.51.100.3')).statusCode).toBe(429);

    const fresh = (await user.post(`/api/user/assistants/${assistant.id}/widget-keys`, { allowed_origins: [origin] })).body.data;
    await user.delete(`/api/user/widget-keys/${fresh.id}`);
    expect((await fromPage({ key: fresh.key }, origin, '198.51.100.9')).statusCode).toBe(403);
  });
});
