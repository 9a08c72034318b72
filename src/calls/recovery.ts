/**
 * Crash recovery. Each process keeps a heartbeat row in `instances`; a live call
 * (initiated/ringing/in-progress) whose `owner_instance` has no fresh heartbeat was left by a
 * dead process and is ended (`ended`, by the service), with its call-finished event, so the
 * dialer can account for the lead. Checked at start-up and periodically, by every instance;
 * the conditional status update lets exactly one of them win.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { executorOf, type CallFinishedEvents } from './events.js';
import { NOW, transitionCall, type CallStatus } from './state-machine.js';
import { inTransaction } from '../db/pool.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A heartbeat older than this marks its process as dead. */
export const STALE_AFTER_SECONDS = 15;
/** A call of this very process that it is not running and that has not moved for this long is orphaned too. */
const OWN_ORPHAN_SECONDS = 60;

export async function heartbeat(pool: pg.Pool, instanceId: string): Promise<void> {
  await pool.query(
    `INSERT INTO instances (id, heartbeat_at) VALUES ($1, now())
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
    [instanceId],
  );
}

export async function forgetInstance(pool: pg.Pool, instanceId: string): Promise<void> {
  await pool.query('DELETE FROM instances WHERE id = $1', [instanceId]);
  await pool.query(`DELETE FROM instances WHERE heartbeat_at < now() - interval '1 day'`);
}

/** Ends the orphaned live calls; returns how many were ended by this call. */
export async function recoverOrphans(opts: {
  pool: pg.Pool;
  log: Logger;
  events?: CallFinishedEvents;
  instanceId: string;
  /** Calls this process is running right now. */
  running: ReadonlySet<number>;
}): Promise<number> {
  const { pool, log } = opts;
  const { rows } = await pool.query<{ id: number; status: CallStatus; owner_instance: string | null }>(
    `SELECT c.id, c.status, c.owner_instance FROM calls c
      WHERE c.status IN ('initiated', 'ringing', 'in-progress')
        AND (
          c.owner_instance IS NULL
          OR (c.owner_instance <> $1 AND NOT EXISTS (
                SELECT 1 FROM instances i
                 WHERE i.id = c.owner_instance AND i.heartbeat_at > now() - make_interval(secs => $2)))
          OR (c.owner_instance = $1 AND c.updated_at < now() - make_interval(secs => $3))
        )
      ORDER BY c.id
      LIMIT 500`,
    [opts.instanceId, STALE_AFTER_SECONDS, OWN_ORPHAN_SECONDS],
  );
  let ended = 0;
  for (const row of rows) {
    if (row.owner_instance === opts.instanceId && opts.running.has(row.id)) continue;
    try {
      const moved = await inTransaction(pool, async (client) => {
        const m = await transitionCall(client, log, row.id, row.status, 'ended', { endedAt: NOW });
        if (m) await opts.events?.emit(executorOf(client), { callId: row.id, userId: m.userId });
        return m;
      });
      if (moved) {
        ended++;
        log.warn({ callId: row.id, from: row.status, owner: row.owner_instance }, 'ended a call left behind by a stopped process');
      }
    } catch (err) {
      log.error({ err, callId: row.id }, 'recovering a call failed');
    }
  }
  return ended;
}
