/**
 * A deliver job pg-boss gives up on. A job fails at the pg-boss level when its attempt could not
 * be made or recorded (the flush's transaction failed, or the process that took it died and it
 * expired); each failure is retried, and after the queue's retry limit pg-boss used to mark the
 * job `failed` and nothing else: the message dropped with no log row and no error. Now the
 * deliver queue has a dead-letter queue: the message's log gets a row saying it was given up,
 * and an error naming the message id is logged.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_LETTER_QUEUE, GAVE_UP_ERROR } from '../../src/webhooks/dead-letters.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { DELIVER_QUEUE, jobIdFor, type MessageJob } from '../../src/webhooks/messages.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { deliveryLog, insertCall, sleep, waitUntil } from './support.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
const logged: { level: number; msg: string; messageId?: string }[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  t = await startTestService({ parts: [webhookDeliveryPart], log: pino({ level: 'error' }, sink) });
  alice = await t.createUser();
  bob = await t.createUser();
});
afterAll(() => t?.close());

/** A deliver job for the call, not due for an hour nor soon after a retry (so no pump takes it before the test fails it). */
async function queueJob(callId: number, userId: number, retryLimit: number): Promise<{ id: string; msg: MessageJob }> {
  const msg: MessageJob = { messageId: `msg_deadletter${callId}`, callId, userId, kind: 'post_call', attempt: 3, url: 'https://receiver.test/hook', body: '{}', storeResponse: true };
  const id = jobIdFor(`${msg.messageId}:${msg.attempt}`);
  await t.service.ctx.services.boss!.insert([{ id, name: DELIVER_QUEUE, data: msg, retryLimit, retryDelay: 3_600, startAfter: new Date(Date.now() + 3_600_000) }]);
  return { id, msg };
}

/** What the flush does when recording a group fails (src/webhooks/delivery.ts): hand the jobs back to pg-boss. */
const failJob = (id: string) => t.service.ctx.services.boss!.fail(DELIVER_QUEUE, [id]);

describe('a deliver job pg-boss gives up on', () => {
  it('the deliver queue names its dead-letter queue', async () => {
    const { rows } = await t.service.ctx.database.pool.query(`SELECT dead_letter FROM pgboss.queue WHERE name = $1`, [DELIVER_QUEUE]);
    expect(rows).toEqual([{ dead_letter: DEAD_LETTER_QUEUE }]);
  });

  it('a deliver queue created before dead letters existed gets one at the next start', async () => {
    const { pool } = t.service.ctx.database;
    await pool.query(`UPDATE pgboss.queue SET dead_letter = NULL WHERE name = $1`, [DELIVER_QUEUE]);
    const next = await startTestService({ parts: [webhookDeliveryPart], databaseUrl: t.databaseUrl });
    try {
      const { rows } = await pool.query(`SELECT dead_letter, retry_limit FROM pgboss.queue WHERE name = $1`, [DELIVER_QUEUE]);
      expect(rows).toEqual([{ dead_letter: DEAD_LETTER_QUEUE, retry_limit: 10 }]);
    } finally {
      await next.close();
    }
  });

  it('is logged in the message log and as an error with its message id, for its user only; a failure with retries left is not', async () => {
    const assistant = await insertAssistant(t, alice.id);
    const retried = await insertCall(t, alice.id, assistant.id);
    const kept = await queueJob(retried.id, alice.id, 1);
    await failJob(kept.id); // a retry left: pg-boss retries it, nothing given up
    const call = await insertCall(t, alice.id, assistant.id);
    const { id, msg } = await queueJob(call.id, alice.id, 0);
    await failJob(id); // its last failure
    await waitUntil(async () => (await deliveryLog(alice, call.id)).length > 0, 10_000, 'the given-up row');
    const rows = await deliveryLog(alice, call.id);
    expect(rows).toEqual([
      expect.objectContaining({ message_id: msg.messageId, kind: 'post_call', attempt: 3, url: msg.url, status_code: null, error: GAVE_UP_ERROR }),
    ]);
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, messageId: msg.messageId, msg: expect.stringContaining('given up') }));
    const { rows: retry } = await t.service.ctx.database.pool.query('SELECT state FROM pgboss.job WHERE id = $1', [kept.id]);
    expect(retry).toEqual([{ state: 'retry' }]);
    expect(await deliveryLog(alice, retried.id)).toEqual([]);
    expect(logged.filter((l) => l.messageId === kept.msg.messageId)).toEqual([]);
    // Another user sees nothing of it.
    expect((await bob.get(`/api/user/calls/${call.id}/webhook-deliveries`)).status).toBe(404);
    // The dead letter was handled once: its job completed, no second row.
    await sleep(1_000);
    expect(await deliveryLog(alice, call.id)).toHaveLength(1);
    const { rows: dead } = await t.service.ctx.database.pool.query(`SELECT state FROM pgboss.job WHERE name = $1 AND data->>'messageId' = $2`, [DEAD_LETTER_QUEUE, msg.messageId]);
    expect(dead).toEqual([{ state: 'completed' }]);
  });

  it('of a call deleted meanwhile is still logged as an error (no row: the log went with the call)', async () => {
    const assistant = await insertAssistant(t, alice.id);
    const call = await insertCall(t, alice.id, assistant.id);
    const { id, msg } = await queueJob(call.id, alice.id, 0);
    await t.service.ctx.database.pool.query('DELETE FROM calls WHERE id = $1', [call.id]);
    await failJob(id);
    await waitUntil(async () => logged.some((l) => l.messageId === msg.messageId), 10_000, 'the error logged');
    await waitUntil(
      async () =>
        (await t.service.ctx.database.pool.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>'messageId' = $2 AND state = 'completed'`, [DEAD_LETTER_QUEUE, msg.messageId]))
          .rowCount === 1,
      5_000,
      'the dead letter completed',
    );
  });
});
