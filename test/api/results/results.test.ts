/**
 * GET /api/user/results on a small set of calls whose answers are worked out by hand: outcomes,
 * answer rate, average duration, cost, turn latency percentiles, days in a time zone, filters,
 * refused input and another user's calls.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTurns } from '../../../src/db/schema.js';
import { rowsOf } from '../../../src/db/pool.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { insertCall } from '../calls/support.js';
import { quantile } from '../../../src/api/results/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let sales: number;
let support: number;
let spring: number;

async function insertAssistant(userId: number, name: string): Promise<number> {
  const res = await t.service.ctx.database.db.execute(sql`
    insert into assistants (user_id, name, type, voice_id, language, language_id, llm_model_id)
    values (${userId}, ${name}, 'outbound', (select min(id) from voices), 'English', (select min(id) from languages), (select min(id) from llm_models))
    returning id`);
  return rowsOf<{ id: number }>(res)[0].id;
}

async function insertCampaign(userId: number, assistantId: number, name: string): Promise<number> {
  const res = await t.service.ctx.database.db.execute(sql`
    insert into campaigns (user_id, assistant_id, name, timezone) values (${userId}, ${assistantId}, ${name}, 'UTC') returning id`);
  return rowsOf<{ id: number }>(res)[0].id;
}

/** Reply turns with these first-audio times (and a greeting and an unmeasured reply, which do not count). */
async function insertTurns(callId: number, firstAudio: number[]) {
  await t.service.ctx.database.db.insert(callTurns).values([
    { callId, position: 0, kind: 'greeting', startedAt: '2026-11-01 10:00:00+00', firstAudioMs: 50 },
    ...firstAudio.map((ms, i) => ({ callId, position: i + 1, kind: 'reply', startedAt: '2026-11-01 10:00:05+00', firstAudioMs: ms })),
    { callId, position: firstAudio.length + 1, kind: 'reply', startedAt: '2026-11-01 10:01:00+00', firstAudioMs: null },
  ]);
}

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  sales = await insertAssistant(alice.id, 'Sales');
  support = await insertAssistant(alice.id, 'Support');
  spring = await insertCampaign(alice.id, sales, 'Spring');
  const s = { assistantId: sales, assistantName: 'Sales' };
  const u = { assistantId: support, assistantName: 'Support' };
  const c = { campaignId: spring, campaignName: 'Spring' };
  const answered = '2026-11-01 00:00:00+00';
  // Berlin is UTC+1 in November: 23:30 UTC is the next day there.
  const c1 = await insertCall(t, alice.id, { ...s, ...c, status: 'completed', answeredAt: answered, answeredBy: 'human', duration: 60, totalCost: '0.1', createdAt: '2026-11-01 10:00:00+00' });
  const c2 = await insertCall(t, alice.id, { ...s, ...c, status: 'ended_by_customer', answeredAt: answered, duration: 120, totalCost: '0.2', createdAt: '2026-11-01 23:30:00+00' });
  await insertCall(t, alice.id, { ...s, status: 'no-answer', totalCost: '0.01', createdAt: '2026-11-02 12:00:00+00' });
  await insertCall(t, alice.id, { ...u, status: 'busy', createdAt: '2026-11-03 08:00:00+00' });
  const c5 = await insertCall(t, alice.id, { ...u, status: 'completed', answeredAt: answered, answeredBy: 'machine', duration: 30, totalCost: '0.05', createdAt: '2026-11-03 09:00:00+00' });
  await insertCall(t, alice.id, { ...u, status: 'in-progress', answeredAt: answered, createdAt: '2026-11-03 10:00:00+00' });
  await insertCall(t, alice.id, { ...s, ...c, status: 'failed', createdAt: '2026-10-31 23:30:00+00' });
  await insertCall(t, alice.id, { ...s, status: 'completed', answeredAt: answered, duration: 600, totalCost: '1', createdAt: '2026-11-03 23:30:00+00' });
  await insertTurns(c1.id, [100, 200, 300, 400]);
  await insertTurns(c2.id, [500]);
  await insertTurns(c5.id, [1000]);
  // Bob's calls never count for Alice.
  const bobs = await insertCall(t, bob.id, { status: 'completed', answeredAt: answered, duration: 999, totalCost: '9', createdAt: '2026-11-02 12:00:00+00' });
  await insertTurns(bobs.id, [5000]);
});
afterAll(() => t.close());

const zeros = { answered: 0, voicemail: 0, 'no-answer': 0, busy: 0, failed: 0, 'not-connected': 0, live: 0 };
const BERLIN = '/api/user/results?date_from=2026-11-01&date_to=2026-11-03&timezone=Europe/Berlin';

describe('GET /api/user/results', () => {
  it('sums up the period in the time zone: outcomes per day, answer rate, average duration, cost, latency percentiles', async () => {
    const res = await alice.get(BERLIN);
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ date_from: '2026-11-01', date_to: '2026-11-03', timezone: 'Europe/Berlin', currency: 'USD' });
    expect(b.outcomes).toEqual(['answered', 'voicemail', 'no-answer', 'busy', 'failed', 'not-connected', 'live']);
    // 7 calls (the 23:30 UTC one of Oct 31 is Nov 1 in Berlin; the 23:30 UTC one of Nov 3 is Nov 4); 6 finished, 2 answered by a person.
    expect(b.totals).toEqual({
      calls: 7, answered: 2, voicemail: 1, finished: 6, answer_rate: 0.3333, average_duration: 90, cost: 0.36,
      latency: { turns: 6, p50_ms: 350, p95_ms: 875 },
    });
    expect(b.days).toEqual([
      { day: '2026-11-01', calls: 2, outcomes: { ...zeros, answered: 1, failed: 1 }, cost: 0.1 },
      { day: '2026-11-02', calls: 2, outcomes: { ...zeros, answered: 1, 'no-answer': 1 }, cost: 0.21 },
      { day: '2026-11-03', calls: 3, outcomes: { ...zeros, busy: 1, voicemail: 1, live: 1 }, cost: 0.05 },
    ]);
    expect(b.assistants).toEqual([
      { id: sales, name: 'Sales', calls: 4, answered: 2, answer_rate: 0.5, average_duration: 90, cost: 0.31, latency: { turns: 5, p50_ms: 300, p95_ms: 480 } },
      { id: support, name: 'Support', calls: 3, answered: 0, answer_rate: 0, average_duration: null, cost: 0.05, latency: { turns: 1, p50_ms: 1000, p95_ms: 1000 } },
    ]);
    expect(b.campaigns).toEqual([
      { id: null, name: 'Outside campaigns', calls: 4, answered: 0, answer_rate: 0, average_duration: null, cost: 0.06, latency: { turns: 1, p50_ms: 1000, p95_ms: 1000 } },
      { id: spring, name: 'Spring', calls: 3, answered: 2, answer_rate: 0.6667, average_duration: 90, cost: 0.3, latency: { turns: 5, p50_ms: 300, p95_ms: 480 } },
    ]);
  });

  it('counts the same dates in UTC by default', async () => {
    const b = (await alice.get('/api/user/results?date_from=2026-11-01&date_to=2026-11-03')).body;
    expect(b.timezone).toBe('UTC');
    expect(b.days.map((d: { calls: number }) => d.calls)).toEqual([2, 1, 4]);
    expect(b.days[0].outcomes).toEqual({ ...zeros, answered: 2 });
    expect(b.totals).toMatchObject({ calls: 7, answered: 3, finished: 6, average_duration: 260, cost: 1.36 });
  });

  it('filters by assistant and by campaign', async () => {
    const bySupport = (await alice.get(`${BERLIN}&assistant_id=${support}`)).body;
    expect(bySupport.totals).toMatchObject({ calls: 3, answered: 0, voicemail: 1, finished: 2, answer_rate: 0, cost: 0.05 });
    expect(bySupport.assistants.map((a: { name: string }) => a.name)).toEqual(['Support']);
    const bySpring = (await alice.get(`${BERLIN}&campaign_id=${spring}`)).body;
    expect(bySpring.totals).toMatchObject({ calls: 3, answered: 2, answer_rate: 0.6667, latency: { turns: 5, p50_ms: 300, p95_ms: 480 } });
    expect(bySpring.campaigns.map((x: { name: string }) => x.name)).toEqual(['Spring']);
  });

  it('answers every day of an empty period with zeros, and the last 30 days by default', async () => {
    const empty = (await alice.get('/api/user/results?date_from=2025-01-01&date_to=2025-01-10')).body;
    expect(empty.days).toHaveLength(10);
    expect(empty.totals).toEqual({ calls: 0, answered: 0, voicemail: 0, finished: 0, answer_rate: null, average_duration: null, cost: 0, latency: { turns: 0, p50_ms: null, p95_ms: null } });
    expect(empty.assistants).toEqual([]);
    const byDefault = (await alice.get('/api/user/results')).body;
    const today = new Date().toISOString().slice(0, 10);
    expect(byDefault.date_to).toBe(today);
    expect(byDefault.days).toHaveLength(30);
    expect(byDefault.days.at(-1).day).toBe(today);
  });

  it('never shows another user\'s calls', async () => {
    const b = (await bob.get(`/api/user/results?date_from=2026-11-01&date_to=2026-11-03&assistant_id=${sales}`)).body;
    expect(b.totals.calls).toBe(0);
    const own = (await bob.get('/api/user/results?date_from=2026-11-01&date_to=2026-11-03')).body;
    expect(own.totals).toMatchObject({ calls: 1, answered: 1, cost: 9, latency: { turns: 1, p50_ms: 5000, p95_ms: 5000 } });
    expect(own.assistants).toEqual([expect.objectContaining({ id: null, name: 'Deleted assistants', calls: 1 })]);
  });

  it('refuses a bad period, zone or id with 422 and the field', async () => {
    const cases: [string, string][] = [
      ['timezone=Mars/Olympus', 'timezone'],
      ['date_from=2026-02-30', 'date_from'],
      ['date_from=2026-11-05&date_to=2026-11-01', 'date_to'],
      ['date_from=2025-01-01&date_to=2026-01-02', 'date_from'],
      ['assistant_id=abc', 'assistant_id'],
      ['campaign_id=0', 'campaign_id'],
    ];
    for (const [query, field] of cases) {
      const res = await alice.get(`/api/user/results?${query}`);
      expect(res.status, query).toBe(422);
      expect(Object.keys(res.body.errors), query).toEqual([field]);
    }
    // A 366-day period (a leap year) is fine.
    expect((await alice.get('/api/user/results?date_from=2024-01-01&date_to=2024-12-31')).status).toBe(200);
  });

  it('works out percentiles from a histogram as PostgreSQL\'s percentile_cont does, repeated values included', async () => {
    const values = [120, 120, 120, 480, 480, 510, 900, 900, 1500, 2200, 2200, 2200, 2200, 35];
    const counts = new Map<number, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    const histogram = [...counts.entries()].sort((a, b) => a[0] - b[0]);
    for (const p of [0, 0.05, 0.5, 0.9, 0.95, 1]) {
      const res = await t.service.ctx.database.db.execute(
        sql`select percentile_cont(${p}::float8) within group (order by v) as q from unnest(${`{${values.join(',')}}`}::int[]) v`,
      );
      expect(quantile(histogram, values.length, p), `p=${p}`).toBeCloseTo(Number(rowsOf<{ q: number }>(res)[0].q), 9);
    }
    expect(quantile([], 0, 0.5)).toBeNull();
  });

  it('needs a token', async () => {
    expect((await t.anonymous.get('/api/user/results')).status).toBe(401);
  });
});
