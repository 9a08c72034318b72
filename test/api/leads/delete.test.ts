import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls, leads, secondaryContacts } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;
let campaignId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  assistantId = (await insertAssistant(t, alice.id)).id;
  campaignId = (await insertCampaign(t, alice.id, assistantId)).id;
});
afterAll(() => t.close());

const db = () => t.service.ctx.database.db;
const exists = async (id: number) => (await db().select().from(leads).where(eq(leads.id, id))).length === 1;

async function attachCall(leadId: number, status: string) {
  const [call] = await db()
    .insert(calls)
    .values({ userId: alice.id, assistantId, assistantName: 'Test assistant', campaignId, leadId, type: 'outbound', status, clientPhoneNumber: '+4915123456789' })
    .returning();
  await db().update(leads).set({ currentCallId: call.id }).where(eq(leads.id, leadId));
  return call.id;
}

describe('DELETE /api/user/leads/{id}', () => {
  it('deletes the lead and its secondary contacts', async () => {
    const lead = await insertLead(t, alice.id, campaignId, {}, [{ phoneNumber: '+4930111111' }, { phoneNumber: '+4930222222' }]);
    const res = await alice.delete(`/api/user/leads/${lead.id}`);
    expect(res).toMatchObject({ status: 200, body: { message: 'Lead deleted successfully' } });
    expect(res.body).toEqual({ message: 'Lead deleted successfully' });
    expect(await exists(lead.id)).toBe(false);
    expect(await db().select().from(secondaryContacts).where(eq(secondaryContacts.leadId, lead.id))).toEqual([]);
    expect((await alice.get('/api/user/leads')).body.some((l: { id: number }) => l.id === lead.id)).toBe(false);
    expect(await alice.delete(`/api/user/leads/${lead.id}`)).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
  });

  it('answers another user\'s lead exactly like a missing one and keeps it', async () => {
    const lead = await insertLead(t, alice.id, campaignId);
    const theirs = await bob.delete(`/api/user/leads/${lead.id}`);
    const missing = await bob.delete('/api/user/leads/999999');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ message: 'Lead not found' });
    expect(missing.body).toEqual(theirs.body);
    expect(await exists(lead.id)).toBe(true);
    for (const id of ['abc', '0', '-5', '1e3', '9999999999']) expect(await alice.delete(`/api/user/leads/${id}`)).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
  });

  it('refuses with 409 while a call to the lead is in progress, and deletes once it has ended (the call stays)', async () => {
    for (const live of ['initiated', 'ringing', 'in-progress']) {
      const lead = await insertLead(t, alice.id, campaignId);
      const callId = await attachCall(lead.id, live);
      const res = await alice.delete(`/api/user/leads/${lead.id}`);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: 'The lead cannot be deleted while a call to it is in progress.' });
      expect(await exists(lead.id)).toBe(true);
      await db().update(calls).set({ status: 'completed' }).where(eq(calls.id, callId));
      expect((await alice.delete(`/api/user/leads/${lead.id}`)).status).toBe(200);
      const [call] = await db().select().from(calls).where(eq(calls.id, callId));
      expect(call.leadId).toBeNull();
    }
  });

  it('requires a token', async () => {
    expect((await t.anonymous.delete('/api/user/leads/1')).status).toBe(401);
  });
});
