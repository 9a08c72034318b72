/**
 * Deliver jobs pg-boss gave up on. A job fails at the pg-boss level when its attempt could not be
 * made or recorded (recording failed, the process that took it died and the job expired); after
 * the queue's retry limit pg-boss marks it `failed` and nothing else happens, so the message was
 * dropped with no log row and no error. The deliver queue names this queue as its dead letter:
 * pg-boss copies every job that fails for the last time here, in the same statement, and this
 * worker logs an error with the message id and adds a log row to `webhook_deliveries`, so the
 * user sees the message was given up (and can send it again by hand).
 */
import type PgBoss from 'pg-boss';
import type { AppContext } from '../context.js';
import type { MessageJob } from './messages.js';

export const DEAD_LETTER_QUEUE = 'webhooks-deliver-failed';

/** The log row's `error` of a message pg-boss gave up on. */
export const GAVE_UP_ERROR = 'given up: this attempt could not be made or recorded on any of its job retries; the message is not sent again';

/** Logs and records the given-up messages; a failure here is retried by pg-boss (the job stays on this queue). */
export async function recordGivenUp(ctx: AppContext, jobs: PgBoss.Job<MessageJob>[]): Promise<void> {
  const messages = jobs.map((j) => j.data).filter((m) => m && typeof m.messageId === 'string');
  if (messages.length === 0) return;
  for (const m of messages) {
    ctx.log.error({ messageId: m.messageId, callId: m.callId, attempt: m.attempt, kind: m.kind }, 'webhook message given up after its job failed on every retry');
  }
  // Not for a call deleted meanwhile: its log rows are gone with it (and the foreign key would fail the batch).
  await ctx.database.pool.query(
    `INSERT INTO webhook_deliveries (call_id, user_id, message_id, kind, url, attempt, error)
     SELECT call_id, user_id, message_id, kind, url, attempt, $2
     FROM json_to_recordset($1::json) AS x(call_id int, user_id int, message_id text, kind text, url text, attempt int)
     WHERE EXISTS (SELECT 1 FROM calls c WHERE c.id = x.call_id)`,
    [
      JSON.stringify(messages.map((m) => ({ call_id: m.callId, user_id: m.userId, message_id: m.messageId, kind: m.kind, url: m.url, attempt: m.attempt }))),
      GAVE_UP_ERROR,
    ],
  );
}
