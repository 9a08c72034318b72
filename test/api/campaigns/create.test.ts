import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;
let assistantId: number;

const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  assistantId = (await insertAssistant(t, alice.id, { timezone: 'Europe/Berlin' })).id;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>, user: TestUser = alice) =>
  user.post('/api/user/campaigns', { name: 'Spring', assistant_id: assistantId, ...body });

/** Expects a 422 with exactly one error on `field`. */
async function rejects(body: Record<string, unknown>, field: string, message: string) {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.message).toBe('The given data was invalid.');
  expect(res.body.errors).toEqual({ [field]: [message] });
}

describe('POST /api/user/campaigns', () => {
  it('creates a draft campaign with the defaults of CONTRACT §4 and the assistant\'s timezone', async () => {
    const res = await create({});
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Campaign created successfully');
    const c = res.body.data;
    expect(c).toEqual({
      id: expect.any(Number),
      name: 'Spring',
      status: 'draft',
      assistant_id: assistantId,
      timezone: 'Europe/Berlin',
      max_calls_in_parallel: 3,
      allowed_hours_start_time: '00:00',
      allowed_hours_end_time: '23:59',
      allowed_days: WEEK,
      max_retries: 3,
      retry_interval: 60,
      retry_on_voicemail: false,
      retry_on_goal_incomplete: false,
      goal_completion_variable: null,
      mark_complete_when_no_leads: true,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
  });

  it('stores every field as sent', async () => {
    const res = await create({
      name: 'Autumn',
      assistant_id: String(assistantId),
      timezone: 'America/New_York',
      max_calls_in_parallel: 7,
      allowed_hours_start_time: '09:30',
      allowed_hours_end_time: '17:45',
      allowed_days: ['Friday', 'monday', 'monday'],
      max_retries: 5,
      retry_interval: 4320,
      retry_on_voicemail: true,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'appointment_booked',
      mark_complete_when_no_leads: false,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Autumn',
      assistant_id: assistantId,
      timezone: 'America/New_York',
      max_calls_in_parallel: 7,
      allowed_hours_start_time: '09:30',
      allowed_hours_end_time: '17:45',
      allowed_days: ['monday', 'friday'],
      max_retries: 5,
      retry_interval: 4320,
      retry_on_voicemail: true,
      retry_on_goal_incomplete: true,
      goal_completion_variable: 'appointment_booked',
      mark_complete_when_no_leads: false,
    });
  });

  it('requires name and assistant_id', async () => {
    const res = await alice.post('/api/user/campaigns', {});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      name: ['The name field is required.'],
      assistant_id: ['The assistant id field is required.'],
    });
  });

  it('checks the name length (255 accepted, 256 refused)', async () => {
    expect((await create({ name: 'n'.repeat(255) })).status).toBe(201);
    await rejects({ name: 'n'.repeat(256) }, 'name', 'The name field must not be greater than 255 characters.');
    await rejects({ name: '   ' }, 'name', 'The name field is required.');
    await rejects({ name: 5 }, 'name', 'The name field must be a string.');
  });

  it('checks max_retries 1–5', async () => {
    for (const ok of [1, 5]) expect((await create({ max_retries: ok })).status).toBe(201);
    for (const bad of [0, 6]) await rejects({ max_retries: bad }, 'max_retries', 'The max retries field must be between 1 and 5.');
    await rejects({ max_retries: 2.5 }, 'max_retries', 'The max retries field must be an integer.');
    await rejects({ max_retries: '3' }, 'max_retries', 'The max retries field must be an integer.');
  });

  it('checks retry_interval 10–4320', async () => {
    for (const ok of [10, 4320]) expect((await create({ retry_interval: ok })).status).toBe(201);
    for (const bad of [9, 4321]) await rejects({ retry_interval: bad }, 'retry_interval', 'The retry interval field must be between 10 and 4320.');
  });

  it('checks max_calls_in_parallel 1–100', async () => {
    for (const ok of [1, 100]) expect((await create({ max_calls_in_parallel: ok })).status).toBe(201);
    for (const bad of [0, 101]) {
      await rejects({ max_calls_in_parallel: bad }, 'max_calls_in_parallel', 'The max calls in parallel field must be between 1 and 100.');
    }
  });

  it('checks HH:MM hours 00:00–23:59; any pair is a window (overnight and whole-day included)', async () => {
    expect((await create({ allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59' })).status).toBe(201);
    expect((await create({ allowed_hours_start_time: '08:00', allowed_hours_end_time: '08:01' })).status).toBe(201);
    const overnight = await create({ allowed_hours_start_time: '22:00', allowed_hours_end_time: '06:00' });
    expect(overnight.body.data).toMatchObject({ allowed_hours_start_time: '22:00', allowed_hours_end_time: '06:00' });
    expect((await create({ allowed_hours_start_time: '12:00', allowed_hours_end_time: '12:00' })).status).toBe(201);
    for (const bad of ['24:00', '9:00', '09:60', '0900', '09:00:00', '', 9, null]) {
      const res = await create({ allowed_hours_start_time: bad });
      expect(res.status).toBe(422);
      expect(res.body.errors.allowed_hours_start_time).toHaveLength(1);
    }
    await rejects({ allowed_hours_end_time: '24:00' }, 'allowed_hours_end_time', 'The allowed hours end time field must match the format H:i.');
    await rejects({ allowed_hours_start_time: '7:5' }, 'allowed_hours_start_time', 'The allowed hours start time field must match the format H:i.');
  });

  it('checks weekday names', async () => {
    expect((await create({ allowed_days: ['sunday'] })).body.data.allowed_days).toEqual(['sunday']);
    await rejects({ allowed_days: [] }, 'allowed_days', 'The allowed days field must have at least 1 items.');
    await rejects({ allowed_days: ['someday'] }, 'allowed_days.0', 'The selected allowed_days.0 is invalid.');
    await rejects({ allowed_days: 'monday' }, 'allowed_days', 'The allowed days field must be an array.');
  });

  it('checks the timezone against the IANA database', async () => {
    expect((await create({ timezone: 'Asia/Kolkata' })).body.data.timezone).toBe('Asia/Kolkata');
    expect((await create({ timezone: 'UTC' })).body.data.timezone).toBe('UTC');
    await rejects({ timezone: 'Mars/Olympus' }, 'timezone', 'The timezone field must be a valid timezone.');
    await rejects({ timezone: '' }, 'timezone', 'The timezone field must be a valid timezone.');
  });

  it('checks the booleans and requires goal_completion_variable with retry_on_goal_incomplete', async () => {
    await rejects({ retry_on_voicemail: 'yes' }, 'retry_on_voicemail', 'The retry on voicemail field must be true or false.');
    await rejects({ mark_complete_when_no_leads: 1 }, 'mark_complete_when_no_leads', 'The mark complete when no leads field must be true or false.');
    await rejects(
      { retry_on_goal_incomplete: true },
      'goal_completion_variable',
      'The goal completion variable field is required when retry on goal incomplete is true.',
    );
    expect((await create({ retry_on_goal_incomplete: false, goal_completion_variable: 'booked' })).status).toBe(201);
    await rejects({ goal_completion_variable: 'g'.repeat(256) }, 'goal_completion_variable', 'The goal completion variable field must not be greater than 255 characters.');
  });

  it('accepts assistant_id as a digit string and refuses other non-integers with 422', async () => {
    expect((await create({ assistant_id: String(assistantId) })).status).toBe(201);
    for (const bad of ['abc', '1.5', 1.5, true, [1]]) {
      await rejects({ assistant_id: bad }, 'assistant_id', 'The assistant id field must be an integer.');
    }
  });

  it('answers 404 for an assistant that is not the caller\'s live outbound assistant', async () => {
    const inbound = await insertAssistant(t, alice.id, { type: 'inbound' });
    const deleted = await insertAssistant(t, alice.id, { deletedAt: new Date().toISOString() });
    const bobs = await insertAssistant(t, bob.id);
    for (const id of [inbound.id, deleted.id, bobs.id, 999999, 0, -1, 99999999999]) {
      const res = await create({ assistant_id: id });
      expect(res.status, String(id)).toBe(404);
      expect(res.body).toEqual({ message: 'Assistant not found or not an outbound assistant.' });
    }
  });

  it('requires a token', async () => {
    expect((await t.anonymous.post('/api/user/campaigns', {})).status).toBe(401);
  });
});
