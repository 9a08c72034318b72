/**
 * Issue 16: numbers belong to a carrier (`sandbox` by default, or `twilio` with Twilio's PN…
 * sid), and an account's own Twilio credentials are stored sealed and never shown in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTwilioAccount } from '../../../src/accounts/carrier-accounts.js';
import { purposeKey } from '../../../src/lib/secrets.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let alice: TestUser;
let bob: TestUser;

const PN = 'PN' + 'a'.repeat(32);
const AC = 'AC' + '1'.repeat(32);
const SK = 'SK' + '2'.repeat(32);

beforeAll(async () => {
  t = await startTestService({ env: { SECRET_KEY: 's'.repeat(40) } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(() => t.close());

describe('admin: phone numbers with a carrier', () => {
  it('keeps sandbox the default and registers a Twilio number with its sid', async () => {
    const plain = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+4930555000200', type_label: 'Normal' });
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ phone_number: '+4930555000200', carrier: 'sandbox', carrier_sid: null, is_available: true });
    const twilio = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550100', type_label: 'Normal', carrier: 'twilio', carrier_sid: PN });
    expect(twilio.status).toBe(201);
    expect(twilio.body.data).toMatchObject({ phone_number: '+14155550100', country_code: 'US', carrier: 'twilio', carrier_sid: PN });
    const listed = await t.admin.get(`/api/admin/users/${alice.id}/phone-numbers`);
    expect(listed.body.data.map((n: { carrier: string }) => n.carrier)).toEqual(['sandbox', 'twilio']);
    // The user's own list keeps the spec's shape.
    const own = await alice.get('/api/user/phone-numbers/all');
    expect(Object.keys(own.body.data[0]).sort()).toEqual(['country_code', 'id', 'is_available', 'phone_number', 'type_label']);
  });

  it('refuses an unknown carrier, a malformed sid, and a Twilio number another account holds', async () => {
    const badCarrier = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550101', type_label: 'Normal', carrier: 'vonage' });
    expect(badCarrier.status).toBe(422);
    expect(badCarrier.body.errors).toEqual({ carrier: ['The selected carrier is invalid.'] });
    const badSid = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550101', type_label: 'Normal', carrier: 'twilio', carrier_sid: 'PN123' });
    expect(badSid.status).toBe(422);
    expect(badSid.body.errors).toEqual({ carrier_sid: ['The carrier sid field format is invalid.'] });
    const taken = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550100', type_label: 'Normal', carrier: 'twilio' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ phone_number: ['The phone number has already been taken.'] });
    expect((await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data).toEqual([]);
  });
});

describe("admin: an account's Twilio credentials", () => {
  it('stores them sealed, shows only the SIDs and a hint, and opens them for calls', async () => {
    const token = 'f'.repeat(28) + 'c0de';
    const put = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: AC, auth_token: token });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ message: 'Twilio account saved', data: { account_sid: AC, api_key_sid: null, auth_token_hint: '••••c0de' } });
    const get = await t.admin.get(`/api/admin/users/${alice.id}/carriers/twilio`);
    expect(get.body.data).toMatchObject({ account_sid: AC, auth_token_hint: '••••c0de' });
    expect(JSON.stringify(get.body)).not.toContain(token);
    const { rows } = await t.service.ctx.database.pool.query('SELECT sealed_secrets FROM carrier_accounts WHERE user_id = $1', [alice.id]);
    expect(rows[0].sealed_secrets).toMatch(/^v1:/);
    expect(rows[0].sealed_secrets).not.toContain(token);
    const key = purposeKey(t.config, 'credentials');
    expect(await openTwilioAccount(t.service.ctx.database.db, key, alice.id)).toEqual({ accountSid: AC, authToken: token });

    // Replaced with an API key for REST; the auth token stays required (it verifies callbacks).
    const withKey = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: AC, auth_token: token, api_key_sid: SK, api_key_secret: 'secret-of-the-key' });
    expect(withKey.body.data).toMatchObject({ api_key_sid: SK });
    expect(await openTwilioAccount(t.service.ctx.database.db, key, alice.id)).toEqual({ accountSid: AC, authToken: token, apiKeySid: SK, apiKeySecret: 'secret-of-the-key' });
  });

  it('validates in the spec style', async () => {
    const res = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: 'nope', api_key_sid: SK });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      account_sid: ['The account sid field format is invalid.'],
      auth_token: ['The auth token field is required.'],
    });
    const noSecret = await t.admin.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: AC, auth_token: 'x'.repeat(32), api_key_sid: SK });
    expect(noSecret.status).toBe(422);
    expect(noSecret.body.errors).toEqual({ api_key_secret: ['The api key secret field is required when api key sid is present.'] });
  });

  it("is one user's: another user's credentials are separate, unknown users 404, user tokens 401", async () => {
    expect((await t.admin.get(`/api/admin/users/${bob.id}/carriers/twilio`)).status).toBe(404);
    expect((await t.admin.get(`/api/admin/users/${bob.id}/carriers/twilio`)).body).toEqual({ message: 'Twilio account not found.' });
    expect(await openTwilioAccount(t.service.ctx.database.db, purposeKey(t.config, 'credentials'), bob.id)).toBeNull();
    expect((await t.admin.put('/api/admin/users/999999/carriers/twilio', { account_sid: AC, auth_token: 'x'.repeat(32) })).status).toBe(404);
    for (const who of [alice, bob, t.anonymous]) {
      expect((await who.get(`/api/admin/users/${alice.id}/carriers/twilio`)).status).toBe(401);
      expect((await who.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: AC, auth_token: 'x'.repeat(32) })).status).toBe(401);
    }
    expect((await t.admin.delete(`/api/admin/users/${bob.id}/carriers/twilio`)).status).toBe(404);
    const removed = await t.admin.delete(`/api/admin/users/${alice.id}/carriers/twilio`);
    expect(removed.body).toEqual({ message: 'Twilio account removed' });
    expect((await t.admin.get(`/api/admin/users/${alice.id}/carriers/twilio`)).status).toBe(404);
  });
});
