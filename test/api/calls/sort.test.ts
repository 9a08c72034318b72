/**
 * The calls list's `sort`: each order on page 1 and on a later page (the two statements the
 * list runs), ties by id in the same direction, combined with a filter, refused values, and
 * another user's calls never mixed in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCalls } from './support.js';

let t: TestService;
let u: TestUser;
let other: TestUser;
/** [id, created minute, duration, cost] of u's calls. */
let rows: { id: number; at: number; duration: number; cost: number; status: string }[];

beforeAll(async () => {
  t = await startTestService();
  u = await t.createUser();
  other = await t.createUser();
  // 12 calls: durations and costs out of creation order, with ties on both.
  const durations = [30, 5, 90, 5, 60, 0, 120, 30, 45, 5, 200, 10];
  const costs = [0.5, 0.1, 1.25, 0.1, 0.9, 0, 2, 0.5, 0.75, 0.1, 3.5, 0.2];
  const specs = durations.map((duration, i) => ({
    at: i,
    duration,
    cost: costs[i],
    status: i % 3 === 0 ? 'no-answer' : 'completed',
  }));
  const ids = await insertCalls(t, u.id, specs.map((s) => ({
    createdAt: new Date(Date.UTC(2026, 4, 1, 9, s.at)).toISOString(),
    duration: s.duration,
    totalCost: String(s.cost),
    status: s.status,
  })));
  rows = specs.map((s, i) => ({ id: ids[i], ...s }));
  // The other user's calls are longer and dearer than any of u's: a leak would lead every order.
  await insertCalls(t, other.id, [{ duration: 9_999, totalCost: '99', createdAt: '2026-05-01 12:00:00+00' }]);
});
afterAll(() => t.close());

const cmp = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);
function expected(key: 'at' | 'duration' | 'cost', desc: boolean, list = rows): number[] {
  return [...list]
    .sort((a, b) => (desc ? -1 : 1) * (cmp(a[key], b[key]) || cmp(a.id, b.id)))
    .map((r) => r.id);
}

async function listed(query: string): Promise<number[]> {
  const res = await u.get(`/api/user/calls?${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((c: { id: number }) => c.id);
}

describe('GET /api/user/calls?sort=', () => {
  it.each([
    ['-created_at', 'at', true],
    ['created_at', 'at', false],
    ['-duration', 'duration', true],
    ['duration', 'duration', false],
    ['-total_cost', 'cost', true],
    ['total_cost', 'cost', false],
  ] as const)('%s orders page 1 and a later page, ties by id in the same direction', async (sort, key, desc) => {
    const want = expected(key, desc);
    expect(await listed(`sort=${sort}&per_page=5`)).toEqual(want.slice(0, 5));
    expect(await listed(`sort=${sort}&per_page=5&page=2`)).toEqual(want.slice(5, 10));
    expect(await listed(`sort=${sort}&per_page=5&page=3`)).toEqual(want.slice(10));
  });

  it('without sort (or with an empty one) lists newest first', async () => {
    expect(await listed('')).toEqual(expected('at', true));
    expect(await listed('sort=')).toEqual(expected('at', true));
  });

  it('sorts within a filter and keeps the total and the sort in the page links', async () => {
    const res = await u.get('/api/user/calls?status=completed&sort=-duration&per_page=3');
    expect(res.body.total).toBe(rows.filter((r) => r.status === 'completed').length);
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual(expected('duration', true, rows.filter((r) => r.status === 'completed')).slice(0, 3));
    expect(res.body.next_page_url).toContain('sort=-duration');
  });

  it('refuses an unknown order with 422 on the sort field', async () => {
    for (const bad of ['duration desc', 'id', '+duration', 'DURATION']) {
      const res = await u.get(`/api/user/calls?sort=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(422);
      expect(res.body.errors.sort).toEqual(['The selected sort is invalid.']);
    }
  });

  it("never lists another user's calls in any order", async () => {
    for (const sort of ['-duration', '-total_cost', 'created_at']) {
      const res = await other.get(`/api/user/calls?sort=${sort}`);
      expect(res.body.total).toBe(1);
      expect(await listed(`sort=${sort}&per_page=100`)).toHaveLength(rows.length);
    }
  });
});
