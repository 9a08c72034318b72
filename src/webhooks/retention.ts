/**
 * Retention of the webhook delivery log (issue 15): `webhook_deliveries` rows of finished
 * messages — delivered, stopped (410, disabled, blocked target) or given up — are deleted once
 * the message's newest attempt is older than WEBHOOK_DELIVERY_RETENTION_DAYS. A message with a
 * retry still planned or under way (its next attempt's job not finished in pg-boss) keeps every
 * row, however old. Only this log is pruned: calls, leads and recordings are never touched here.
 *
 * Deletes go in small batches (each its own short statement, keyset-paged by id) so a large
 * table is never locked for long, and one instance at a time prunes (a session advisory lock;
 * the others skip their turn).
 */
import type pg from 'pg';
import type { AppContext } from '../context.js';
import { loopFailureLogger } from '../db/unavailable.js';
import type { BackgroundPart } from '../parts.js';
import { DELIVER_QUEUE } from './messages.js';

/** Advisory lock held by the instance pruning right now (see src/service.ts for 727_002). */
const RETENTION_LOCK = 727_003;
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface PruneOptions {
  /** Rows of finished messages whose newest attempt is older than this many days go. */
  retentionDays: number;
  /** Rows looked at (and at most deleted) per statement. */
  batchSize?: number;
  /** Pause between batches, so other work gets the table and the pool in between. */
  pauseMs?: number;
  /** Checked between batches: stop early (the process is shutting down). */
  stopped?: () => boolean;
  /** Told after every batch (benchmarks: how long each statement held its rows). */
  onBatch?: (batch: { scanned: number; deleted: number; ms: number }) => void;
}

/**
 * One batch: the next `batchSize` old rows by id (keyset paging on the primary key: no
 * index on created_at, which would cost every insert; a run walks the table once), of which
 * those of finished messages are deleted; each message of the batch is looked at once (its
 * newest attempt, through the call's index; the CTEs are materialised so that its next job's
 * id is hashed once, not once per pending job). A message is pending when the job of its next
 * attempt (id derived as in messages.ts `jobIdFor(messageId:attempt)`: the first 32 hex digits
 * of a SHA-256) is created, waiting for a retry or active.
 */
const PRUNE_BATCH = `
WITH scanned AS MATERIALIZED (
  SELECT id, call_id, message_id FROM webhook_deliveries
  WHERE id > $1 AND created_at < $2
  ORDER BY id LIMIT $3
), messages AS MATERIALIZED (
  SELECT m.call_id, m.message_id, x.newest,
    substr(encode(sha256(convert_to(m.message_id || ':' || (x.last + 1), 'UTF8')), 'hex'), 1, 32)::uuid AS next_job
  FROM (SELECT DISTINCT call_id, message_id FROM scanned) m
  CROSS JOIN LATERAL (
    SELECT max(w.attempt) AS last, max(w.created_at) AS newest FROM webhook_deliveries w
    WHERE w.call_id = m.call_id AND w.message_id = m.message_id) x
), finished AS MATERIALIZED (
  SELECT m.call_id, m.message_id FROM messages m
  WHERE m.newest < $2
    AND NOT EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = $4 AND j.id = m.next_job AND j.state < 'completed')
), deleted AS (
  DELETE FROM webhook_deliveries d USING scanned s, finished f
  WHERE d.id = s.id AND s.call_id = f.call_id AND s.message_id = f.message_id
  RETURNING d.id
)
SELECT (SELECT max(id) FROM scanned) AS last, (SELECT count(*) FROM scanned)::int AS scanned,
       (SELECT count(*) FROM deleted)::int AS deleted`;

/**
 * Deletes the delivery rows of finished messages older than the retention; returns how many,
 * or null when another instance is pruning. Runs on one pooled connection (the advisory lock
 * is a session lock), every batch in its own implicit transaction.
 */
export async function pruneWebhookDeliveries(pool: pg.Pool, opts: PruneOptions): Promise<number | null> {
  const batchSize = opts.batchSize ?? 1000;
  const pauseMs = opts.pauseMs ?? 50;
  const cutoff = new Date(Date.now() - opts.retentionDays * 86_400_000).toISOString();
  const client = await pool.connect();
  try {
    const { rows: got } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [RETENTION_LOCK]);
    if (!got[0].ok) return null;
    try {
      let after = '0';
      let total = 0;
      while (!opts.stopped?.()) {
        const began = performance.now();
        const { rows } = await client.query<{ last: string | null; scanned: number; deleted: number }>(PRUNE_BATCH, [
          after,
          cutoff,
          batchSize,
          DELIVER_QUEUE,
        ]);
        total += rows[0].deleted;
        opts.onBatch?.({ scanned: rows[0].scanned, deleted: rows[0].deleted, ms: performance.now() - began });
        if (rows[0].scanned < batchSize || rows[0].last === null) break;
        after = rows[0].last;
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
      return total;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/**
 * Prunes at start and then every hour (WEBHOOK_DELIVERY_RETENTION_DAYS; 0 keeps the log
 * forever). Needs pg-boss's tables, so it runs only in processes with background parts.
 */
export function webhookRetentionPart(ctx: AppContext): BackgroundPart | null {
  const days = ctx.config.WEBHOOK_DELIVERY_RETENTION_DAYS;
  if (days === 0 || !ctx.services.boss) return null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  // An outage is a throttled warning (the next hour tries again), a failed statement an error.
  const pruneFailed = loopFailureLogger(ctx.log, 'pruning the webhook delivery log failed; tried again next hour');
  const prune = () => {
    if (running) return; // the last run is still going
    running = pruneWebhookDeliveries(ctx.database.pool, { retentionDays: days, stopped: () => stopped })
      .then((deleted) => {
        if (deleted) ctx.log.info({ deleted, retentionDays: days }, 'old webhook delivery log rows pruned');
      })
      .catch(pruneFailed)
      .finally(() => (running = undefined));
  };
  return {
    name: 'webhook-retention',
    async start() {
      prune();
      timer = setInterval(prune, PRUNE_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
