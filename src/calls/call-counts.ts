/**
 * Keeps `call_counts` compact: triggers spread each (user, status, type) counter over 16 shard
 * rows so that one user's concurrent calls do not queue on one row lock, and every call list
 * total sums them; folding the shards back into shard 0 every minute keeps that sum to a
 * row per (status, type) for every user whose calls are not changing right now
 * (migration 0008 has the fold itself and why it never makes a writer wait).
 */
import type pg from 'pg';
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { loopFailureLogger } from '../db/unavailable.js';

export const FOLD_INTERVAL_MS = 60_000;

/** SQLSTATE of a lock_timeout: the fold met a writer's row lock and will try again next time. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Folds what it can; the number of shard rows moved, or null when it gave way to a writer. */
export async function foldCallCounts(pool: pg.Pool): Promise<number | null> {
  try {
    const { rows } = await pool.query<{ moved: number }>('SELECT switchboard_call_counts_fold() AS moved');
    return rows[0].moved;
  } catch (err) {
    if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return null;
    throw err;
  }
}

export function callCountsPart(ctx: AppContext): BackgroundPart {
  const { pool } = ctx.database;
  let timer: NodeJS.Timeout | undefined;
  let folding: Promise<unknown> | undefined;
  const foldFailed = loopFailureLogger(ctx.log, 'call counter fold failed');
  const fold = () => {
    if (folding) return; // the last one is still running
    folding = foldCallCounts(pool)
      .then((moved) => ctx.log.debug({ moved }, moved === null ? 'call counter fold gave way to a writer' : 'call counters folded'))
      .catch(foldFailed)
      .finally(() => (folding = undefined));
  };
  return {
    name: 'call-counts',
    async start() {
      fold();
      timer = setInterval(fold, FOLD_INTERVAL_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await folding;
    },
  };
}
