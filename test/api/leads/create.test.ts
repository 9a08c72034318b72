import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leads } from '../../../src/db/schema.js';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let campaignId: number;
let bobCampaignId: number;
let n = 0;

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

beforeAll(async () => {
  t = await startTestService(); // DEFAULT_PHONE_REGION defaults to DE
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const a = await insertAssistant(t, alice.id);
  campaignId = (await insertCampaign(t, alice.id, a.id, { name: 'Spring' })).id;
  const b = await insertAssistant(t, bob.id);
  bobCampaignId = (await insertCampaign(t, bob.id, b.id, { name: 'Bobs' })).id;
});
afterAll(() => t.close());

/** A fresh valid German mobile number per call, so duplicates never collide by accident. */
const fresh = () => `+4915${String(100000000 + ++n * 7).padStart(9, '0')}`;

const create = (body: Record<string, unknown>, user: TestUser = alice) =>
  user.post('/api/user/lead', { phone_number: fresh(), campaign_id: campaignId, ...body });

async function rejects(body: Record<string, unknown>, errors: Record<string, string[]>) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toEqual({ message: 'The given data was invalid.', errors });
}

describe('POST /api/user/lead', () => {
  it('creates a lead with its secondary contacts and answers it with campaign and contacts', async () => {
    const res = await alice.post('/api/user/lead', {
      phone_number: '+49 151 99887766',
      campaign_id: campaignId,
      variables: { customer_name: 'Ada', email: 'ada@example.test', nested: { vip: true } },
      secondary_contacts: [
        { phone_number: '030 1234567', variables: { role: 'office' } },
        { phone_number: '+1 415 555 2671' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Lead created successfully');
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      campaign_id: campaignId,
      phone_number: '+4915199887766',
      variables: { customer_name: 'Ada', email: 'ada@example.test', nested: { vip: true } },
      status: 'created',
      created_at: expect.stringMatching(DATETIME),
      updated_at: expect.stringMatching(DATETIME),
      campaign: { id: campaignId, name: 'Spring' },
      secondary_contacts: [
        { id: expect.any(Number), phone_number: '+49301234567', variables: { role: 'office' }, status: 'created', created_at: expect.stringMatching(DATETIME), updated_at: expect.stringMatching(DATETIME) },
        { id: expect.any(Number), phone_number: '+14155552671', variables: {}, status: 'created', created_at: expect.stringMatching(DATETIME), updated_at: expect.stringMatching(DATETIME) },
      ],
    });
    const listed = (await alice.get('/api/user/leads')).body.find((l: { id: number }) => l.id === res.body.data.id);
    expect(listed).toEqual(res.body.data);
  });

  it('answers an empty secondary_contacts array and empty variables when none are sent', async () => {
    const res = await create({});
    expect(res.status).toBe(200);
    expect(res.body.data.variables).toEqual({});
    expect(res.body.data.secondary_contacts).toEqual([]);
    expect((await create({ variables: null, secondary_contacts: null })).body.data).toMatchObject({ variables: {}, secondary_contacts: [] });
  });

  describe('phone_number normalised to E.164 (region DE)', () => {
    const accepted: [string, string][] = [
      ['+49 (151) 2345-6789', '+4915123456789'],
      ['0151 23456789', '+4915123456789'],
      ['+1 415 555 2671', '+14155552671'],
      ['+4930123456', '+4930123456'],
    ];
    for (const [input, e164] of accepted) {
      it(`accepts ${JSON.stringify(input)} as ${e164}`, async () => {
        const res = await create({ phone_number: input, allow_dupplicate: true });
        expect(res.status).toBe(200);
        expect(res.body.data.phone_number).toBe(e164);
      });
    }
    for (const input of ['12345', 'abc', '', '+49', '+4915123456789abc', '0151 2345678901234567']) {
      it(`refuses ${JSON.stringify(input)}`, async () => {
        await rejects({ phone_number: input }, { phone_number: ['The phone number field must be a valid phone number.'] });
      });
    }
    it('refuses a missing or non-string phone number', async () => {
      await rejects({ phone_number: undefined }, { phone_number: ['The phone number field is required.'] });
      await rejects({ phone_number: 4915123456789 }, { phone_number: ['The phone number field must be a string.'] });
    });
  });

  describe('campaign_id', () => {
    it('accepts an integer or a string of digits', async () => {
      expect((await create({ campaign_id: String(campaignId) })).body.data.campaign_id).toBe(campaignId);
    });
    it('is required and must be an integer (422)', async () => {
      await rejects({ campaign_id: undefined }, { campaign_id: ['The campaign id field is required.'] });
      for (const bad of ['abc', '12a', 1.5, true, {}, '']) {
        await rejects({ campaign_id: bad }, { campaign_id: ['The campaign id field must be an integer.'] });
      }
    });
    it('answers 404 Campaign not found for an integer that is not the caller\'s campaign', async () => {
      for (const id of [bobCampaignId, String(bobCampaignId), 999999, 0, -3, 99999999999]) {
        const res = await create({ campaign_id: id });
        expect(res.status, String(id)).toBe(404);
        expect(res.body).toEqual({ message: 'Campaign not found' });
      }
      const { db } = t.service.ctx.database;
      expect(await db.select().from(leads).where(eq(leads.campaignId, bobCampaignId))).toEqual([]);
    });
  });

  describe('variables', () => {
    it('must be a JSON object', async () => {
      expect((await create({ variables: { a: 1, b: [1, 2], c: null } })).body.data.variables).toEqual({ a: 1, b: [1, 2], c: null });
      expect((await create({ variables: {} })).status).toBe(200);
      for (const bad of [[1, 2], 'x', 5, true]) {
        await rejects({ variables: bad }, { variables: ['The variables field must be an object.'] });
      }
    });
  });

  describe('allow_dupplicate (default false)', () => {
    it('refuses the same number twice in one campaign, also in another notation', async () => {
      expect((await create({ phone_number: '+4917012345678' })).status).toBe(200);
      await rejects({ phone_number: '+4917012345678' }, { phone_number: ['The phone number has already been taken.'] });
      await rejects({ phone_number: '0170 1234 5678' }, { phone_number: ['The phone number has already been taken.'] });
      await rejects({ phone_number: '0170 1234 5678', allow_dupplicate: false }, { phone_number: ['The phone number has already been taken.'] });
    });
    it('allows it with allow_dupplicate true, and in another campaign without', async () => {
      expect((await create({ phone_number: '+4917099999999' })).status).toBe(200);
      expect((await create({ phone_number: '+4917099999999', allow_dupplicate: true })).status).toBe(200);
      const other = await insertCampaign(t, alice.id, (await insertAssistant(t, alice.id)).id);
      expect((await create({ phone_number: '+4917099999999', campaign_id: other.id })).status).toBe(200);
    });
    it('also accepts the correct spelling allow_duplicate, the spec\'s spelling winning when both are sent', async () => {
      expect((await create({ phone_number: '+4917088888888' })).status).toBe(200);
      expect((await create({ phone_number: '+4917088888888', allow_duplicate: true })).status).toBe(200);
      await rejects({ phone_number: '+4917088888888', allow_dupplicate: false, allow_duplicate: true }, { phone_number: ['The phone number has already been taken.'] });
      await rejects({ allow_duplicate: 1 }, { allow_duplicate: ['The allow duplicate field must be true or false.'] });
    });
    it('must be a boolean', async () => {
      await rejects({ allow_dupplicate: 'yes' }, { allow_dupplicate: ['The allow dupplicate field must be true or false.'] });
    });
    it('lets exactly one of concurrent identical creations through', async () => {
      const phone = '+4917055555555';
      const results = await Promise.all(Array.from({ length: 6 }, () => create({ phone_number: phone })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 422)).toHaveLength(5);
      const { db } = t.service.ctx.database;
      expect(await db.select().from(leads).where(eq(leads.phoneNumber, phone))).toHaveLength(1);
    });
  });

  describe('secondary_contacts', () => {
    it('validates each item with dotted keys and creates nothing when one is invalid', async () => {
      const phone = fresh();
      const res = await create({
        phone_number: phone,
        secondary_contacts: [{ phone_number: '+4930123456' }, { phone_number: '12345' }, { variables: 'x' }, 'x'],
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        'secondary_contacts.1.phone_number': ['The secondary_contacts.1.phone_number field must be a valid phone number.'],
        'secondary_contacts.2.phone_number': ['The secondary_contacts.2.phone_number field is required.'],
        'secondary_contacts.2.variables': ['The secondary_contacts.2.variables field must be an object.'],
        'secondary_contacts.3': ['The secondary_contacts.3 field must be an object.'],
      });
      const { db } = t.service.ctx.database;
      expect(await db.select().from(leads).where(eq(leads.phoneNumber, phone))).toEqual([]);
    });
    it('takes up to 20 contacts, in order', async () => {
      const contacts = Array.from({ length: 20 }, (_, i) => ({ phone_number: `+4930${1000000 + i}` }));
      const res = await create({ secondary_contacts: contacts });
      expect(res.status).toBe(200);
      expect(res.body.data.secondary_contacts.map((c: { phone_number: string }) => c.phone_number)).toEqual(contacts.map((c) => c.phone_number));
      await rejects(
        { secondary_contacts: [...contacts, { phone_number: '+4930999999' }] },
        { secondary_contacts: ['The secondary contacts field must not have more than 20 items.'] },
      );
      await rejects({ secondary_contacts: { phone_number: '+4930999999' } }, { secondary_contacts: ['The secondary contacts field must be an array.'] });
    });
  });

  it('requires a token', async () => {
    expect((await t.anonymous.post('/api/user/lead', {})).status).toBe(401);
  });
});
