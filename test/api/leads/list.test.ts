import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { leads, secondaryContacts } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

/** Database round trips made while serving one request (the token is resolved beforehand). */
async function queriesOf(user: TestUser, url: string) {
  await user.get('/api/user/me'); // warm the token cache so only the list's own queries count
  const spy = vi.spyOn(t.service.ctx.database.pool, 'query');
  try {
    const res = await user.get(url);
    return { res, count: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe('GET /api/user/leads', () => {
  it('answers a bare array of the caller\'s leads by id, each with campaign and secondary contacts; never another user\'s', async () => {
    const a = await insertAssistant(t, alice.id);
    const c1 = await insertCampaign(t, alice.id, a.id, { name: 'First' });
    const c2 = await insertCampaign(t, alice.id, a.id, { name: 'Second' });
    const b = await insertAssistant(t, bob.id);
    const bc = await insertCampaign(t, bob.id, b.id, { name: 'Bobs' });
    const l1 = await insertLead(t, alice.id, c1.id, { variables: { customer_name: 'Ada' } }, [
      { phoneNumber: '+4930111111', variables: { k: 1 } },
      { phoneNumber: '+4930222222' },
    ]);
    await insertLead(t, bob.id, bc.id, { phoneNumber: '+4915199999999' }, [{ phoneNumber: '+4930333333' }]);
    const l2 = await insertLead(t, alice.id, c2.id, { phoneNumber: '+14155552671', status: 'completed' });

    const res = await alice.get('/api/user/leads');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((l: { id: number }) => l.id)).toEqual([l1.id, l2.id]);
    expect(res.body[0]).toMatchObject({
      id: l1.id,
      campaign_id: c1.id,
      phone_number: '+4915123456789',
      variables: { customer_name: 'Ada' },
      status: 'created',
      campaign: { id: c1.id, name: 'First' },
      secondary_contacts: [
        { phone_number: '+4930111111', variables: { k: 1 }, status: 'created' },
        { phone_number: '+4930222222', variables: {}, status: 'created' },
      ],
    });
    expect(Object.keys(res.body[0]).sort()).toEqual(
      ['campaign', 'campaign_id', 'created_at', 'id', 'phone_number', 'secondary_contacts', 'status', 'updated_at', 'variables'],
    );
    expect(res.body[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.body[1]).toMatchObject({ id: l2.id, status: 'completed', campaign: { id: c2.id, name: 'Second' }, secondary_contacts: [] });

    const bobs = (await bob.get('/api/user/leads')).body;
    expect(bobs).toHaveLength(1);
    expect(bobs[0]).toMatchObject({ campaign: { name: 'Bobs' }, secondary_contacts: [{ phone_number: '+4930333333' }] });
    const carol = await t.createUser();
    expect((await carol.get('/api/user/leads')).body).toEqual([]);
  });

  it('uses the same small number of queries for 1 lead and for 200 leads (no N+1)', async () => {
    const dave = await t.createUser({ name: 'Dave' });
    const a = await insertAssistant(t, dave.id);
    const campaign = await insertCampaign(t, dave.id, a.id);
    await insertLead(t, dave.id, campaign.id, {}, [{ phoneNumber: '+4930444444' }]);
    const small = await queriesOf(dave, '/api/user/leads');
    expect(small.res.body).toHaveLength(1);

    const { db } = t.service.ctx.database;
    const rows = await db
      .insert(leads)
      .values(Array.from({ length: 199 }, (_, i) => ({ userId: dave.id, campaignId: campaign.id, phoneNumber: `+4915${100000000 + i}` })))
      .returning({ id: leads.id });
    await db.insert(secondaryContacts).values(rows.flatMap((r) => [0, 1].map((p) => ({ leadId: r.id, position: p, phoneNumber: `+4930${5000000 + r.id * 2 + p}` }))));

    const large = await queriesOf(dave, '/api/user/leads');
    expect(large.res.body).toHaveLength(200);
    expect(large.res.body.every((l: { secondary_contacts: unknown[] }) => l.secondary_contacts.length >= 1)).toBe(true);
    expect(large.count).toBe(small.count);
    expect(large.count).toBe(2); // leads with their campaigns, then all secondary contacts
  });

  it('requires a token', async () => {
    expect((await t.anonymous.get('/api/user/leads')).status).toBe(401);
  });
});
