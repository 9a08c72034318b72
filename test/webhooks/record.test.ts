/**
 * Recording an attempt whatever the receiver answered: its answer goes to
 * `calls.webhook_response` (jsonb) in the same transaction as the attempt's log row and the
 * job's completion, so an answer PostgreSQL refuses to store (a NUL character, a lone UTF-16
 * surrogate) used to fail the whole group: nothing logged, the job failed and the message sent
 * again, until pg-boss gave up on the job and the message was dropped without a trace. The
 * same went for a log row of a call deleted meanwhile (its foreign key), taking the other
 * attempts of its group down with it.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { calls } from '../../src/db/schema.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { deliveryLog, emitFinished, insertCall, sleep, startReceiver, waitUntil, type Receiver } from './support.js';

let t: TestService;
let alice: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestService({ parts: [webhookDeliveryPart], env: { WEBHOOK_RETRY_SCHEDULE: '0.3,0.3', ALLOW_PRIVATE_TARGETS: 'true' } });
  alice = await t.createUser();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
afterEach(() => {
  receiver.received.length = 0;
});

async function deliverWithAnswer(body: string, contentType = 'application/json') {
  receiver.answer = () => ({ status: 200, body, headers: { 'content-type': contentType } });
  const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: `${receiver.url}/hook` });
  const call = await insertCall(t, alice.id, a.id);
  await emitFinished(t, call.id, alice.id);
  await receiver.waitFor(1);
  await waitUntil(async () => (await deliveryLog(alice, call.id)).length > 0, 5000, 'the attempt logged');
  // Sent once: the job completed with its log row, not failed and handed out again.
  await sleep(1500);
  expect(receiver.received).toHaveLength(1);
  expect((await deliveryLog(alice, call.id)).map((l) => [l.attempt, l.status_code])).toEqual([[1, 200]]);
  const [row] = await t.service.ctx.database.db.select({ r: calls.webhookResponse }).from(calls).where(eq(calls.id, call.id));
  return row.r;
}

describe('recording what the receiver answered', () => {
  it('logs a delivery whose JSON answer holds NUL characters and lone surrogates, storing them as U+FFFD', async () => {
    const stored = await deliverWithAnswer('{"ok":true,"note":"a\\u0000b","\\u0000key":"\\ud800"}');
    expect(stored).toEqual({ ok: true, note: 'a\uFFFDb', '\uFFFDkey': '\uFFFD' });
  });

  it('logs a delivery whose text answer holds a NUL byte (a binary body)', async () => {
    const stored = await deliverWithAnswer('GIF89a\u0000\u0001', 'image/gif');
    expect(stored).toEqual({ status: 200, body: 'GIF89a\uFFFD\u0001' });
  });

  it("completes the job of a call deleted while its attempt was under way, and the group's other attempts with it", async () => {
    receiver.answer = () => ({ status: 200, body: '{}', delayMs: 800 });
    const a = await insertAssistant(t, alice.id, { isWebhookActive: true, webhookUrl: `${receiver.url}/hook` });
    const deleted = await insertCall(t, alice.id, a.id);
    const kept = await insertCall(t, alice.id, a.id);
    await emitFinished(t, deleted.id, alice.id);
    await emitFinished(t, kept.id, alice.id);
    await receiver.waitFor(2);
    await t.service.ctx.database.db.delete(calls).where(eq(calls.id, deleted.id));
    const states = async (callId: number) =>
      (await t.service.ctx.database.pool.query(`SELECT state FROM pgboss.job WHERE name = 'webhooks-deliver' AND (data->>'callId')::int = $1`, [callId])).rows.map((r) => r.state);
    await waitUntil(async () => [...(await states(deleted.id)), ...(await states(kept.id))].every((s) => s !== 'created' && s !== 'active'), 5000, 'both jobs finished');
    expect(await states(deleted.id)).toEqual(['completed']);
    expect(await states(kept.id)).toEqual(['completed']);
    expect((await deliveryLog(alice, kept.id)).map((l) => [l.attempt, l.status_code])).toEqual([[1, 200]]);
    expect(receiver.received).toHaveLength(2);
  });
});
