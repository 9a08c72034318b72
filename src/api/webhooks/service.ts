/** Queries behind the webhook endpoints: the signing secret and a call's delivery log. */
import { and, asc, eq } from 'drizzle-orm';
import { newWebhookSecret } from '../../accounts/tokens.js';
import type { Db } from '../../db/pool.js';
import { calls, users, webhookDeliveries } from '../../db/schema.js';

export async function getWebhookSecret(db: Db, userId: number): Promise<string> {
  const [row] = await db.select({ secret: users.webhookSecret }).from(users).where(eq(users.id, userId));
  return row.secret;
}

/** Replaces the user's secret; every signature made from now on uses the new one. */
export async function rotateWebhookSecret(db: Db, userId: number): Promise<string> {
  const [row] = await db
    .update(users)
    .set({ webhookSecret: newWebhookSecret(), updatedAt: new Date().toISOString() })
    .where(eq(users.id, userId))
    .returning({ secret: users.webhookSecret });
  return row.secret;
}

export async function callBelongsTo(db: Db, callId: number, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: calls.id }).from(calls).where(and(eq(calls.id, callId), eq(calls.userId, userId)));
  return row !== undefined;
}

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function listDeliveries(db: Db, callId: number, userId: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.callId, callId), eq(webhookDeliveries.userId, userId)))
    .orderBy(asc(webhookDeliveries.id));
}
