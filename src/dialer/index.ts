/**
 * The dialer's background part: subscribes its queue of the call-finished event, LISTENs for
 * freed call slots and sweeps running campaigns (src/dialer/dialer.ts). Every instance runs
 * one; they coordinate through the database only.
 */
import type { AppContext } from '../context.js';
import { connect } from '../db/pool.js';
import type { BackgroundPart } from '../parts.js';
import { whenCallJobsHandled } from '../calls/events.js';
import { Dialer } from './dialer.js';

export const DIALER_QUEUE = 'dialer-call-finished';

declare module '../context.js' {
  interface Services {
    dialer?: Dialer;
  }
}

/** Connections of the dialer's own pool (claims and settlements). */
const DIALER_POOL_SIZE = 4;
const SETTLE_CONCURRENCY = 3;
/** Shutdown: how long the leads of the calls this instance finished may take to be settled. */
const SHUTDOWN_SETTLE_WAIT_MS = 10_000;

export function dialerPart(ctx: AppContext): BackgroundPart | null {
  const events = ctx.services.callEvents;
  if (!events) return null;
  // Its own small pool: claiming the next leads must not queue behind the live calls'
  // database work in the shared pool (a slot freeing would otherwise wait for a connection).
  const { url } = ctx.database;
  const database = connect(url, { max: DIALER_POOL_SIZE, applicationName: 'switchboard-dialer' });
  const dialer = new Dialer({
    db: database.db,
    log: ctx.log.child({ part: 'dialer' }),
    calls: () => ctx.services.calls,
    metrics: ctx.services.metrics,
    listen: {
      connectionString: url,
      application_name: 'switchboard-dialer-listen',
    },
  });
  // Cluster-wide, read at scrape time: leads still to be dialled in running campaigns.
  ctx.services.metrics?.gauge(
    'switchboard_dialer_backlog',
    'Leads not yet final in running campaigns (all instances; aggregate with max).',
    async () => {
      const res = await database.pool.query<{ n: number }>(
        `select count(*)::int as n from leads l join campaigns c on c.id = l.campaign_id
          where c.status = 'in-progress' and l.status = 'created'`,
      );
      return res.rows[0]?.n ?? 0;
    },
  );
  return {
    name: 'dialer',
    provides: { dialer },
    async start() {
      // A fetched batch is settled SETTLE_CONCURRENCY at a time (one lead row each, so they
      // do not contend); a failure fails the batch, and settling again is a no-op.
      await events.subscribeBatch(
        DIALER_QUEUE,
        async (batch) => {
          let next = 0;
          const worker = async () => {
            while (next < batch.length) {
              const settled = await dialer.onCallFinished(batch[next++].callId);
              if (settled) ctx.services.metrics?.leadSettled(settled.outcome);
            }
          };
          await Promise.all(Array.from({ length: Math.min(SETTLE_CONCURRENCY, batch.length) }, worker));
        },
        { batchSize: 200, pollingIntervalSeconds: 0.5 },
      );
      await dialer.start();
    },
    // Shutdown: no new claims at once; the calls already placed are the engine's to finish.
    quiesce: () => dialer.stop(),
    // Their leads are settled here (the subscription runs until the job queue stops).
    async drain() {
      const done = await whenCallJobsHandled(ctx.database.pool, [DIALER_QUEUE], ctx.instanceId, SHUTDOWN_SETTLE_WAIT_MS);
      if (!done) ctx.log.warn('shutting down with leads of finished calls not yet settled; another instance or the next start settles them');
    },
    async stop() {
      await dialer.stop();
      await database.close();
    },
  };
}
