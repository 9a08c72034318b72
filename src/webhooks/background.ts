/**
 * The webhook delivery as a background part of a full process: consumes the call-finished
 * event bus the composition root created, and offers itself as `ctx.services.webhooks`.
 */
import type { AppContext } from '../context.js';
import type { BackgroundPart } from '../parts.js';
import { WebhookDelivery } from './delivery.js';

export function webhookDeliveryPart(ctx: AppContext): BackgroundPart | null {
  const { boss, callEvents } = ctx.services;
  if (!boss || !callEvents) return null;
  const delivery = new WebhookDelivery(ctx, boss, callEvents);
  return { name: 'webhooks', provides: { webhooks: delivery }, start: () => delivery.start(), stop: () => delivery.stop() };
}
