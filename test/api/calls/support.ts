/** Call rows inserted directly (the engine is not needed to test the read side). */
import { calls } from '../../../src/db/schema.js';
import type { TestService } from '../../support/service.js';

export type CallInsert = typeof calls.$inferInsert;

export async function insertCall(t: TestService, userId: number, overrides: Partial<CallInsert> = {}) {
  const [row] = await t.service.ctx.database.db
    .insert(calls)
    .values({
      userId,
      assistantName: 'Test assistant',
      type: 'outbound',
      status: 'completed',
      clientPhoneNumber: '+4915123456789',
      assistantPhoneNumber: '+4930123456',
      ...overrides,
    })
    .returning();
  return row;
}

/** Inserts many calls in one statement; returns their ids in insertion order. */
export async function insertCalls(t: TestService, userId: number, list: Partial<CallInsert>[]): Promise<number[]> {
  if (list.length === 0) return [];
  const rows = await t.service.ctx.database.db
    .insert(calls)
    .values(list.map((o) => ({
      userId,
      assistantName: 'Test assistant',
      type: 'outbound',
      status: 'completed',
      clientPhoneNumber: '+4915123456789',
      ...o,
    })))
    .returning({ id: calls.id });
  return rows.map((r) => r.id);
}
