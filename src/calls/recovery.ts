/**
 * Crash recovery. Each process keeps a heartbeat row in `instances`; a live call
 * (initiated/ringing/in-progress) whose `owner_instance` has no fresh heartbeat was left by a
 * dead process and is ended (`ended`, by the service), with its call-finished event, so the
 * dialer can account for the lead. Checked at start-up and periodically, by every instance;
 * the conditional status update lets exactly one of them win.
 *
 * A stale heartbeat means "dead" only to a judge that could itself see the database for the
 * whole stale window: during a database outage every heartbeat goes stale, and a sweep run the
 * moment the database is back would end every other instance's live calls (their real records
 * then thrown away). So an instance judges others' calls only after its own heartbeats have
 * succeeded without a gap for STALE_AFTER_SECONDS (`HeartbeatWatch`), and the heartbeat has a
 * connection of its own, never queued behind a saturated pool. See docs/decisions.md.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { executorOf, type CallFinishedEvents } from './events.js';
import { NOW, transitionCall, type CallStatus } from './state-machine.js';
import { eachInBatchTransaction, survivesLostConnections } from '../db/pool.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A heartbeat older than this marks its process as dead. */
export const STALE_AFTER_SECONDS = 15;
/** Orphaned calls ended per transaction (see `recoverOrphans`). */
const RECOVERY_BATCH = 50;
/** A call of this very process that it is not running and that has not moved for this long is orphaned too. */
const OWN_ORPHAN_SECONDS = 60;
/**
 * Successful heartbeats further apart than this leave a gap in which this process could not see
 * the database. Below STALE_AFTER_SECONDS minus one interval, so a gap this process did not notice
 * still left every other instance more than one heartbeat interval of reachable database in which
 * to refresh its row.
 */
export const HEARTBEAT_GAP_MS = 7_500;

export async function heartbeat(pool: pg.Pool, instanceId: string): Promise<void> {
  await pool.query(
    `INSERT INTO instances (id, heartbeat_at) VALUES ($1, now())
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
    [instanceId],
  );
}

/**
 * This process's heartbeat, sent on a connection of its own (a heartbeat queued behind a
 * saturated shared pool goes stale while the process is alive and well), and the record of how
 * long it has seen the database without a gap: what entitles it to judge other instances.
 */
export class HeartbeatWatch {
  private readonly pool: pg.Pool;
  /** Monotonic ms: the end of the first beat of the current unbroken run; null after a failure. */
  private seenSince: number | null = null;
  private lastSeenAt: number | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    databaseUrl: string,
    private readonly instanceId: string,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 1,
      application_name: 'switchboard-heartbeat',
      // A beat that cannot finish within the gap is a failure, not a wait.
      connectionTimeoutMillis: HEARTBEAT_GAP_MS,
      query_timeout: HEARTBEAT_GAP_MS,
      idleTimeoutMillis: 0,
      allowExitOnIdle: true,
    });
    this.pool.on('error', () => {
      /* the idle connection died (e.g. a database restart); the next beat opens a new one */
    });
    survivesLostConnections(this.pool);
  }

  /** One beat; while one is still under way, that one (a second behind it would add nothing). */
  beat(): Promise<void> {
    this.inFlight ??= this.send().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async send(): Promise<void> {
    try {
      await heartbeat(this.pool, this.instanceId);
    } catch (err) {
      this.seenSince = null;
      throw err;
    }
    const at = this.clock();
    if (this.seenSince === null || this.lastSeenAt === null || at - this.lastSeenAt > HEARTBEAT_GAP_MS) this.seenSince = at;
    this.lastSeenAt = at;
  }

  /**
   * True once this process's beats have succeeded without a gap for the whole stale window and
   * the latest is recent: only then does another instance's stale heartbeat say that instance
   * is dead rather than that this process (or the database) was away.
   */
  canJudgeOthers(): boolean {
    const now = this.clock();
    if (this.seenSince === null || this.lastSeenAt === null) return false;
    return now - this.seenSince >= STALE_AFTER_SECONDS * 1000 && now - this.lastSeenAt <= HEARTBEAT_GAP_MS;
  }

  async close(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
    await this.pool.end();
  }
}

export async function forgetInstance(pool: pg.Pool, instanceId: string): Promise<void> {
  await pool.query('DELETE FROM instances WHERE id = $1', [instanceId]);
  await pool.query(`DELETE FROM instances WHERE heartbeat_at < now() - interval '1 day'`);
}

/**
 * Deletes the one-time tokens of browser calls that are over: spent ones once their call ended,
 * and those never used within their lifetime once the call they were for was ended without its
 * page. A minute past expiry, so the engine's own end of an unconnected call comes first.
 */
export async function pruneWebCallTokens(pool: pg.Pool): Promise<number> {
  const res = await pool.query(
    `DELETE FROM web_call_tokens w
      WHERE w.expires_at < now() - interval '1 minute'
        AND NOT EXISTS (SELECT 1 FROM calls c WHERE c.id = w.call_id AND c.status IN ('initiated', 'ringing', 'in-progress'))`,
  );
  return res.rowCount ?? 0;
}

/** Ends the orphaned live calls; returns how many were ended by this call. */
export async function recoverOrphans(opts: {
  pool: pg.Pool;
  log: Logger;
  events?: CallFinishedEvents;
  instanceId: string;
  /** Calls this process is running right now. */
  running: ReadonlySet<number>;
  /**
   * Whether this process has seen the database long enough to take another instance's stale
   * heartbeat for death (`HeartbeatWatch.canJudgeOthers`). When false, only this process's own
   * orphans and ownerless calls are ended.
   */
  canJudgeOthers: boolean;
}): Promise<number> {
  const { pool, log } = opts;
  const { rows } = await pool.query<{ id: number; status: CallStatus; owner_instance: string | null }>(
    `SELECT c.id, c.status, c.owner_instance FROM calls c
      WHERE c.status IN ('initiated', 'ringing', 'in-progress')
        AND (
          c.owner_instance IS NULL
          OR (c.owner_instance <> $1 AND $4::boolean
              -- Judged on the database's clock in this very statement: our own beat is recent, so the
              -- database did not just stall under us (a stalled statement sees every heartbeat old).
              AND EXISTS (SELECT 1 FROM instances me WHERE me.id = $1 AND me.heartbeat_at > now() - make_interval(secs => $5))
              AND NOT EXISTS (
                SELECT 1 FROM instances i
                 WHERE i.id = c.owner_instance AND i.heartbeat_at > now() - make_interval(secs => $2)))
          OR (c.owner_instance = $1 AND c.updated_at < now() - make_interval(secs => $3))
        )
      ORDER BY c.id
      LIMIT 500`,
    [opts.instanceId, STALE_AFTER_SECONDS, OWN_ORPHAN_SECONDS, opts.canJudgeOthers, HEARTBEAT_GAP_MS / 1000],
  );
  const orphans = rows.filter((row) => !(row.owner_instance === opts.instanceId && opts.running.has(row.id)));
  let ended = 0;
  // RECOVERY_BATCH calls per transaction (one commit, not one each; eachInBatchTransaction): a call
  // whose update fails is rolled back alone, with its event, and found again next pass. Ending
  // one again after a rollback is safe: the update is conditional on the status read.
  for (let i = 0; i < orphans.length; i += RECOVERY_BATCH) {
    const batch = orphans.slice(i, i + RECOVERY_BATCH);
    let done: { item: (typeof batch)[number]; result: { userId: number } | null }[];
    try {
      done = await eachInBatchTransaction(
        pool,
        batch,
        async (client, row) => {
          const m = await transitionCall(client, log, row.id, row.status, 'ended', { endedAt: NOW });
          if (m) await opts.events?.emit(executorOf(client), { callId: row.id, userId: m.userId });
          return m;
        },
        (row, err) => log.error({ err, callId: row.id }, 'recovering a call failed'),
      );
    } catch (err) {
      log.error({ err, callIds: batch.map((row) => row.id) }, 'recovering calls failed');
      continue;
    }
    for (const { item: row, result: moved } of done) {
      if (!moved) continue;
      ended++;
      log.warn({ callId: row.id, from: row.status, owner: row.owner_instance }, 'ended a call left behind by a stopped process');
    }
  }
  return ended;
}
