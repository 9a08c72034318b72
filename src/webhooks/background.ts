/**
 * The webhook delivery as a background part of a full process. Imported by src/background.ts
 * (after the call engine's part, which installs `ctx.services.callEvents`; whichever part
 * runs first creates the event bus and the other reuses it).
 */
import type {} from '../calls/types.js';
import { CallFinishedEvents } from '../calls/events.js';
import { registerBackgroundPart } from '../service.js';
import { WebhookDelivery } from './delivery.js';

registerBackgroundPart((ctx) => {
  const boss = ctx.services.boss;
  if (!boss) return null;
  const events = (ctx.services.callEvents ??= new CallFinishedEvents(boss));
  const delivery = new WebhookDelivery(ctx, boss, events);
  ctx.services.webhooks = delivery;
  return { name: 'webhooks', start: () => delivery.start(), stop: () => delivery.stop() };
});
