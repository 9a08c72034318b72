import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let campaignId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const a = await insertAssistant(t, alice.id);
  campaignId = (await insertCampaign(t, alice.id, a.id, { status: 'in-progress', name: 'Live' })).id;
  for (const [i, status] of ['created', 'created', 'completed', 'reached-max-retries', 'completed', 'completed'].entries()) {
    await insertLead(t, alice.id, campaignId, { status, phoneNumber: `+491512345670${i}` });
  }
  const { db } = t.service.ctx.database;
  // Two live calls, three finished this minute, one finished 3 minutes ago, one an hour ago.
  const call = (status: string, endedAgo: string | null) => sql`
    insert into calls (user_id, campaign_id, assistant_name, type, status, client_phone_number, ended_at, created_at)
    values (${alice.id}, ${campaignId}, 'A', 'outbound', ${status}, '+4915100000000',
            ${endedAgo === null ? null : sql`now() - ${endedAgo}::interval`},
            now() - ${endedAgo ?? '0 seconds'}::interval - interval '30 seconds')`;
  for (const s of ['initiated', 'in-progress']) await db.execute(call(s, null));
  for (const s of ['completed', 'busy', 'ended_by_customer']) await db.execute(call(s, '0 seconds'));
  await db.execute(call('completed', '3 minutes'));
  await db.execute(call('completed', '60 minutes'));
});
afterAll(() => t.close());

describe('GET /api/user/campaign/{id}/progress', () => {
  it('counts leads by status, calls in flight and calls finished per minute', async () => {
    const res = await alice.get(`/api/user/campaign/${campaignId}/progress`);
    expect(res.status).toBe(200);
    const p = res.body.data;
    expect(p.campaign_id).toBe(campaignId);
    expect(p.status).toBe('in-progress');
    expect(p.leads).toEqual({ total: 6, created: 2, completed: 3, 'reached-max-retries': 1 });
    expect(p.calls_in_flight).toBe(2);
    expect(p.calls_finished_per_minute).toHaveLength(15);
    for (const m of p.calls_finished_per_minute) expect(m.minute).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00$/);
    const counts = p.calls_finished_per_minute.map((m: { count: number }) => m.count);
    // The current minute is last; the clock may have turned between insert and read.
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(counts.slice(-2).reduce((a: number, b: number) => a + b, 0)).toBe(3);
  });

  it("answers another user's campaign and unknown ids as not found", async () => {
    for (const [user, id] of [[bob, campaignId], [alice, 99999], [alice, 'x']] as const) {
      const res = await user.get(`/api/user/campaign/${id}/progress`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Campaign not found' });
    }
  });
});
