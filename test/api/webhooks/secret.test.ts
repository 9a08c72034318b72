import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall } from '../../webhooks/support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t.close());

const SECRET = /^whsec_[A-Za-z0-9+/]+=*$/;

describe('GET /api/user/webhook-secret', () => {
  it('answers the caller\'s Standard Webhooks secret, the same on every read', async () => {
    const res = await alice.get('/api/user/webhook-secret');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['secret']);
    expect(res.body.secret).toMatch(SECRET);
    expect(Buffer.from(res.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(() => new Webhook(res.body.secret)).not.toThrow();
    expect((await alice.get('/api/user/webhook-secret')).body.secret).toBe(res.body.secret);
  });

  it('gives every user a secret of their own', async () => {
    const a = (await alice.get('/api/user/webhook-secret')).body.secret;
    const b = (await bob.get('/api/user/webhook-secret')).body.secret;
    expect(b).toMatch(SECRET);
    expect(b).not.toBe(a);
  });

  it('needs a token', async () => {
    const res = await t.anonymous.get('/api/user/webhook-secret');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });
});

describe('POST /api/user/webhook-secret/rotate', () => {
  it('replaces the caller\'s secret with a new one that later reads return', async () => {
    const before = (await alice.get('/api/user/webhook-secret')).body.secret;
    const bobBefore = (await bob.get('/api/user/webhook-secret')).body.secret;
    const res = await alice.post('/api/user/webhook-secret/rotate');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['secret']);
    expect(res.body.secret).toMatch(SECRET);
    expect(res.body.secret).not.toBe(before);
    expect((await alice.get('/api/user/webhook-secret')).body.secret).toBe(res.body.secret);
    // Another user's secret is untouched.
    expect((await bob.get('/api/user/webhook-secret')).body.secret).toBe(bobBefore);
  });

  it('gives a different secret on every rotation', async () => {
    const one = (await bob.post('/api/user/webhook-secret/rotate')).body.secret;
    const two = (await bob.post('/api/user/webhook-secret/rotate')).body.secret;
    expect(one).not.toBe(two);
  });

  it('needs a token', async () => {
    const res = await t.anonymous.post('/api/user/webhook-secret/rotate');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('answers 405 to a method the path does not support', async () => {
    const res = await alice.get('/api/user/webhook-secret/rotate');
    expect(res.status).toBe(405);
  });
});

describe('POST /api/user/calls/{id}/webhook-deliveries/resend without the delivery running', () => {
  it('answers 503 in a process without background parts (HTTP-only)', async () => {
    const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: 'https://hooks.example/x' });
    const call = await insertCall(t, alice.id, a.id);
    const res = await alice.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ message: 'Webhook delivery is not running in this process.' });
  });
});
