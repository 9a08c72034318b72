/**
 * The webhook delivery as a background part of a full process: consumes the call-finished
 * event bus the composition root created, and offers itself as `ctx.services.webhooks`.
 */
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { DELIVER_QUEUE, WebhookDelivery } from './delivery.js';

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
  return { name: 'webhooks', provides: { webhooks: delivery }, start: () => delivery.start(), stop: () => delivery.stop() };
}
