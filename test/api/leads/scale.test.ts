import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leads, secondaryContacts } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let campaignId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser();
  const a = await insertAssistant(t, alice.id);
  campaignId = (await insertCampaign(t, alice.id, a.id)).id;
});
afterAll(() => t.close());

const N = Number(process.env.LEADS_SCALE_N ?? 2000);

describe(`lead list and create at scale (${N} leads)`, () => {
  it('lists N leads with two secondary contacts each in one request, and creates leads quickly', async () => {
    const { db } = t.service.ctx.database;
    for (let start = 0; start < N; start += 1000) {
      const rows = await db
        .insert(leads)
        .values(Array.from({ length: Math.min(1000, N - start) }, (_, i) => ({ userId: alice.id, campaignId, phoneNumber: `+4915${100000000 + start + i}`, variables: { customer_name: `Customer ${start + i}`, email: `c${start + i}@example.test` } })))
        .returning({ id: leads.id });
      await db.insert(secondaryContacts).values(rows.flatMap((r) => [0, 1].map((p) => ({ leadId: r.id, position: p, phoneNumber: `+4930${1000000 + r.id * 2 + p}` }))));
    }
    await alice.get('/api/user/me');
    const timings: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const res = await alice.get('/api/user/leads');
      timings.push(performance.now() - t0);
      expect(res.body).toHaveLength(N);
      expect(res.body[N - 1].secondary_contacts).toHaveLength(2);
    }
    timings.sort((a, b) => a - b);

    const createTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const res = await alice.post('/api/user/lead', { phone_number: `+4917${100000000 + i}`, campaign_id: campaignId, variables: { i }, secondary_contacts: [{ phone_number: `+4930${2000000 + i}` }] });
      createTimes.push(performance.now() - t0);
      expect(res.status).toBe(200);
    }
    createTimes.sort((a, b) => a - b);
    const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))].toFixed(1);
    console.log(`[leads scale] list of ${N} leads: median ${p(timings, 0.5)} ms, max ${p(timings, 1)} ms; create (dup check on ${N} leads): p50 ${p(createTimes, 0.5)} ms, p95 ${p(createTimes, 0.95)} ms`);
    expect(Number(p(timings, 0.5))).toBeLessThan(10_000);
  });
});
