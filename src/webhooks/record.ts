/**
 * Recording finished webhook attempts (spec 3.5, 6; CONTRACT §8), a group at a time in one
 * transaction: their `webhook_deliveries` rows, the receivers' answers to
 * `calls.webhook_response`, the next attempt of each failed message as a job with `startAfter`
 * (WEBHOOK_RETRY_SCHEDULE), and the completion of their jobs. Either all of it commits or none
 * (and pg-boss hands the jobs out again): at-least-once. Taking and sending the attempts is
 * src/webhooks/delivery.ts.
 */
import type PgBoss from 'pg-boss';
import type { AppContext } from '../context.js';
import { executorOf } from '../calls/events.js';
import { inTransaction } from '../db/pool.js';
import type { AttemptResult } from './attempt.js';
import { DELIVER_QUEUE, enqueueAttempts, type MessageJob } from './messages.js';

/** A finished attempt waiting to be recorded; `result` null = nothing to send (call deleted). */
export interface Finished {
  jobId: string;
  msg: MessageJob;
  result: AttemptResult | null;
}

/**
 * Records a group of finished attempts in one transaction and counts them in the metrics.
 * Returns the delays (seconds) of the retries it planned, so the caller can wake up for them.
 */
export async function recordAttempts(ctx: AppContext, boss: PgBoss, group: Finished[]): Promise<number[]> {
  const schedule = ctx.config.WEBHOOK_RETRY_SCHEDULE;
  const rows: Record<string, unknown>[] = [];
  // The last answer per call in this group wins (attempts of one call rarely share a group).
  const answers = new Map<number, Record<string, unknown>>();
  const next: MessageJob[] = [];
  const delays = new Map<string, number>();
  for (const { msg, result: r } of group) {
    if (!r) continue;
    rows.push({
      call_id: msg.callId,
      user_id: msg.userId,
      message_id: msg.messageId,
      kind: msg.kind,
      url: r.url,
      attempt: msg.attempt,
      status_code: r.statusCode,
      duration_ms: r.durationMs,
      error: r.error,
      created_at: r.startedAt.toISOString(),
    });
    if (msg.storeResponse && r.response) answers.set(msg.callId, r.response);
    if (r.outcome === 'retry' && msg.attempt <= schedule.length) {
      const n = { ...msg, attempt: msg.attempt + 1, url: r.url };
      next.push(n);
      delays.set(n.messageId, schedule[msg.attempt - 1]);
    }
  }

  await inTransaction(ctx.database.pool, async (client) => {
    if (rows.length > 0) {
      // Not for a call deleted while its attempt was under way (its log would go with it anyway):
      // the row would break the foreign key and fail the whole group, every attempt in it re-sent.
      await client.query(
        `INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at)
         SELECT call_id, user_id, message_id, kind, url, attempt, status_code, duration_ms, error, created_at
         FROM json_to_recordset($1::json) AS x(call_id int, user_id int, message_id text, kind text, url text, attempt int,
           status_code int, duration_ms int, error text, created_at timestamptz)
         WHERE EXISTS (SELECT 1 FROM calls c WHERE c.id = x.call_id)`,
        [JSON.stringify(rows)],
      );
    }
    if (answers.size > 0) {
      await client.query(
        `UPDATE calls SET webhook_response = x.response
         FROM json_to_recordset($1::json) AS x(id int, response jsonb) WHERE calls.id = x.id`,
        [JSON.stringify([...answers].map(([id, response]) => ({ id, response })))],
      );
    }
    const executor = executorOf(client);
    if (next.length > 0) await enqueueAttempts(boss, next, executor, (j) => String(delays.get(j.messageId)));
    await boss.complete(DELIVER_QUEUE, group.map((f) => f.jobId), { db: executor } as PgBoss.ConnectionOptions);
  });
  const metrics = ctx.services.metrics;
  if (metrics) {
    for (const { msg, result: r } of group) {
      if (!r) continue;
      if (r.outcome === 'delivered') metrics.webhookAttempt('delivered');
      else if (r.outcome === 'stop') metrics.webhookAttempt('stopped');
      else metrics.webhookAttempt(msg.attempt <= schedule.length ? 'retry' : 'gave_up');
    }
  }
  return next.map((n) => delays.get(n.messageId)!);
}
