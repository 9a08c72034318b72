import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;
let otherAssistantId: number;
let inboundId: number;
let bobAssistantId: number;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  assistantId = (await insertAssistant(t, alice.id, { timezone: 'Europe/Berlin' })).id;
  otherAssistantId = (await insertAssistant(t, alice.id, { name: 'Second' })).id;
  inboundId = (await insertAssistant(t, alice.id, { type: 'inbound' })).id;
  bobAssistantId = (await insertAssistant(t, bob.id)).id;
});
afterAll(() => t.close());

const newCampaign = async (body: Record<string, unknown> = {}) => {
  const res = await alice.post('/api/user/campaigns', { name: 'Spring', assistant_id: assistantId, ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, unknown> & { id: number };
};

describe('GET /api/user/campaign/{id}', () => {
  it('answers the campaign record as the list has it', async () => {
    const c = await newCampaign();
    const res = await alice.get(`/api/user/campaign/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: c });
    const list = await alice.get('/api/user/campaigns');
    expect(list.body.find((x: { id: number }) => x.id === c.id)).toEqual(c);
  });

  it("answers another user's campaign, an unknown id and a non-integer id as not found", async () => {
    const c = await newCampaign();
    for (const [user, path] of [[bob, `/api/user/campaign/${c.id}`], [alice, '/api/user/campaign/999999'], [alice, '/api/user/campaign/abc']] as const) {
      const res = await user.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Campaign not found' });
    }
  });
});

describe('PUT /api/user/campaign/{id}', () => {
  it('changes only the fields sent, normalising them as create does', async () => {
    const c = await newCampaign();
    const res = await alice.put(`/api/user/campaign/${c.id}`, {
      name: 'Summer',
      allowed_days: ['Friday', 'monday', 'friday'],
      max_retries: 5,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'booked',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('Campaign updated successfully');
    expect(res.body.data).toEqual({
      ...c,
      name: 'Summer',
      allowed_days: ['monday', 'friday'],
      max_retries: 5,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'booked',
      updated_at: expect.any(String),
    });
    expect((await alice.get(`/api/user/campaign/${c.id}`)).body.data).toEqual(res.body.data);
  });

  it('validates like create, with the same messages, and a refused update changes nothing', async () => {
    const c = await newCampaign();
    const res = await alice.put(`/api/user/campaign/${c.id}`, {
      name: 'Changed',
      max_calls_in_parallel: 0,
      allowed_hours_start_time: '25:00',
      allowed_days: [],
      retry_interval: 5,
      timezone: 'Mars/Olympus',
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        max_calls_in_parallel: ['The max calls in parallel field must be between 1 and 100.'],
        allowed_hours_start_time: ['The allowed hours start time field must match the format H:i.'],
        allowed_days: ['The allowed days field must have at least 1 items.'],
        retry_interval: ['The retry interval field must be between 10 and 4320.'],
        timezone: ['The timezone field must be a valid timezone.'],
      },
    });
    expect((await alice.get(`/api/user/campaign/${c.id}`)).body.data).toEqual(c);
  });

  it('needs a goal variable, sent or stored, for retry_on_goal_incomplete', async () => {
    const c = await newCampaign();
    const res = await alice.put(`/api/user/campaign/${c.id}`, { retry_on_goal_incomplete: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      goal_completion_variable: ['The goal completion variable field is required when retry on goal incomplete is true.'],
    });
    const withGoal = await newCampaign({ retry_on_goal_incomplete: true, goal_completion_variable: 'booked' });
    const cleared = await alice.put(`/api/user/campaign/${withGoal.id}`, { goal_completion_variable: null });
    expect(cleared.status).toBe(422);
    const both = await alice.put(`/api/user/campaign/${withGoal.id}`, { goal_completion_variable: null, retry_on_goal_incomplete: false });
    expect(both.status).toBe(200);
    expect(both.body.data.goal_completion_variable).toBeNull();
  });

  it("moves a campaign to another of the caller's outbound assistants, never to an inbound or foreign one", async () => {
    const c = await newCampaign();
    const moved = await alice.put(`/api/user/campaign/${c.id}`, { assistant_id: String(otherAssistantId) });
    expect(moved.status).toBe(200);
    expect(moved.body.data.assistant_id).toBe(otherAssistantId);
    for (const id of [inboundId, bobAssistantId, 0]) {
      const res = await alice.put(`/api/user/campaign/${c.id}`, { assistant_id: id });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Assistant not found or not an outbound assistant.' });
    }
  });

  it('keeps the assistant while the campaign runs, but changes the rest', async () => {
    const c = await insertCampaign(t, alice.id, assistantId, { status: 'in-progress' });
    const refused = await alice.put(`/api/user/campaign/${c.id}`, { assistant_id: otherAssistantId, name: 'X' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ assistant_id: ['The assistant cannot be changed while the campaign is in progress; stop it first.'] });
    const same = await alice.put(`/api/user/campaign/${c.id}`, { assistant_id: assistantId, max_calls_in_parallel: 7 });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ status: 'in-progress', max_calls_in_parallel: 7, name: 'Test campaign' });
  });

  it("answers another user's campaign as not found and leaves it alone", async () => {
    const c = await newCampaign();
    // (An invalid body is a 422 for any id, so it tells nothing about the campaign.)
    for (const body of [{ name: 'Mine' }, { assistant_id: bobAssistantId }]) {
      const res = await bob.put(`/api/user/campaign/${c.id}`, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Campaign not found' });
    }
    expect((await alice.get(`/api/user/campaign/${c.id}`)).body.data.name).toBe('Spring');
  });
});
