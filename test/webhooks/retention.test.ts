/**
 * Retention (issue 15): the delivery log of finished webhook messages is pruned after
 * WEBHOOK_DELIVERY_RETENTION_DAYS, a message with a retry still planned keeps its rows, and
 * pg-boss archives and deletes finished jobs per JOB_ARCHIVE_AFTER_HOURS / JOB_RETENTION_DAYS.
 * On the real database with a real pg-boss; nothing else (calls, leads) is touched.
 */
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { DELIVER_QUEUE, jobIdFor } from '../../src/webhooks/messages.js';
import { pruneWebhookDeliveries, webhookRetentionPart } from '../../src/webhooks/retention.js';
import { insertAssistant } from '../support/fixtures.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';
import { insertCall, waitUntil } from './support.js';

let databaseUrl: string;
let t: TestService;
let userId: number;
let callId: number;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  // JOB_* settings: archive finished jobs after an hour, delete archived ones after two days.
  t = await startTestService({ parts: [webhookDeliveryPart], databaseUrl, env: { JOB_ARCHIVE_AFTER_HOURS: '1', JOB_RETENTION_DAYS: '2' } });
  const alice = await t.createUser();
  userId = alice.id;
  const a = await insertAssistant(t, userId, { isWebhookActive: true, webhookUrl: 'https://hooks.example.test/x' });
  callId = (await insertCall(t, userId, a.id)).id;
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

const pool = () => t.service.ctx.database.pool;

/** One attempt row of a message, `daysAgo` old. */
async function attempt(messageId: string, n: number, daysAgo: number, statusCode: number | null) {
  await pool().query(
    `INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at)
     VALUES ($1, $2, $3, 'post_call', 'https://hooks.example.test/x', $4, $5, 12, $6, now() - make_interval(days => $7))`,
    [callId, userId, messageId, n, statusCode, statusCode === 200 ? null : 'HTTP 500', daysAgo],
  );
}

/** The next attempt of a message as pg-boss holds it: planned (created) or `state`. */
async function nextAttemptJob(messageId: string, n: number, state: 'created' | 'completed' | 'failed' = 'created') {
  const boss = t.service.ctx.services.boss!;
  const id = jobIdFor(`${messageId}:${n}`);
  await boss.insert([{ id, name: DELIVER_QUEUE, data: { messageId, attempt: n, callId, userId }, startAfter: new Date(Date.now() + 86_400_000) }]);
  if (state !== 'created') await pool().query(`UPDATE pgboss.job SET state = $1, completed_on = now() WHERE name = $2 AND id = $3`, [state, DELIVER_QUEUE, id]);
}

async function rowsOf(messageId: string): Promise<number[]> {
  const { rows } = await pool().query<{ attempt: number }>('SELECT attempt FROM webhook_deliveries WHERE message_id = $1 ORDER BY attempt', [messageId]);
  return rows.map((r) => r.attempt);
}

describe('webhook delivery log retention', () => {
  it('prunes finished messages older than the retention and keeps recent ones and pending retries', async () => {
    // Delivered on the second attempt, 40 days ago.
    await attempt('msg_delivered_old', 1, 40, 500);
    await attempt('msg_delivered_old', 2, 40, 200);
    // Given up 35 days ago (its last retry job long finished and failed).
    await attempt('msg_gave_up_old', 1, 36, 500);
    await attempt('msg_gave_up_old', 2, 35, 500);
    await nextAttemptJob('msg_gave_up_old', 3, 'failed');
    // Stopped (410) 31 days ago; its next-attempt job completed (a retry that found nothing to do).
    await attempt('msg_stopped_old', 1, 31, 410);
    await nextAttemptJob('msg_stopped_old', 2, 'completed');
    // Delivered yesterday.
    await attempt('msg_recent', 1, 1, 200);
    // 40 days old, but its retry is still planned (the service was down a long time).
    await attempt('msg_pending_old', 1, 40, 500);
    await attempt('msg_pending_old', 2, 39, 500);
    await nextAttemptJob('msg_pending_old', 3);
    // An old first attempt of a message whose latest attempt is recent: the message is kept whole.
    await attempt('msg_mixed', 1, 40, 500);
    await attempt('msg_mixed', 2, 2, 200);

    // Batches of 2 rows: the keyset paging goes over the whole old range.
    const deleted = await pruneWebhookDeliveries(pool(), { retentionDays: 30, batchSize: 2, pauseMs: 0 });
    expect(deleted).toBe(5);
    expect(await rowsOf('msg_delivered_old')).toEqual([]);
    expect(await rowsOf('msg_gave_up_old')).toEqual([]);
    expect(await rowsOf('msg_stopped_old')).toEqual([]);
    expect(await rowsOf('msg_recent')).toEqual([1]);
    expect(await rowsOf('msg_pending_old')).toEqual([1, 2]);
    expect(await rowsOf('msg_mixed')).toEqual([1, 2]);
    // The call itself is untouched.
    const { rows } = await pool().query('SELECT id FROM calls WHERE id = $1', [callId]);
    expect(rows).toHaveLength(1);

    // Once the pending retry has been made and finished, the message goes at the next run.
    await pool().query(`UPDATE pgboss.job SET state = 'completed', completed_on = now() WHERE name = $1 AND id = $2`, [
      DELIVER_QUEUE,
      jobIdFor('msg_pending_old:3'),
    ]);
    expect(await pruneWebhookDeliveries(pool(), { retentionDays: 30, pauseMs: 0 })).toBe(2);
    expect(await rowsOf('msg_pending_old')).toEqual([]);
  });

  it('one instance prunes at a time: a second run while the first holds the lock skips', async () => {
    const holder = await pool().connect();
    try {
      await holder.query('SELECT pg_advisory_lock(727003)');
      expect(await pruneWebhookDeliveries(pool(), { retentionDays: 30 })).toBeNull();
    } finally {
      await holder.query('SELECT pg_advisory_unlock(727003)');
      holder.release();
    }
  });

  it('the background part prunes at start with WEBHOOK_DELIVERY_RETENTION_DAYS', async () => {
    await attempt('msg_part_old', 1, 8, 200);
    await attempt('msg_part_recent', 1, 6, 200);
    const second = await startTestService({
      parts: [webhookDeliveryPart, webhookRetentionPart],
      databaseUrl,
      env: { WEBHOOK_DELIVERY_RETENTION_DAYS: '7' },
    });
    try {
      await waitUntil(async () => (await rowsOf('msg_part_old')).length === 0, 15_000, 'the old message pruned');
      expect(await rowsOf('msg_part_recent')).toEqual([1]);
    } finally {
      await second.close();
    }
  });

  it('an unreachable database is a warning, not an error line', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((r) => server.close(r));
    const unreachable = new pg.Pool({ connectionString: `postgres://u@127.0.0.1:${port}/db` });
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // The part reads only these from its context; the pool is a real one, refused at connect.
    const ctx = { config: { WEBHOOK_DELIVERY_RETENTION_DAYS: 7 }, services: { boss: t.service.ctx.services.boss }, database: { pool: unreachable }, log } as unknown as AppContext;
    const part = webhookRetentionPart(ctx)!;
    await part.start();
    await part.stop();
    await unreachable.end();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'pruning the webhook delivery log failed; tried again next hour: the database is unavailable; retrying']]);
  });

  it('WEBHOOK_DELIVERY_RETENTION_DAYS=0 keeps the log forever (no part)', () => {
    const part = webhookRetentionPart({ ...t.service.ctx, config: { ...t.config, WEBHOOK_DELIVERY_RETENTION_DAYS: 0 } });
    expect(part).toBeNull();
  });
});

describe('job retention (pg-boss)', () => {
  it('archives finished jobs after JOB_ARCHIVE_AFTER_HOURS and deletes archived ones after JOB_RETENTION_DAYS', async () => {
    const boss = t.service.ctx.services.boss!;
    const queue = 'retention-test';
    await boss.createQueue(queue);
    const ids: Record<string, string> = {};
    for (const name of ['doneOld', 'doneRecent', 'failedOld', 'waiting', 'archivedOld', 'archivedRecent']) {
      ids[name] = (await boss.send(queue, { name }))!;
    }
    const set = (id: string, state: string, hoursAgo: number) =>
      pool().query(`UPDATE pgboss.job SET state = $1, completed_on = now() - make_interval(hours => $2) WHERE name = $3 AND id = $4`, [
        state,
        hoursAgo,
        queue,
        id,
      ]);
    await set(ids.doneOld, 'completed', 2);
    await set(ids.doneRecent, 'completed', 0);
    await set(ids.failedOld, 'failed', 2);
    await set(ids.archivedOld, 'completed', 2);
    await set(ids.archivedRecent, 'completed', 2);
    // pg-boss's maintenance (the same that runs every maintenanceIntervalSeconds, on one instance).
    const maintain = () => (boss as unknown as { maintain(): Promise<unknown> }).maintain();
    await maintain();

    const where = async (id: string) => {
      const inJobs = await pool().query('SELECT 1 FROM pgboss.job WHERE name = $1 AND id = $2', [queue, id]);
      const inArchive = await pool().query('SELECT 1 FROM pgboss.archive WHERE name = $1 AND id = $2', [queue, id]);
      return inJobs.rowCount ? 'job' : inArchive.rowCount ? 'archive' : 'gone';
    };
    expect(await where(ids.doneOld)).toBe('archive');
    expect(await where(ids.failedOld)).toBe('archive');
    expect(await where(ids.doneRecent)).toBe('job');
    expect(await where(ids.waiting)).toBe('job');

    // Archived three days ago (over JOB_RETENTION_DAYS=2) goes; one day ago stays.
    await pool().query(`UPDATE pgboss.archive SET archived_on = now() - interval '3 days' WHERE name = $1 AND id = $2`, [queue, ids.archivedOld]);
    await pool().query(`UPDATE pgboss.archive SET archived_on = now() - interval '1 day' WHERE name = $1 AND id = $2`, [queue, ids.archivedRecent]);
    await maintain();
    expect(await where(ids.archivedOld)).toBe('gone');
    expect(await where(ids.archivedRecent)).toBe('archive');
    expect(await where(ids.doneOld)).toBe('archive');
  });
});
