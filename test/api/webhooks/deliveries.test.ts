import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryPart } from '../../../src/webhooks/background.js';
import { assistants } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { deliveryLog, emitFinished, insertCall, startReceiver, waitUntil, type Receiver } from '../../webhooks/support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestService({ parts: [webhookDeliveryPart], env: { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2', ALLOW_PRIVATE_TARGETS: 'true' } });
  alice = await t.createUser();
  bob = await t.createUser();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
afterEach(() => {
  receiver.received.length = 0;
});

const hookAssistant = (userId: number, overrides = {}) =>
  insertAssistant(t, userId, { isWebhookActive: true, webhookUrl: `${receiver.url}/hook`, ...overrides });

describe('GET /api/user/calls/{id}/webhook-deliveries', () => {
  it('lists the attempts of the caller\'s call, oldest first', async () => {
    receiver.answer = (_r, n) => (n === 0 ? { status: 500, body: 'oops' } : { status: 204 });
    const a = await hookAssistant(alice.id);
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 2, 8000, 'two attempts');
    const res = await alice.get(`/api/user/calls/${call.id}/webhook-deliveries`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const [first, second] = res.body.data;
    expect(Object.keys(first).sort()).toEqual(['attempt', 'created_at', 'duration_ms', 'error', 'id', 'kind', 'message_id', 'status_code', 'url']);
    expect(first).toMatchObject({ attempt: 1, status_code: 500, error: 'HTTP 500', url: `${receiver.url}/hook`, kind: 'post_call' });
    expect(second).toMatchObject({ attempt: 2, status_code: 204, error: null });
    expect(second.message_id).toBe(first.message_id);
    expect(second.id).toBeGreaterThan(first.id);
    expect(Date.parse(second.created_at)).toBeGreaterThanOrEqual(Date.parse(first.created_at) + 150);
    receiver.answer = () => ({ status: 200, body: '{"ok":true}' });
  });

  it('answers an empty list for a call without deliveries', async () => {
    const call = await insertCall(t, alice.id, null);
    const res = await alice.get(`/api/user/calls/${call.id}/webhook-deliveries`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('answers another user\'s call exactly like a missing one', async () => {
    const a = await hookAssistant(alice.id);
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 1, 5000, 'an attempt');
    const other = await bob.get(`/api/user/calls/${call.id}/webhook-deliveries`);
    const missing = await bob.get('/api/user/calls/999999/webhook-deliveries');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ message: 'Call not found' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(other.body);
  });

  it.each(['abc', '0', '-1', '1.5'])('answers 404 Call not found for the id %s', async (id) => {
    const res = await alice.get(`/api/user/calls/${id}/webhook-deliveries`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Call not found' });
  });

  it('needs a token', async () => {
    const res = await t.anonymous.get('/api/user/calls/1/webhook-deliveries');
    expect(res.status).toBe(401);
  });
});

describe('POST /api/user/calls/{id}/webhook-deliveries/resend', () => {
  it('sends the call again as a new signed message and logs it', async () => {
    const a = await hookAssistant(alice.id);
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    const [auto] = await receiver.waitFor(1);

    const res = await alice.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Webhook delivery queued');
    expect(res.body.data).toEqual([{ message_id: expect.stringMatching(/^msg_/), kind: 'post_call', url: `${receiver.url}/hook` }]);
    const [, again] = await receiver.waitFor(2);
    expect(again.headers['webhook-id']).toBe(res.body.data[0].message_id);
    expect(again.headers['webhook-id']).not.toBe(auto.headers['webhook-id']);
    expect(JSON.parse(again.body)).toEqual(JSON.parse(auto.body));
    const secret = (await alice.get('/api/user/webhook-secret')).body.secret;
    expect(new Webhook(secret).verify(again.body, again.headers as Record<string, string>)).toMatchObject({ id: call.id });
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 2, 5000, 'two log rows');
    expect((await deliveryLog(alice, call.id)).map((l) => l.message_id)).toEqual([auto.headers['webhook-id'], res.body.data[0].message_id]);

    const third = await alice.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
    expect(third.body.data[0].message_id).not.toBe(res.body.data[0].message_id);
    await receiver.waitFor(3);
  });

  it('sends a call that send_webhook_only_on_completed skipped, because it is asked for explicitly', async () => {
    const a = await hookAssistant(alice.id, { sendWebhookOnlyOnCompleted: true });
    const call = await insertCall(t, alice.id, a.id, { status: 'no-answer' });
    const res = await alice.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
    expect(res.status).toBe(200);
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req.body)).toMatchObject({ id: call.id, status: 'no-answer' });
  });

  it('answers 422 when no webhook is configured for the call', async () => {
    const off = await insertAssistant(t, alice.id, { isWebhookActive: false, webhookUrl: `${receiver.url}/hook` });
    const c1 = await insertCall(t, alice.id, off.id);
    const c2 = await insertCall(t, alice.id, null);
    const gone = await hookAssistant(alice.id);
    await t.service.ctx.database.db.update(assistants).set({ deletedAt: new Date().toISOString() }).where(eq(assistants.id, gone.id));
    const c3 = await insertCall(t, alice.id, gone.id);
    for (const c of [c1, c2, c3]) {
      const res = await alice.post(`/api/user/calls/${c.id}/webhook-deliveries/resend`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'No webhook is configured for this call.' });
    }
  });

  it('answers 422 while the call is still live', async () => {
    const a = await hookAssistant(alice.id);
    for (const status of ['initiated', 'ringing', 'in-progress']) {
      const call = await insertCall(t, alice.id, a.id, { status, endedAt: null });
      const res = await alice.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The call has not finished yet.' });
    }
  });

  it('answers another user\'s call exactly like a missing one, and sends nothing', async () => {
    const a = await hookAssistant(alice.id);
    const call = await insertCall(t, alice.id, a.id);
    const other = await bob.post(`/api/user/calls/${call.id}/webhook-deliveries/resend`);
    const missing = await bob.post('/api/user/calls/999999/webhook-deliveries/resend');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ message: 'Call not found' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(other.body);
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received).toHaveLength(0);
    expect(await deliveryLog(alice, call.id)).toEqual([]);
  });

  it.each(['abc', '0'])('answers 404 Call not found for the id %s', async (id) => {
    const res = await alice.post(`/api/user/calls/${id}/webhook-deliveries/resend`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Call not found' });
  });

  it('needs a token', async () => {
    const res = await t.anonymous.post('/api/user/calls/1/webhook-deliveries/resend');
    expect(res.status).toBe(401);
  });
});
