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
let otherCampaignId: number;
let bobCampaignId: number;

const STATUS_MSG = 'The status is assigned automatically and cannot be set manually.';

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  assistantId = (await insertAssistant(t, alice.id)).id;
  campaignId = (await insertCampaign(t, alice.id, assistantId, { name: 'Main' })).id;
  otherCampaignId = (await insertCampaign(t, alice.id, assistantId, { name: 'Other' })).id;
  const b = await insertAssistant(t, bob.id);
  bobCampaignId = (await insertCampaign(t, bob.id, b.id)).id;
});
afterAll(() => t.close());

const db = () => t.service.ctx.database.db;
const read = async (id: number) => (await db().select().from(leads).where(eq(leads.id, id)))[0];
const newLead = (overrides: Partial<typeof leads.$inferInsert> = {}) =>
  insertLead(t, alice.id, campaignId, { variables: { a: 1, b: 2 }, ...overrides }, [{ phoneNumber: '+4930111111' }]);

/** Puts a call with `status` on the lead as its current call. */
async function attachCall(leadId: number, status: string) {
  const [call] = await db()
    .insert(calls)
    .values({ userId: alice.id, assistantId, assistantName: 'Test assistant', campaignId, leadId, type: 'outbound', status, clientPhoneNumber: '+4915123456789' })
    .returning();
  await db().update(leads).set({ currentCallId: call.id }).where(eq(leads.id, leadId));
  return call.id;
}

for (const base of ['/api/user/leads', '/api/leads']) {
  describe(`PUT ${base}/{id}`, () => {
    const put = (id: number | string, body: unknown, user: TestUser = alice) => user.put(`${base}/${id}`, body);

    it('updates all four fields and answers only the message', async () => {
      const lead = await newLead();
      const res = await put(lead.id, { campaign_id: otherCampaignId, phone_number: '0151 23456780', status: 'completed', variables: { c: 3 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Lead updated successfully' });
      expect(await read(lead.id)).toMatchObject({ campaignId: otherCampaignId, phoneNumber: '+4915123456780', status: 'completed', variables: { a: 1, b: 2, c: 3 } });
    });

    it('merges variables: {a:1,b:2} + {b:3,c:4} reads back {a:1,b:3,c:4}', async () => {
      const lead = await newLead();
      expect((await put(lead.id, { variables: { b: 3, c: 4 } })).status).toBe(200);
      const listed = (await alice.get('/api/user/leads')).body.find((l: { id: number }) => l.id === lead.id);
      expect(listed.variables).toEqual({ a: 1, b: 3, c: 4 });
      // Empty object and null change nothing; nested values are replaced per top-level key.
      expect((await put(lead.id, { variables: {} })).status).toBe(200);
      expect((await put(lead.id, { variables: null })).status).toBe(200);
      expect((await put(lead.id, { variables: { c: { deep: true } } })).status).toBe(200);
      expect((await read(lead.id)).variables).toEqual({ a: 1, b: 3, c: { deep: true } });
    });

    it('accepts an empty body as a no-op', async () => {
      const lead = await newLead();
      expect(await put(lead.id, {})).toMatchObject({ status: 200, body: { message: 'Lead updated successfully' } });
      expect(await read(lead.id)).toEqual(lead);
    });

    it('refuses fields outside the four, listed in the order sent, applying nothing', async () => {
      const lead = await newLead();
      const res = await put(lead.id, { zeta: 1, phone_number: '+4915199999999', alpha: 2, variables: { z: 1 }, id: 9 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'Invalid fields: zeta, alpha, id' });
      expect(await read(lead.id)).toEqual(lead);
      expect((await put(lead.id, { secondary_contacts: [] })).body).toEqual({ message: 'Invalid fields: secondary_contacts' });
    });

    it('answers 404 Lead not found for unknown ids, another user\'s lead, and non-integer path ids', async () => {
      const lead = await newLead();
      const theirs = await put(lead.id, { status: 'completed' }, bob);
      expect(theirs).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
      expect(theirs.body).toEqual({ message: 'Lead not found' });
      expect((await put(999999, { status: 'completed' })).body).toEqual(theirs.body);
      for (const id of ['abc', '0', '-1', '9999999999', '99999999999']) expect(await put(id, {})).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
      expect((await read(lead.id)).status).toBe('created');
    });

    it('moves a lead only into the caller\'s campaigns (404 Campaign not found otherwise)', async () => {
      const lead = await newLead();
      expect((await put(lead.id, { campaign_id: String(otherCampaignId) })).status).toBe(200);
      expect((await read(lead.id)).campaignId).toBe(otherCampaignId);
      for (const id of [bobCampaignId, 999999, 0, -2]) {
        const res = await put(lead.id, { campaign_id: id, variables: { moved: true } });
        expect(res.status, String(id)).toBe(404);
        expect(res.body).toEqual({ message: 'Campaign not found' });
      }
      const after = await read(lead.id);
      expect(after.campaignId).toBe(otherCampaignId);
      expect(after.variables).not.toHaveProperty('moved');
    });

    it('refuses a campaign_id that is not an integer with 422 on campaign_id', async () => {
      const lead = await newLead();
      for (const bad of ['abc', 1.5, true, null, {}]) {
        const res = await put(lead.id, { campaign_id: bad });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'The given data was invalid.', errors: { campaign_id: ['The campaign id field must be an integer.'] } });
      }
    });

    it('normalises phone numbers and answers an invalid one 422 Invalid phone number', async () => {
      const lead = await newLead();
      for (const [input, e164] of [['+49 (151) 2345-6789', '+4915123456789'], ['+1 415 555 2671', '+14155552671'], ['0151 23456789', '+4915123456789']]) {
        expect((await put(lead.id, { phone_number: input })).status).toBe(200);
        expect((await read(lead.id)).phoneNumber).toBe(e164);
      }
      for (const bad of ['12345', 'abc', '', 4915123456789, null]) {
        const res = await put(lead.id, { phone_number: bad, status: 'completed' });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'Invalid phone number' });
      }
      expect(await read(lead.id)).toMatchObject({ phoneNumber: '+4915123456789', status: 'created' });
    });

    it('validates status and variables in the validation shape, applying nothing', async () => {
      const lead = await newLead();
      let res = await put(lead.id, { status: 'done', variables: [1], phone_number: '+4915199999999' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The given data was invalid.',
        errors: { status: ['The selected status is invalid.'], variables: ['The variables field must be an object.'] },
      });
      for (const bad of ['x', 3, true]) {
        res = await put(lead.id, { variables: bad });
        expect(res.body.errors).toEqual({ variables: ['The variables field must be an object.'] });
      }
      expect(await read(lead.id)).toEqual(lead);
    });

    it('sets each of the three statuses; created resets the attempts of the lead and its contacts', async () => {
      const lead = await newLead({ attempts: 3, nextAttemptAt: '2030-01-01 00:00:00+00', status: 'reached-max-retries' });
      await db().update(secondaryContacts).set({ attempts: 2, status: 'reached-max-retries' }).where(eq(secondaryContacts.leadId, lead.id));
      expect((await put(lead.id, { status: 'completed' })).status).toBe(200);
      expect(await read(lead.id)).toMatchObject({ status: 'completed', attempts: 3 });
      expect((await put(lead.id, { status: 'reached-max-retries' })).status).toBe(200);
      expect((await read(lead.id)).status).toBe('reached-max-retries');
      expect((await put(lead.id, { status: 'created' })).status).toBe(200);
      expect(await read(lead.id)).toMatchObject({ status: 'created', attempts: 0, nextAttemptAt: null });
      const [contact] = await db().select().from(secondaryContacts).where(eq(secondaryContacts.leadId, lead.id));
      expect(contact).toMatchObject({ attempts: 0, status: 'created' });
    });

    it('refuses any status change while a call to the lead is in progress', async () => {
      for (const live of ['initiated', 'ringing', 'in-progress']) {
        const lead = await newLead({ attempts: 1 });
        await attachCall(lead.id, live);
        for (const status of ['completed', 'reached-max-retries']) {
          const res = await put(lead.id, { status, variables: { x: 1 } });
          expect(res.status).toBe(422);
          expect(res.body).toEqual({ message: 'The given data was invalid.', errors: { status: [STATUS_MSG] } });
        }
        // Repeating the current status is no change; other fields still update.
        expect((await put(lead.id, { status: 'created', variables: { x: 2 } })).status).toBe(200);
        expect(await read(lead.id)).toMatchObject({ status: 'created', attempts: 1, variables: { a: 1, b: 2, x: 2 } });
      }
    });

    it('allows status changes once the lead\'s call has ended', async () => {
      const lead = await newLead();
      await attachCall(lead.id, 'no-answer');
      expect((await put(lead.id, { status: 'completed' })).status).toBe(200);
      expect((await read(lead.id)).status).toBe('completed');
    });
  });
}

describe('lead update and validation order', () => {
  it('checks invalid fields before anything else, also for another user\'s lead', async () => {
    const lead = await newLead();
    expect(await bob.put(`/api/user/leads/${lead.id}`, { foo: 1 })).toMatchObject({ status: 422, body: { message: 'Invalid fields: foo' } });
    expect(await bob.put('/api/user/leads/999999', { foo: 1 })).toMatchObject({ status: 422, body: { message: 'Invalid fields: foo' } });
  });

  it('requires a token on both paths', async () => {
    expect((await t.anonymous.put('/api/user/leads/1', {})).status).toBe(401);
    expect((await t.anonymous.put('/api/leads/1', {})).status).toBe(401);
  });
});
