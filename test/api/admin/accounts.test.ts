/** The admin API's reading and disabling of accounts (issue 17), on src/accounts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAssistant, insertCampaign } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestService();
  alice = await t.createUser({ name: 'Alice', max_tools: 7 });
  bob = await t.createUser({ name: 'Bob' });
  await t.addPhoneNumber(alice.id, '+4930555000111');
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('admin: users', () => {
  it('lists users by id in the pagination envelope', async () => {
    const res = await t.admin.get('/api/admin/users?per_page=1&page=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 2, per_page: 1, total: 2, last_page: 2 });
    expect(res.body.data).toEqual([
      { id: bob.id, name: 'Bob', email: expect.any(String), max_tools: 5, max_calls_in_parallel: 10, disabled_at: null, created_at: expect.stringMatching(ISO), active_tokens: 1 },
    ]);
    expect((await t.admin.get('/api/admin/users?per_page=0')).status).toBe(422);
  });

  it('reads one user, and answers unknown ids as not found', async () => {
    const res = await t.admin.get(`/api/admin/users/${alice.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: alice.id, name: 'Alice', max_tools: 7, disabled_at: null });
    for (const id of [999999, 'x']) {
      const missing = await t.admin.get(`/api/admin/users/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'User not found.' });
    }
  });

  it("lists a user's tokens (never the secret) and phone numbers", async () => {
    const issued = await t.admin.post(`/api/admin/users/${alice.id}/tokens`);
    const tokens = await t.admin.get(`/api/admin/users/${alice.id}/tokens`);
    expect(tokens.status).toBe(200);
    expect(tokens.body.data).toEqual([
      { id: expect.any(Number), created_at: expect.stringMatching(ISO), revoked_at: null },
      { id: issued.body.data.id, created_at: expect.stringMatching(ISO), revoked_at: null },
    ]);
    expect(JSON.stringify(tokens.body)).not.toContain(issued.body.data.token);
    const numbers = await t.admin.get(`/api/admin/users/${alice.id}/phone-numbers`);
    expect(numbers.body.data).toEqual([{ id: expect.any(Number), phone_number: '+4930555000111', country_code: 'DE', type_label: 'Normal', is_available: true, carrier: 'sandbox', carrier_sid: null, user_id: alice.id, label: null }]);
    expect((await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data).toEqual([]);
    expect((await t.admin.get('/api/admin/users/999999/tokens')).status).toBe(404);
    expect((await t.admin.get('/api/admin/users/999999/phone-numbers')).status).toBe(404);
  });

  it('disables a user: tokens refused at once, running campaigns stopped; enabling lets the tokens work again', async () => {
    const carol = await t.createUser({ name: 'Carol' });
    const campaign = await insertCampaign(t, carol.id, (await insertAssistant(t, carol.id)).id, { status: 'in-progress' });
    expect((await carol.get('/api/user/me')).status).toBe(200);
    const res = await t.admin.post(`/api/admin/users/${carol.id}/disable`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'User disabled successfully', stopped_campaigns: 1, data: { id: carol.id, disabled_at: expect.stringMatching(ISO) } });
    expect((await carol.get('/api/user/me')).status).toBe(401);
    const enabled = await t.admin.post(`/api/admin/users/${carol.id}/enable`);
    expect(enabled.body).toMatchObject({ message: 'User enabled successfully', data: { disabled_at: null } });
    expect((await carol.get('/api/user/me')).status).toBe(200);
    const after = await carol.get(`/api/user/campaign/${campaign.id}`);
    expect(after.body.data.status).toBe('stopped');
    expect((await t.admin.post('/api/admin/users/999999/disable')).status).toBe(404);
  });

  it('lists every voice, public and private', async () => {
    await t.admin.post('/api/admin/voices', { name: 'Alice private', mode: 'pipeline', user_id: alice.id });
    const res = await t.admin.get('/api/admin/voices');
    expect(res.status).toBe(200);
    expect(res.body.data.find((v: { name: string }) => v.name === 'Alice private')).toEqual({
      id: expect.any(Number),
      name: 'Alice private',
      mode: 'pipeline',
      user_id: alice.id,
      provider: 'local',
      provider_voice_id: null,
    });
    expect(res.body.data.some((v: { user_id: number | null }) => v.user_id === null)).toBe(true);
  });

  it('adds a voice spoken by a vendor with its own voice id, and refuses an unknown provider', async () => {
    const created = await t.admin.post('/api/admin/voices', { name: 'Rachel', mode: 'pipeline', provider: 'elevenlabs', provider_voice_id: '21m00Tcm4TlvDq8ikWAM' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Rachel', provider: 'elevenlabs', provider_voice_id: '21m00Tcm4TlvDq8ikWAM' });
    const openai = await t.admin.post('/api/admin/voices', { name: 'Alloy', mode: 'pipeline', provider: 'openai', provider_voice_id: 'alloy' });
    expect(openai.body.data).toMatchObject({ provider: 'openai', provider_voice_id: 'alloy' });
    const bad = await t.admin.post('/api/admin/voices', { name: 'X', mode: 'pipeline', provider: 'acme', provider_voice_id: 'x'.repeat(256) });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      provider: ['The selected provider is invalid.'],
      provider_voice_id: ['The provider voice id field must not be greater than 255 characters.'],
    });
    const listed = (await t.admin.get('/api/admin/voices')).body.data.find((v: { id: number }) => v.id === created.body.data.id);
    expect(listed).toMatchObject({ provider: 'elevenlabs', provider_voice_id: '21m00Tcm4TlvDq8ikWAM' });
  });

  it('is for the admin token only: a user token is unauthenticated there', async () => {
    for (const path of ['/api/admin/users', `/api/admin/users/${alice.id}`, `/api/admin/users/${alice.id}/tokens`, `/api/admin/users/${alice.id}/phone-numbers`, '/api/admin/voices']) {
      expect((await alice.get(path)).status, path).toBe(401);
      expect((await t.anonymous.get(path)).status, path).toBe(401);
    }
    expect((await bob.post(`/api/admin/users/${alice.id}/disable`)).status).toBe(401);
    expect((await alice.get('/api/user/me')).status).toBe(200);
  });
});
