import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign, insertPhoneNumber } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;

const URL = '/api/user/campaigns/update-status';

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const phone = await insertPhoneNumber(t, alice.id);
  assistantId = (await insertAssistant(t, alice.id, { phoneNumberId: phone.id })).id;
});
afterAll(() => t.close());

const campaign = async (status = 'draft', assistant = assistantId) => (await insertCampaign(t, alice.id, assistant, { status })).id;
const statusOf = async (id: number) =>
  (await alice.get('/api/user/campaigns')).body.find((c: { id: number }) => c.id === id).status as string;

describe('POST /api/user/campaigns/update-status: transitions (CONTRACT §5)', () => {
  const table: [from: string, action: 'start' | 'stop', to: string, message: string][] = [
    ['draft', 'start', 'in-progress', 'Campaign started successfully.'],
    ['stopped', 'start', 'in-progress', 'Campaign started successfully.'],
    ['completed', 'start', 'in-progress', 'Campaign started successfully.'],
    ['in-progress', 'start', 'in-progress', 'Campaign is already in progress.'],
    ['in-progress', 'stop', 'stopped', 'Campaign stopped successfully.'],
    ['draft', 'stop', 'draft', 'Campaign is not in progress.'],
    ['stopped', 'stop', 'stopped', 'Campaign is not in progress.'],
    ['completed', 'stop', 'completed', 'Campaign is not in progress.'],
  ];
  for (const [from, action, to, message] of table) {
    it(`${from} + ${action} → ${to}`, async () => {
      const id = await campaign(from);
      const res = await alice.post(URL, { campaign_id: id, action });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message, success: true, data: { campaign_id: id, status: to } });
      expect(await statusOf(id)).toBe(to);
    });
  }

  it('runs a full cycle with no-op repeats: start, start, stop, stop, start', async () => {
    const id = await campaign();
    const seq = [];
    for (const action of ['start', 'start', 'stop', 'stop', 'start']) {
      const res = await alice.post(URL, { campaign_id: id, action });
      expect(res.status).toBe(200);
      seq.push(res.body.data.status);
    }
    expect(seq).toEqual(['in-progress', 'in-progress', 'stopped', 'stopped', 'in-progress']);
  });

  it('lets exactly one of many concurrent starts win', async () => {
    const id = await campaign();
    const results = await Promise.all(Array.from({ length: 8 }, () => alice.post(URL, { campaign_id: id, action: 'start' })));
    expect(results.every((r) => r.status === 200 && r.body.data.status === 'in-progress')).toBe(true);
    expect(results.filter((r) => r.body.message === 'Campaign started successfully.')).toHaveLength(1);
  });
});

describe('POST /api/user/campaigns/update-status: input', () => {
  it('accepts status in place of action, and a digit-string campaign_id', async () => {
    const id = await campaign();
    let res = await alice.post(URL, { campaign_id: String(id), status: 'start' });
    expect(res.body).toEqual({ message: 'Campaign started successfully.', success: true, data: { campaign_id: id, status: 'in-progress' } });
    res = await alice.post(URL, { campaign_id: id, status: 'stop' });
    expect(res.body).toEqual({ message: 'Campaign stopped successfully.', success: true, data: { campaign_id: id, status: 'stopped' } });
  });

  it('lets action win when both are sent, even over an invalid status', async () => {
    const id = await campaign();
    let res = await alice.post(URL, { campaign_id: id, action: 'start', status: 'stop' });
    expect(res.body.data.status).toBe('in-progress');
    res = await alice.post(URL, { campaign_id: id, action: 'stop', status: 'bogus' });
    expect(res.body.data.status).toBe('stopped');
  });

  it('answers 422 with success false when fields are missing or invalid', async () => {
    let res = await alice.post(URL, {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      success: false,
      errors: { campaign_id: ['The campaign id field is required.'], action: ['The action field is required.'] },
    });
    const id = await campaign();
    res = await alice.post(URL, { campaign_id: id, action: 'pause' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The given data was invalid.', success: false, errors: { action: ['The selected action is invalid.'] } });
    res = await alice.post(URL, { campaign_id: id, status: 'pause' });
    expect(res.body).toEqual({ message: 'The given data was invalid.', success: false, errors: { status: ['The selected status is invalid.'] } });
    res = await alice.post(URL, { campaign_id: id, action: null });
    expect(res.body.errors).toEqual({ action: ['The action field is required.'] });
    for (const bad of ['x1', 1.5, true]) {
      res = await alice.post(URL, { campaign_id: bad, action: 'start' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The given data was invalid.', success: false, errors: { campaign_id: ['The campaign id field must be an integer.'] } });
    }
    res = await alice.post(URL, { campaign_id: 'x', status: 'start' });
    expect(res.body.errors).toEqual({ campaign_id: ['The campaign id field must be an integer.'] });
    expect(await statusOf(id)).toBe('draft');
  });

  it('answers 404 with success false for unknown and other users\' campaigns', async () => {
    const id = await campaign();
    for (const [user, cid] of [[bob, id], [alice, 999999], [alice, 0], [alice, -4]] as const) {
      for (const action of ['start', 'stop']) {
        const res = await user.post(URL, { campaign_id: cid, action });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Campaign not found.', success: false });
      }
    }
    expect(await statusOf(id)).toBe('draft');
  });

  it('refuses to start when the assistant is gone, inbound, inactive or has no phone number', async () => {
    const phone = await insertPhoneNumber(t, alice.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ phoneNumberId: phone.id, deletedAt: new Date().toISOString() }, "The campaign's assistant has been deleted."],
      [{ phoneNumberId: phone.id, type: 'inbound' }, "The campaign's assistant is not an outbound assistant."],
      [{ phoneNumberId: phone.id, status: 'inactive' }, "The campaign's assistant is inactive."],
      [{ phoneNumberId: null }, "The campaign's assistant has no phone number."],
    ];
    for (const [overrides, message] of cases) {
      const assistant = await insertAssistant(t, alice.id, overrides);
      const id = await campaign('draft', assistant.id);
      const res = await alice.post(URL, { campaign_id: id, action: 'start' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message, success: false });
      expect(await statusOf(id)).toBe('draft');
      // Stopping stays possible whatever the assistant's state.
      expect((await alice.post(URL, { campaign_id: id, action: 'stop' })).status).toBe(200);
    }
  });
});
