/**
 * The dialer's background part: subscribes its queue of the call-finished event, LISTENs for
 * freed call slots and sweeps running campaigns (src/dialer/dialer.ts). Every instance runs
 * one; they coordinate through the database only.
 */
import pg from 'pg';
import { CallFinishedEvents } from '../calls/events.js';
import { registerBackgroundPart } from '../service.js';
import { Dialer } from './dialer.js';

export const DIALER_QUEUE = 'dialer-call-finished';

declare module '../context.js' {
  interface Services {
    dialer?: Dialer;
  }
}

registerBackgroundPart((ctx) => {
  const boss = ctx.services.boss;
  if (!boss) return null;
  const dialer = new Dialer({
    db: ctx.database.db,
    log: ctx.log.child({ part: 'dialer' }),
    calls: () => ctx.services.calls,
    listen: {
      connectionString: (ctx.database.pool.options as pg.PoolConfig).connectionString,
      application_name: 'switchboard-dialer-listen',
    },
  });
  ctx.services.dialer = dialer;
  return {
    name: 'dialer',
    async start() {
      const events = (ctx.services.callEvents ??= new CallFinishedEvents(boss));
      await events.subscribe(
        DIALER_QUEUE,
        async ({ callId }) => {
          await dialer.onCallFinished(callId);
        },
        { batchSize: 200, pollingIntervalSeconds: 0.5 },
      );
      await dialer.start();
    },
    async stop() {
      await dialer.stop();
    },
  };
});
