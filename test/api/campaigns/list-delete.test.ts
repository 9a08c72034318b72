import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls, campaigns, leads, secondaryContacts } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let aliceAssistant: number;
let bobAssistant: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  aliceAssistant = (await insertAssistant(t, alice.id)).id;
  bobAssistant = (await insertAssistant(t, bob.id)).id;
});
afterAll(() => t.close());

describe('GET /api/user/campaigns', () => {
  it('lists only the caller\'s campaigns, ascending by id, as a bare array', async () => {
    const a1 = await alice.post('/api/user/campaigns', { name: 'A1', assistant_id: aliceAssistant });
    const b1 = await bob.post('/api/user/campaigns', { name: 'B1', assistant_id: bobAssistant });
    const a2 = await alice.post('/api/user/campaigns', { name: 'A2', assistant_id: aliceAssistant, max_retries: 2 });
    const list = await alice.get('/api/user/campaigns');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(['A1', 'A2']);
    expect(list.body[0]).toEqual(a1.body.data);
    expect(list.body[1]).toEqual(a2.body.data);
    expect((await bob.get('/api/user/campaigns')).body).toEqual([b1.body.data]);
    const carol = await t.createUser();
    expect((await carol.get('/api/user/campaigns')).body).toEqual([]);
  });
});

describe('DELETE /api/user/campaign/{id}', () => {
  it('deletes the campaign with its leads and secondary contacts; its calls stay with campaign_name', async () => {
    const { db } = t.service.ctx.database;
    const c = await insertCampaign(t, alice.id, aliceAssistant, { name: 'Doomed', status: 'in-progress' });
    const other = await insertCampaign(t, alice.id, aliceAssistant, { name: 'Kept' });
    const lead = await insertLead(t, alice.id, c.id, {}, [{ phoneNumber: '+4915111111111' }]);
    const kept = await insertLead(t, alice.id, other.id);
    const [call] = await db
      .insert(calls)
      .values({ userId: alice.id, assistantId: aliceAssistant, assistantName: 'Test assistant', campaignId: c.id, campaignName: 'Doomed', leadId: lead.id, type: 'outbound', status: 'completed', clientPhoneNumber: lead.phoneNumber })
      .returning();

    const res = await alice.delete(`/api/user/campaign/${c.id}`);
    expect(res).toMatchObject({ status: 200, body: { message: 'Campaign deleted successfully' } });
    expect(await db.select().from(campaigns).where(eq(campaigns.id, c.id))).toEqual([]);
    expect(await db.select().from(leads).where(eq(leads.campaignId, c.id))).toEqual([]);
    expect(await db.select().from(secondaryContacts).where(eq(secondaryContacts.leadId, lead.id))).toEqual([]);
    const [after] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(after).toMatchObject({ campaignName: 'Doomed', campaignId: null, leadId: null });
    expect((await db.select().from(leads).where(eq(leads.id, kept.id))).length).toBe(1);
    expect((await alice.get('/api/user/campaigns')).body.some((x: { id: number }) => x.id === c.id)).toBe(false);

    expect(await alice.delete(`/api/user/campaign/${c.id}`)).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
  });

  it('answers another user\'s campaign exactly like a missing one, and leaves it alone', async () => {
    const c = await insertCampaign(t, alice.id, aliceAssistant);
    const lead = await insertLead(t, alice.id, c.id);
    const theirs = await bob.delete(`/api/user/campaign/${c.id}`);
    const missing = await bob.delete('/api/user/campaign/999999');
    expect(theirs).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    expect(missing.body).toEqual(theirs.body);
    expect(theirs.body).toEqual({ message: 'Campaign not found' });
    const { db } = t.service.ctx.database;
    expect((await db.select().from(leads).where(eq(leads.id, lead.id))).length).toBe(1);
  });

  it('answers 404 for ids that are not positive integers', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '9999999999', '99999999999']) {
      expect(await alice.delete(`/api/user/campaign/${id}`)).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    }
  });
});
