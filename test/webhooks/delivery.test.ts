import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { assistants, calls } from '../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertLead } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { deliveryLog, emitFinished, insertCall, sleep, startReceiver, waitUntil, type Receiver } from './support.js';

const SPACING_S = 0.3;
let t: TestService;
let alice: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestService({
    parts: [webhookDeliveryPart],
    env: { WEBHOOK_RETRY_SCHEDULE: `${SPACING_S},${SPACING_S},${SPACING_S}`, ALLOW_PRIVATE_TARGETS: 'true' },
  });
  alice = await t.createUser();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => ({ status: 200, body: '{"ok":true}' });
  t.service.ctx.services.webhooks!.options.attemptTimeoutMs = 15_000;
});

async function secretOf(user: TestUser): Promise<string> {
  return (await user.get('/api/user/webhook-secret')).body.secret;
}

async function webhookAssistant(overrides: Partial<typeof assistants.$inferInsert> = {}, path = '/hook') {
  return insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: `${receiver.url}${path}`, ...overrides });
}

async function callResponse(callId: number) {
  const [row] = await t.service.ctx.database.db.select({ r: calls.webhookResponse }).from(calls).where(eq(calls.id, callId));
  return row.r;
}

describe('post-call webhook payload and signature', () => {
  it('POSTs the CONTRACT §8 payload of a campaign call, signed with the user secret, and stores the JSON answer', async () => {
    receiver.answer = () => ({ status: 200, body: '{"received":true,"ticket":"T-1"}' });
    const a = await webhookAssistant({ includeRecordingInWebhook: true });
    const campaign = await insertCampaign(t, alice.id, a.id, { name: 'Spring' });
    const lead = await insertLead(t, alice.id, campaign.id, { phoneNumber: '+4915111111111', variables: { customer_name: 'Ada' } });
    const call = await insertCall(t, alice.id, a.id, {
      campaignId: campaign.id,
      campaignName: 'Spring',
      leadId: lead.id,
      clientPhoneNumber: '+4915111111111',
      recordingUrl: 'https://recordings.example/1.wav',
    });
    await emitFinished(t, call.id, alice.id);
    const [req] = await receiver.waitFor(1);

    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req.body);
    expect(Object.keys(body).sort()).toEqual(
      ['id', 'customer_phone', 'assistant_phone', 'duration', 'status', 'extracted_variables', 'input_variables', 'transcript',
        'recording_url', 'created_at', 'finished_at', 'lead', 'campaign'].sort(),
    );
    expect(body).toEqual({
      id: call.id,
      customer_phone: '+4915111111111',
      assistant_phone: '+4930123456',
      duration: 42,
      status: 'completed',
      extracted_variables: { status: true, summary: 'Booked a demo' },
      input_variables: { customer_name: 'Ada' },
      transcript: 'AI: Hello\nCustomer: Hi',
      recording_url: 'https://recordings.example/1.wav',
      created_at: '2026-11-22T10:30:00.123456Z',
      finished_at: '2026-11-22T10:31:02.500000Z',
      lead: { id: lead.id, campaign_id: campaign.id, phone_number: '+4915111111111', variables: { customer_name: 'Ada' } },
      campaign: { id: campaign.id, name: 'Spring' },
    });
    expect(Number.isNaN(Date.parse(body.created_at))).toBe(false);
    expect(Number.isNaN(Date.parse(body.finished_at))).toBe(false);

    // Standard Webhooks: id, timestamp, v1 signature over id.timestamp.body with the user's secret.
    expect(req.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]+$/);
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const verified = new Webhook(await secretOf(alice)).verify(req.body, req.headers as Record<string, string>);
    expect(verified).toEqual(body);
    expect(() => new Webhook('whsec_' + Buffer.from('another secret of enough length').toString('base64')).verify(req.body, req.headers as Record<string, string>)).toThrow();

    await waitUntil(async () => Object.keys(await callResponse(call.id)).length > 0, 5000, 'webhook_response');
    expect(await callResponse(call.id)).toEqual({ received: true, ticket: 'T-1' });
    // The call record shows it too (calls API).
    const rec = await alice.get(`/api/user/calls/${call.id}`);
    if (rec.status === 200) expect(rec.body.webhook_response).toEqual({ received: true, ticket: 'T-1' });

    const log = await deliveryLog(alice, call.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ kind: 'post_call', attempt: 1, url: `${receiver.url}/hook`, status_code: 200, error: null, message_id: req.headers['webhook-id'] });
    expect(log[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(log[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it('sends lead and campaign as null for a call outside a campaign', async () => {
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    const [req] = await receiver.waitFor(1);
    const body = JSON.parse(req.body);
    expect(body.lead).toBeNull();
    expect(body.campaign).toBeNull();
    expect(typeof body.id).toBe('number');
    expect(typeof body.duration).toBe('number');
    expect(typeof body.transcript).toBe('string');
  });

  it('stores a non-JSON answer as {status, body}, capped in size', async () => {
    receiver.answer = () => ({ status: 200, body: 'x'.repeat(10_000), headers: { 'content-type': 'text/plain' } });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await waitUntil(async () => Object.keys(await callResponse(call.id)).length > 0, 5000, 'webhook_response');
    const stored = await callResponse(call.id);
    expect(stored.status).toBe(200);
    expect(stored.body).toBe('x'.repeat(4096));
  });

  it('stores a JSON answer that is not an object as {status, body}', async () => {
    receiver.answer = () => ({ status: 202, body: '[1,2]' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await waitUntil(async () => Object.keys(await callResponse(call.id)).length > 0, 5000, 'webhook_response');
    expect(await callResponse(call.id)).toEqual({ status: 202, body: '[1,2]' });
  });

  it('signs with the new secret after a rotation', async () => {
    const old = await secretOf(alice);
    const rotated = (await alice.post('/api/user/webhook-secret/rotate')).body.secret;
    expect(rotated).not.toBe(old);
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    const [req] = await receiver.waitFor(1);
    expect(new Webhook(rotated).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ id: call.id });
    expect(() => new Webhook(old).verify(req.body, req.headers as Record<string, string>)).toThrow();
  });

  it('sends one message for an event delivered twice (at-least-once events)', async () => {
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1500);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('retries', () => {
  it('gives a receiver that fails twice exactly three attempts, spaced by the schedule, with one webhook-id', async () => {
    receiver.answer = (_r, n) => (n < 2 ? { status: 500, body: '{"error":"busy"}' } : { status: 200, body: '{"ok":"third"}' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    const got = await receiver.waitFor(3);
    await sleep(SPACING_S * 1000 * 4); // the schedule would allow a fourth attempt by now
    expect(receiver.received).toHaveLength(3);
    for (let i = 1; i < 3; i++) {
      const gap = got[i].at - got[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(SPACING_S * 1000 - 50);
      expect(gap).toBeLessThan(SPACING_S * 1000 + 1500);
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const log = await deliveryLog(alice, call.id);
    expect(log.map((l) => [l.attempt, l.status_code])).toEqual([[1, 500], [2, 500], [3, 200]]);
    expect(log[0].error).toBe('HTTP 500');
    expect(log[2].error).toBeNull();
    expect(await callResponse(call.id)).toEqual({ ok: 'third' });
  });

  it('stops after the last attempt of the schedule', async () => {
    receiver.answer = () => ({ status: 503, body: '' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(4); // 1 + three retries
    await sleep(SPACING_S * 1000 * 4);
    expect(receiver.received).toHaveLength(4);
    expect((await deliveryLog(alice, call.id)).map((l) => l.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('stops for good on 410 Gone', async () => {
    receiver.answer = () => ({ status: 410, body: '{"gone":true}' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await sleep(SPACING_S * 1000 * 5);
    expect(receiver.received).toHaveLength(1);
    const log = await deliveryLog(alice, call.id);
    expect(log).toHaveLength(1);
    expect(log[0].status_code).toBe(410);
    expect(log[0].error).toContain('410');
    expect(await callResponse(call.id)).toEqual({ gone: true });
  });

  it('times out a slow receiver and retries it', async () => {
    t.service.ctx.services.webhooks!.options.attemptTimeoutMs = 300;
    receiver.answer = (_r, n) => (n === 0 ? { status: 200, body: '{"late":true}', delayMs: 1500 } : { status: 200, body: '{"fast":true}' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(2);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 2, 5000, 'two log rows');
    const log = await deliveryLog(alice, call.id);
    expect(log[0].status_code).toBeNull();
    expect(log[0].error).toMatch(/timed out after 300 ms/i);
    expect(log[0].duration_ms).toBeGreaterThanOrEqual(290);
    expect(log[1].status_code).toBe(200);
    expect(await callResponse(call.id)).toEqual({ fast: true });
  });

  it('does not follow a redirect: the attempt fails and is retried at the same URL', async () => {
    receiver.answer = (r, n) =>
      r.path === '/moved' && n === 0 ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200, body: '{}' };
    const a = await webhookAssistant({}, '/moved');
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.path)).toEqual(['/moved', '/moved']);
    const log = await deliveryLog(alice, call.id);
    expect(log[0].status_code).toBe(302);
    expect(log[0].error).toContain('redirect');
  });

  it('retries a refused connection', async () => {
    receiver.answer = () => ({ status: 200, body: '{}' });
    const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: 'http://127.0.0.1:1/hook' });
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 4, 8000, 'four attempts');
    const log = await deliveryLog(alice, call.id);
    expect(log.every((l) => l.status_code === null && /Request failed/.test(l.error ?? ''))).toBe(true);
  });
});

describe('assistant switches', () => {
  it('sends nothing for a busy call with send_webhook_only_on_completed', async () => {
    const a = await webhookAssistant({ sendWebhookOnlyOnCompleted: true });
    const busy = await insertCall(t, alice.id, a.id, { status: 'busy', duration: 0, transcript: '' });
    await emitFinished(t, busy.id, alice.id);
    // A completed call of the same assistant, emitted after, proves the queue moved on.
    const done = await insertCall(t, alice.id, a.id);
    await emitFinished(t, done.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1000);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([done.id]);
    expect(await deliveryLog(alice, busy.id)).toEqual([]);
  });

  it('sends a busy call when send_webhook_only_on_completed is off', async () => {
    const a = await webhookAssistant({ sendWebhookOnlyOnCompleted: false });
    const busy = await insertCall(t, alice.id, a.id, { status: 'busy', duration: 0, transcript: '' });
    await emitFinished(t, busy.id, alice.id);
    const [req] = await receiver.waitFor(1);
    expect(JSON.parse(req.body)).toMatchObject({ id: busy.id, status: 'busy' });
  });

  it('includes the recording URL only with include_recording_in_webhook and a recording', async () => {
    const withRec = await webhookAssistant({ includeRecordingInWebhook: true });
    const without = await webhookAssistant({ includeRecordingInWebhook: false });
    const c1 = await insertCall(t, alice.id, withRec.id, { recordingUrl: 'https://rec.example/a.wav' });
    const c2 = await insertCall(t, alice.id, without.id, { recordingUrl: 'https://rec.example/b.wav' });
    const c3 = await insertCall(t, alice.id, withRec.id, { recordingUrl: null });
    for (const c of [c1, c2, c3]) await emitFinished(t, c.id, alice.id);
    await receiver.waitFor(3);
    const byId = new Map(receiver.received.map((r) => [JSON.parse(r.body).id, JSON.parse(r.body)]));
    expect(byId.get(c1.id).recording_url).toBe('https://rec.example/a.wav');
    expect(byId.get(c2.id).recording_url).toBeNull();
    expect(byId.get(c3.id).recording_url).toBeNull();
  });

  it('sends nothing when the webhook is disabled', async () => {
    const off = await insertAssistant(t, alice.id, { isWebhookActive: false, webhookUrl: `${receiver.url}/hook` });
    const c1 = await insertCall(t, alice.id, off.id);
    await emitFinished(t, c1.id, alice.id);
    const on = await webhookAssistant();
    const c2 = await insertCall(t, alice.id, on.id);
    await emitFinished(t, c2.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1000);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([c2.id]);
    expect(await deliveryLog(alice, c1.id)).toEqual([]);
  });

  it('stops the retries of a message at once when the webhook is disabled meanwhile', async () => {
    receiver.answer = () => ({ status: 500, body: '' });
    const a = await webhookAssistant();
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await t.service.ctx.database.db.update(assistants).set({ isWebhookActive: false, webhookUrl: null }).where(eq(assistants.id, a.id));
    await sleep(SPACING_S * 1000 * 5);
    expect(receiver.received).toHaveLength(1);
    const log = await deliveryLog(alice, call.id);
    expect(log).toHaveLength(2);
    expect(log[1]).toMatchObject({ attempt: 2, status_code: null, error: 'Not sent: the webhook has been disabled.' });
  });

  it('sends nothing for a call whose assistant is gone, or a call deleted before delivery', async () => {
    const deleted = await webhookAssistant({ deletedAt: new Date().toISOString() });
    const c1 = await insertCall(t, alice.id, deleted.id);
    await emitFinished(t, c1.id, alice.id);
    const c2 = await insertCall(t, alice.id, null);
    await emitFinished(t, c2.id, alice.id);
    const a = await webhookAssistant();
    const c3 = await insertCall(t, alice.id, a.id);
    await t.service.ctx.database.db.delete(calls).where(eq(calls.id, c3.id));
    await emitFinished(t, c3.id, alice.id);
    const c4 = await insertCall(t, alice.id, a.id);
    await emitFinished(t, c4.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1000);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([c4.id]);
  });

  it('notifies both the webhook and the inbound webhook of an inbound call', async () => {
    const a = await webhookAssistant({ type: 'inbound', inboundWebhookUrl: `${receiver.url}/inbound` });
    const call = await insertCall(t, alice.id, a.id, { type: 'inbound' });
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/hook', '/inbound']);
    const [x, y] = receiver.received;
    expect(x.body).toBe(y.body);
    expect(x.headers['webhook-id']).not.toBe(y.headers['webhook-id']);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length === 2, 5000, 'two log rows');
    const log = await deliveryLog(alice, call.id);
    expect(log.map((l) => l.kind).sort()).toEqual(['inbound', 'post_call']);
  });

  it('notifies the inbound webhook of an inbound call even when the post-call webhook is off', async () => {
    const a = await insertAssistant(t, alice.id, { type: 'inbound', isWebhookActive: false, inboundWebhookUrl: `${receiver.url}/inbound` });
    const call = await insertCall(t, alice.id, a.id, { type: 'inbound' });
    await emitFinished(t, call.id, alice.id);
    const [req] = await receiver.waitFor(1);
    expect(req.path).toBe('/inbound');
    expect(new Webhook(await secretOf(alice)).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ id: call.id });
  });

  it('sends one message when the inbound webhook has the same URL as the post-call webhook', async () => {
    const a = await webhookAssistant({ type: 'inbound', inboundWebhookUrl: `${receiver.url}/hook` });
    const call = await insertCall(t, alice.id, a.id, { type: 'inbound' });
    await emitFinished(t, call.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1000);
    expect(receiver.received).toHaveLength(1);
  });

  it('does not send the inbound webhook for an outbound call', async () => {
    const a = await insertAssistant(t, alice.id, { isWebhookActive: false, inboundWebhookUrl: `${receiver.url}/inbound` });
    const c1 = await insertCall(t, alice.id, a.id, { type: 'outbound' });
    await emitFinished(t, c1.id, alice.id);
    const on = await webhookAssistant();
    const c2 = await insertCall(t, alice.id, on.id);
    await emitFinished(t, c2.id, alice.id);
    await receiver.waitFor(1);
    await sleep(1000);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([c2.id]);
  });
});

describe('isolation', () => {
  it('does not hold other webhooks behind a hanging receiver', async () => {
    t.service.ctx.services.webhooks!.options.attemptTimeoutMs = 4000;
    receiver.answer = (r) => (r.path === '/slow' ? { status: 200, body: '{}', delayMs: 3000 } : { status: 200, body: '{}' });
    const slow = await webhookAssistant({}, '/slow');
    const fast = await webhookAssistant({}, '/fast');
    const hanging = await Promise.all([1, 2, 3].map(() => insertCall(t, alice.id, slow.id)));
    const quick = await insertCall(t, alice.id, fast.id);
    for (const c of hanging) await emitFinished(t, c.id, alice.id);
    const emitted = Date.now();
    await emitFinished(t, quick.id, alice.id);
    await waitUntil(() => receiver.received.some((r) => r.path === '/fast'), 5000, 'the fast webhook');
    const fastAt = receiver.received.find((r) => r.path === '/fast')!.at;
    expect(fastAt - emitted).toBeLessThan(2500);
    // The fast one is logged while the slow ones are still waiting for their answers.
    await waitUntil(async () => (await deliveryLog(alice, quick.id)).length === 1, 2000, 'the fast attempt logged');
    expect(await deliveryLog(alice, hanging[0].id)).toEqual([]);
    await waitUntil(async () => (await deliveryLog(alice, hanging[2].id)).length === 1, 8000, 'the slow attempts logged');
  });
});

describe('target guard', () => {
  it('refuses a link-local (metadata) address even with ALLOW_PRIVATE_TARGETS, without retrying', async () => {
    const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: 'http://169.254.169.254/latest/meta-data' });
    const call = await insertCall(t, alice.id, a.id);
    await emitFinished(t, call.id, alice.id);
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length > 0, 5000, 'a log row');
    await sleep(SPACING_S * 1000 * 4);
    const log = await deliveryLog(alice, call.id);
    expect(log).toHaveLength(1);
    expect(log[0].status_code).toBeNull();
    expect(log[0].error).toContain('not allowed');
  });
});
