/**
 * The call list's total comes from `call_counts` (kept by triggers) when the list is filtered
 * by status and/or type only. These tests hold it equal to a real count through every kind of
 * change a call row goes through.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldCallCounts } from '../../../src/calls/call-counts.js';
import { callCounts, calls, users } from '../../../src/db/schema.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall, insertCalls } from './support.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const db = () => t.service.ctx.database.db;

/** call_counts (non-zero rows) against a GROUP BY over calls, for every user. */
async function expectCountersExact() {
  const real = await db()
    .select({ userId: calls.userId, status: calls.status, type: calls.type, n: sql<number>`count(*)`.mapWith(Number) })
    .from(calls)
    .groupBy(calls.userId, calls.status, calls.type);
  // Counters are sharded by call id: compare their per-(user, status, type) sums.
  const kept = await db()
    .select({ userId: callCounts.userId, status: callCounts.status, type: callCounts.type, n: sql<number>`sum(${callCounts.n})`.mapWith(Number) })
    .from(callCounts)
    .groupBy(callCounts.userId, callCounts.status, callCounts.type)
    .having(sql`sum(${callCounts.n}) <> 0`);
  const key = (r: { userId: number; status: string; type: string; n: number }) => `${r.userId}|${r.status}|${r.type}|${r.n}`;
  expect(kept.map(key).sort()).toEqual(real.map(key).sort());
}

/** The list's totals for the filters served from the counters, against real counts. */
async function expectTotals(u: TestUser) {
  const mine = await db().select({ status: calls.status, type: calls.type }).from(calls).where(eq(calls.userId, u.id));
  const total = async (q: string) => (await u.get(`/api/user/calls?per_page=1${q}`)).body.total as number;
  expect(await total('')).toBe(mine.length);
  for (const status of ['initiated', 'in-progress', 'completed', 'failed']) {
    expect(await total(`&status=${status}`)).toBe(mine.filter((c) => c.status === status).length);
    for (const type of ['outbound', 'inbound']) {
      expect(await total(`&status=${status}&type=${type}`)).toBe(mine.filter((c) => c.status === status && c.type === type).length);
    }
  }
  expect(await total('&type=web')).toBe(mine.filter((c) => c.type === 'web').length);
}

describe('call list totals kept by call_counts', () => {
  it('follow inserts, status and type changes, deletes', async () => {
    const u = await t.createUser();
    const other = await t.createUser();
    await expectTotals(u);
    const ids = await insertCalls(t, u.id, [
      { status: 'initiated' }, { status: 'initiated' }, { status: 'completed', type: 'inbound' },
      { status: 'failed' }, { status: 'completed' }, { status: 'in-progress', type: 'web' },
    ]);
    await insertCall(t, other.id, { status: 'completed' });
    await expectTotals(u);

    // The engine's path: status transitions one by one, and one multi-row update (crash recovery).
    await db().update(calls).set({ status: 'ringing' }).where(eq(calls.id, ids[0]));
    await db().update(calls).set({ status: 'in-progress' }).where(eq(calls.id, ids[0]));
    await db().update(calls).set({ status: 'completed', transcript: 'AI: Bye' }).where(eq(calls.id, ids[0]));
    await db().update(calls).set({ status: 'ended' }).where(inArray(calls.id, [ids[1], ids[5]]));
    // Updates that leave status and type alone do not move the counters.
    await db().update(calls).set({ transcript: 'x', duration: 12 }).where(eq(calls.userId, u.id));
    await db().update(calls).set({ type: 'inbound' }).where(eq(calls.id, ids[3]));
    await expectTotals(u);
    await expectCountersExact();

    expect((await u.delete(`/api/user/calls/${ids[4]}`)).status).toBe(200);
    await db().delete(calls).where(eq(calls.id, ids[2]));
    await expectTotals(u);
    await expectCountersExact();

    // A filter the counters do not cover counts the rows; both agree.
    const assistant = await insertAssistant(t, u.id);
    await insertCall(t, u.id, { status: 'completed', assistantId: assistant.id });
    const byAssistant = await u.get(`/api/user/calls?assistant_id=${assistant.id}&status=completed`);
    expect(byAssistant.body.total).toBe(1);
    await expectTotals(u);
  });

  it('survive deleting an assistant (calls keep their name) and deleting a user (cascade)', async () => {
    const u = await t.createUser();
    const assistant = await insertAssistant(t, u.id);
    await insertCalls(t, u.id, [{ assistantId: assistant.id }, { assistantId: assistant.id, status: 'busy' }]);
    await t.service.ctx.database.pool.query('DELETE FROM assistants WHERE id = $1', [assistant.id]);
    await expectTotals(u);
    await db().delete(users).where(eq(users.id, u.id));
    expect(await db().select().from(callCounts).where(eq(callCounts.userId, u.id))).toEqual([]);
    await expectCountersExact();
  });

  it('stay exact under concurrent inserts and transitions of one user', async () => {
    const u = await t.createUser();
    const ids = await Promise.all(Array.from({ length: 40 }, () => insertCall(t, u.id, { status: 'initiated' }).then((r) => r.id)));
    const path = ['ringing', 'in-progress', 'completed'];
    await Promise.all(ids.map(async (id, i) => {
      for (const status of i % 4 === 0 ? ['no-answer'] : path) await db().update(calls).set({ status }).where(eq(calls.id, id));
    }));
    await expectTotals(u);
    await expectCountersExact();
    const res = await u.get('/api/user/calls?status=completed&per_page=100');
    expect(res.body.total).toBe(30);
    expect(res.body.data).toHaveLength(30);
  });
});

describe('folding the counter shards (migration 0008, every minute in the background)', () => {
  const pool = () => t.service.ctx.database.pool;
  const rowsOf = (userId: number) => db().select().from(callCounts).where(eq(callCounts.userId, userId));

  it('moves every shard into shard 0, drops the zeros, and changes no total', async () => {
    const u = await t.createUser();
    // 40 calls: ids run through every shard (id % 16); some pass through transient statuses.
    const ids = await insertCalls(t, u.id, Array.from({ length: 40 }, (_, i) => ({
      status: i % 5 === 0 ? 'failed' : 'initiated',
      type: i % 3 === 0 ? 'inbound' : 'outbound',
    })));
    for (const id of ids.slice(0, 30)) await db().update(calls).set({ status: 'completed' }).where(eq(calls.id, id));
    expect(new Set((await rowsOf(u.id)).map((r) => r.shard)).size).toBe(16);

    expect(await foldCallCounts(pool())).toBeGreaterThan(0);
    const folded = await rowsOf(u.id);
    expect(folded.every((r) => r.shard === 0 && r.n !== 0)).toBe(true);
    // One row per (status, type) that still has calls.
    expect(folded.map((r) => `${r.status}|${r.type}`).sort()).toEqual(
      [...new Set((await db().select().from(calls).where(eq(calls.userId, u.id))).map((c) => `${c.status}|${c.type}`))].sort(),
    );
    await expectTotals(u);
    await expectCountersExact();

    // A call counted in a shard that is gone moves on: its shard comes back, negative.
    const movedOn = ids.find((id) => id % 16 !== 0 && ids.indexOf(id) < 30)!;
    await db().update(calls).set({ status: 'ended' }).where(eq(calls.id, movedOn));
    expect((await rowsOf(u.id)).some((r) => r.shard === movedOn % 16 && r.status === 'completed' && r.n === -1)).toBe(true);
    await expectTotals(u);
    await expectCountersExact();
    await db().delete(calls).where(eq(calls.id, ids[35]));
    await foldCallCounts(pool());
    expect((await rowsOf(u.id)).every((r) => r.shard === 0 && r.n !== 0)).toBe(true);
    await expectTotals(u);
    await expectCountersExact();
  });

  it('keeps the counters exact while calls change under it', async () => {
    const u = await t.createUser();
    const ids = await insertCalls(t, u.id, Array.from({ length: 48 }, () => ({ status: 'initiated' })));
    let folds = 0;
    let writing = true;
    const folder = (async () => {
      while (writing) {
        await foldCallCounts(pool());
        folds++;
      }
    })();
    const path = ['ringing', 'in-progress', 'completed'];
    await Promise.all(ids.map(async (id, i) => {
      for (const status of i % 4 === 0 ? ['no-answer'] : path) await db().update(calls).set({ status }).where(eq(calls.id, id));
      if (i % 6 === 0) await db().delete(calls).where(eq(calls.id, id));
    }));
    writing = false;
    await folder;
    expect(folds).toBeGreaterThan(0);
    await expectTotals(u);
    await expectCountersExact();
    await foldCallCounts(pool());
    await expectTotals(u);
    await expectCountersExact();
  });

  it('gives way to a writer holding a counter row instead of making it wait', async () => {
    const u = await t.createUser();
    const ids = await insertCalls(t, u.id, Array.from({ length: 20 }, () => ({ status: 'initiated' })));
    const zero = ids.find((id) => id % 16 === 0)!;
    // A writer in flight: its transaction holds the shard-0 'initiated' and 'ringing' rows.
    const writer = await pool().connect();
    try {
      await writer.query('BEGIN');
      await writer.query("UPDATE calls SET status = 'ringing' WHERE id = $1", [zero]);
      const started = Date.now();
      expect(await foldCallCounts(pool())).toBeNull();
      expect(Date.now() - started).toBeLessThan(900);
      await writer.query('COMMIT');
    } finally {
      writer.release();
    }
    expect(await foldCallCounts(pool())).toBeGreaterThan(0);
    await expectTotals(u);
    await expectCountersExact();
  });
});
