/**
 * The webhook delivery as a background part of a full process. Imported by src/background.ts
 * after the call engine's part; `ensureCallEvents` gives both the same event bus whichever
 * part starts first.
 */
import type {} from '../calls/types.js';
import { ensureCallEvents } from '../calls/events.js';
import { registerBackgroundPart } from '../service.js';
import { WebhookDelivery } from './delivery.js';

registerBackgroundPart((ctx) => {
  const boss = ctx.services.boss;
  const events = ensureCallEvents(ctx.services);
  if (!boss || !events) return null;
  const delivery = new WebhookDelivery(ctx, boss, events);
  ctx.services.webhooks = delivery;
  return { name: 'webhooks', start: () => delivery.start(), stop: () => delivery.stop() };
});
