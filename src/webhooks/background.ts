/**
 * The webhook delivery as a background part of a full process: consumes the call-finished
 * event bus the composition root created, and offers itself as `ctx.services.webhooks`.
 */
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { whenCallJobsHandled } from '../calls/events.js';
import { CALL_FINISHED_QUEUE, WebhookDelivery } from './delivery.js';
import { DELIVER_QUEUE } from './messages.js';

/**
 * Shutdown: how long the webhooks of the calls this instance finished may take to go out
 * before it stops (one attempt's timeout and some). What is not out by then stays queued.
 */
const SHUTDOWN_DELIVERY_WAIT_MS = 25_000;

export function webhookDeliveryPart(ctx: AppContext): BackgroundPart | null {
  const { boss, callEvents } = ctx.services;
  if (!boss || !callEvents) return null;
  const delivery = new WebhookDelivery(ctx, boss, callEvents);
  // Cluster-wide, read at scrape time: planned second-or-later attempts not yet made (pg-boss's job table).
  ctx.services.metrics?.gauge(
    'switchboard_webhook_pending_retries',
    'Webhook retries planned and not yet attempted (all instances; aggregate with max).',
    async () => {
      const res = await ctx.database.pool.query<{ n: number }>(
        `select count(*)::int as n from pgboss.job
          where name = $1 and state in ('created', 'retry') and (data->>'attempt')::int > 1`,
        [DELIVER_QUEUE],
      );
      return res.rows[0]?.n ?? 0;
    },
  );
  return {
    name: 'webhooks',
    provides: { webhooks: delivery },
    start: () => delivery.start(),
    // The calls ended by the shutdown have emitted their events by now (the calls part drains
    // first): their first attempts are made here; retries planned for later stay durable jobs.
    drain: async () => {
      const done = await whenCallJobsHandled(ctx.database.pool, [CALL_FINISHED_QUEUE, DELIVER_QUEUE], ctx.instanceId, SHUTDOWN_DELIVERY_WAIT_MS);
      if (!done) ctx.log.warn('shutting down with webhooks of finished calls still queued; another instance or the next start sends them');
    },
    stop: () => delivery.stop(),
  };
}
