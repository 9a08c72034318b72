import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign, insertLead } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let campaignId: number;
let bobCampaignId: number;

beforeAll(async () => {
  t = await startTestService(); // DEFAULT_PHONE_REGION DE
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  campaignId = (await insertCampaign(t, alice.id, (await insertAssistant(t, alice.id)).id, { name: 'Spring' })).id;
  bobCampaignId = (await insertCampaign(t, bob.id, (await insertAssistant(t, bob.id)).id)).id;
});
afterAll(() => t.close());

describe('GET /api/user/leads/{id}', () => {
  it('answers the lead as the list has it, with campaign and secondary contacts', async () => {
    const created = await alice.post('/api/user/lead', {
      campaign_id: campaignId,
      phone_number: '0151 11112222',
      variables: { name: 'Kim' },
      secondary_contacts: [{ phone_number: '+4915133334444' }],
    });
    expect(created.status).toBe(200);
    const res = await alice.get(`/api/user/leads/${created.body.data.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: created.body.data });
    const listed = (await alice.get('/api/user/leads')).body.find((l: { id: number }) => l.id === created.body.data.id);
    expect(listed).toEqual(created.body.data);
  });

  it("answers another user's lead and unknown ids as not found", async () => {
    const lead = await insertLead(t, alice.id, campaignId, { phoneNumber: '+4915199990000' });
    for (const [user, id] of [[bob, lead.id], [alice, 999999], [alice, 'abc']] as const) {
      const res = await user.get(`/api/user/leads/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Lead not found' });
    }
  });
});

describe('POST /api/user/leads/bulk', () => {
  it('creates the valid rows, normalised, and reports each invalid row by index with the single create\'s messages', async () => {
    const res = await alice.post('/api/user/leads/bulk', {
      campaign_id: campaignId,
      leads: [
        { phone_number: '0151 20000001', variables: { name: 'A' } },
        { phone_number: 'not a number' },
        { phone_number: '+49 151 20000002', secondary_contacts: [{ phone_number: '0151 20000003', variables: { who: 'office' } }] },
        { variables: 'nope' },
        { phone_number: '015120000001' }, // the first row's number again
        'not an object',
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('2 leads imported, 4 rows refused');
    expect(res.body.data.created.map((c: { row: number }) => c.row)).toEqual([0, 2]);
    expect(res.body.data.errors).toEqual([
      { row: 1, errors: { phone_number: ['The phone number field must be a valid phone number.'] } },
      { row: 3, errors: { phone_number: ['The phone number field is required.'], variables: ['The variables field must be an object.'] } },
      { row: 4, errors: { phone_number: ['The phone number has already been taken.'] } },
      { row: 5, errors: { phone_number: ['The phone number field is required.'] } },
    ]);
    const second = await alice.get(`/api/user/leads/${res.body.data.created[1].id}`);
    expect(second.body.data).toMatchObject({
      phone_number: '+4915120000002',
      campaign_id: campaignId,
      status: 'created',
      secondary_contacts: [{ phone_number: '+4915120000003', variables: { who: 'office' } }],
    });
  });

  it('refuses numbers the campaign already has unless allow_duplicate', async () => {
    await alice.post('/api/user/lead', { campaign_id: campaignId, phone_number: '+4915130000001' });
    const leads = [{ phone_number: '+4915130000001' }, { phone_number: '+4915130000002' }, { phone_number: '+4915130000002' }];
    const refused = await alice.post('/api/user/leads/bulk', { campaign_id: campaignId, leads });
    expect(refused.body.data.created.map((c: { row: number }) => c.row)).toEqual([1]);
    expect(refused.body.data.errors.map((e: { row: number }) => e.row)).toEqual([0, 2]);
    const allowed = await alice.post('/api/user/leads/bulk', { campaign_id: campaignId, leads, allow_duplicate: true });
    expect(allowed.body.data.created).toHaveLength(3);
    expect(allowed.body.data.errors).toEqual([]);
  });

  it('imports 1,000 rows in one request', async () => {
    const leads = Array.from({ length: 1000 }, (_, i) => ({ phone_number: `+4915140${String(i).padStart(6, '0')}`, variables: { i } }));
    const res = await alice.post('/api/user/leads/bulk', { campaign_id: campaignId, leads });
    expect(res.status).toBe(200);
    expect(res.body.data.created).toHaveLength(1000);
    const ids = res.body.data.created.map((c: { id: number }) => c.id);
    const last = await alice.get(`/api/user/leads/${ids[999]}`);
    expect(last.body.data.variables).toEqual({ i: 999 });
  });

  it('validates the envelope: campaign, at least one and at most 1,000 rows', async () => {
    const res = await alice.post('/api/user/leads/bulk', { campaign_id: 'x', leads: [] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      campaign_id: ['The campaign id field must be an integer.'],
      leads: ['The leads field must have at least 1 items.'],
    });
    const tooMany = await alice.post('/api/user/leads/bulk', { campaign_id: campaignId, leads: Array(1001).fill({}) });
    expect(tooMany.body.errors).toEqual({ leads: ['The leads field must not have more than 1000 items.'] });
  });

  it("never imports into another user's campaign", async () => {
    for (const id of [bobCampaignId, 999999]) {
      const res = await alice.post('/api/user/leads/bulk', { campaign_id: id, leads: [{ phone_number: '+4915150000001' }] });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Campaign not found' });
    }
    expect((await bob.get('/api/user/leads')).body).toEqual([]);
  });
});

describe('GET /api/user/campaign/{id}/leads', () => {
  it("pages through one campaign's leads by id", async () => {
    const other = (await insertCampaign(t, alice.id, (await insertAssistant(t, alice.id)).id, { name: 'Paged' })).id;
    const leads = Array.from({ length: 23 }, (_, i) => ({ phone_number: `+4915160${String(i).padStart(6, '0')}` }));
    await alice.post('/api/user/leads/bulk', { campaign_id: other, leads });
    const first = await alice.get(`/api/user/campaign/${other}/leads?per_page=10`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ current_page: 1, per_page: 10, total: 23, last_page: 3, from: 1, to: 10 });
    expect(first.body.data[0]).toMatchObject({ phone_number: '+4915160000000', campaign: { id: other, name: 'Paged' } });
    expect(first.body.next_page_url).toBe(`http://base.test/api/user/campaign/${other}/leads?per_page=10&page=2`);
    const last = await alice.get(`/api/user/campaign/${other}/leads?per_page=10&page=3`);
    expect(last.body.data.map((l: { phone_number: string }) => l.phone_number)).toEqual(['+4915160000020', '+4915160000021', '+4915160000022']);
    const bad = await alice.get(`/api/user/campaign/${other}/leads?per_page=500`);
    expect(bad.status).toBe(422);
  });

  it('says where the dialer stands with each lead: attempts made, the next try of a waiting lead, a call in progress', async () => {
    const campaign = (await insertCampaign(t, alice.id, (await insertAssistant(t, alice.id)).id, { name: 'Retries' })).id;
    await insertLead(t, alice.id, campaign, { phoneNumber: '+4915170000001', attempts: 1, nextAttemptAt: '2030-01-02 03:04:05+00' });
    await insertLead(t, alice.id, campaign, { phoneNumber: '+4915170000002', status: 'completed', attempts: 2, nextAttemptAt: '2030-01-02 03:04:05+00' });
    await insertLead(t, alice.id, campaign, { phoneNumber: '+4915170000003' });
    const res = await alice.get(`/api/user/campaign/${campaign}/leads`);
    expect(res.body.data.map((l: Record<string, unknown>) => [l.phone_number, l.attempts, l.next_attempt_at, l.in_call])).toEqual([
      ['+4915170000001', 1, '2030-01-02 03:04:05', false],
      // Done: no next try, whatever the column says.
      ['+4915170000002', 2, null, false],
      ['+4915170000003', 0, null, false],
    ]);
    // The spec's lead routes keep their shape.
    expect(Object.keys((await alice.get('/api/user/leads')).body[0])).not.toContain('next_attempt_at');
    expect((await bob.get(`/api/user/campaign/${campaign}/leads`)).status).toBe(404);
  });

  it("answers another user's campaign as not found", async () => {
    const res = await bob.get(`/api/user/campaign/${campaignId}/leads`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Campaign not found' });
  });
});
