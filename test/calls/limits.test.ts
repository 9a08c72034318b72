import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallLimitError, countLiveCalls, reserveCallSlot } from '../../src/calls/limits.js';
import { calls } from '../../src/db/schema.js';
import { insertAssistant } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

describe('parallel-call slots', () => {
  it('never lets concurrent creators overshoot the limit', async () => {
    const userId = (await t.createUser()).id;
    const assistantId = (await insertAssistant(t, userId)).id;
    const { db } = t.service.ctx.database;
    const attempt = () =>
      db.transaction(async (tx) => {
        await reserveCallSlot(tx, userId, 3);
        await new Promise((r) => setTimeout(r, 20)); // widen the race window
        await tx.insert(calls).values({ userId, assistantId, assistantName: 'A', type: 'outbound', clientPhoneNumber: '+4915123456700' });
      });
    const results = await Promise.allSettled(Array.from({ length: 10 }, attempt));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(CallLimitError);
    expect(await countLiveCalls(db, userId)).toBe(3);
  });

  it('counts only live calls, per user', async () => {
    const userId = (await t.createUser()).id;
    const other = (await t.createUser()).id;
    const assistantId = (await insertAssistant(t, userId)).id;
    const { db } = t.service.ctx.database;
    const row = (u: number, status: string) => ({ userId: u, assistantId, assistantName: 'A', type: 'outbound', status, clientPhoneNumber: '+4915123456700' });
    await db.insert(calls).values([row(userId, 'initiated'), row(userId, 'ringing'), row(userId, 'in-progress'), row(userId, 'completed'), row(userId, 'failed'), row(other, 'in-progress')]);
    expect(await countLiveCalls(db, userId)).toBe(3);
    await expect(db.transaction((tx) => reserveCallSlot(tx, userId, 4))).resolves.toBeUndefined();
    await expect(db.transaction((tx) => reserveCallSlot(tx, userId, 3))).rejects.toBeInstanceOf(CallLimitError);
  });
});
