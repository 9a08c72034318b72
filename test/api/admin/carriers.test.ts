/**
 * Issue 16: numbers belong to a carrier (`sandbox` by default, or `twilio` with Twilio's PN…
 * sid), and an account's own Twilio credentials are stored sealed and never shown in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTwilioAccount } from '../../../src/accounts/carrier-accounts.js';
import { purposeKey } from '../../../src/lib/secrets.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

let t: TestService;
let twilio: TwilioDouble;
let alice: TestUser;
let bob: TestUser;

const PN = 'PN' + 'a'.repeat(32);
const AC = 'AC' + '1'.repeat(32);
const SK = 'SK' + '2'.repeat(32);
/** Bob's account: upper-case hex is Twilio's too. */
const AC_B = 'AC' + 'ABCDEF0123456789'.repeat(2);
const SK_B = 'SK' + '3'.repeat(32);

beforeAll(async () => {
  // The deployment's Twilio credentials: a Twilio number needs usable ones (test/accounts/carrier-rules.test.ts).
  // Credentials are checked against Twilio before they are saved: the double knows Alice's and Bob's accounts.
  twilio = await TwilioDouble.start({
    accounts: {
      [AC]: { authTokens: ['f'.repeat(28) + 'c0de'], apiKeys: { [SK]: 'secret-of-the-key' } },
      [AC_B]: { authTokens: ['x'.repeat(127) + 'Z', 'x'.repeat(128)], apiKeys: { [SK_B]: 'y'.repeat(128) } },
    },
  });
  t = await startTestService({ env: { SECRET_KEY: 's'.repeat(40), TWILIO_ACCOUNT_SID: 'AC' + '9'.repeat(32), TWILIO_AUTH_TOKEN: 't'.repeat(32), TWILIO_API_URL: twilio.url } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(async () => {
  await t?.close();
  await twilio?.close();
});

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

  it('checks carrier_sid in the request: PN + 32 hex for twilio, none on sandbox, "" as not sent', async () => {
    const add = (n: number, fields: object) =>
      t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: `+1415555070${n}`, type_label: 'Normal', ...fields });
    const sidError = async (n: number, fields: object) => {
      const res = await add(n, fields);
      expect(res.status, JSON.stringify(fields)).toBe(422);
      return res.body.errors.carrier_sid;
    };
    // Twilio's sid is exactly 34 characters; one off either way, or another prefix, is not one.
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PN' + 'a'.repeat(31) })).toEqual(['The carrier sid field format is invalid.']);
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PN' + 'a'.repeat(33) })).toEqual(['The carrier sid field format is invalid.']);
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PX' + 'a'.repeat(32) })).toEqual(['The carrier sid field format is invalid.']);
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PN' + 'g'.repeat(32) })).toEqual(['The carrier sid field format is invalid.']);
    // 64 characters is within the length limit (and still no sid), 65 is over it.
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PN' + 'a'.repeat(62) })).toEqual(['The carrier sid field format is invalid.']);
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 'PN' + 'a'.repeat(63) })).toContain('The carrier sid field must not be greater than 64 characters.');
    // A sid on a sandbox number (carrier left out, or named) is a forgotten `carrier: twilio`.
    expect(await sidError(0, { carrier_sid: PN })).toEqual(['The carrier sid field is prohibited unless carrier is in twilio.']);
    expect(await sidError(0, { carrier: 'sandbox', carrier_sid: 'anything' })).toEqual(['The carrier sid field is prohibited unless carrier is in twilio.']);
    expect(await sidError(0, { carrier: 'twilio', carrier_sid: 42 })).toEqual(['The carrier sid field must be a string.']);
    // Input errors come before the account lookup, as in Laravel.
    const unknownUser = await t.admin.post('/api/admin/users/999999/phone-numbers', { phone_number: '+14155550700', type_label: 'Normal', carrier_sid: PN });
    expect(unknownUser.status).toBe(422);
    expect((await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data).toEqual([]);

    // "" and null are no sid, on either carrier; upper-case hex is Twilio's too.
    expect((await add(1, { carrier: 'twilio', carrier_sid: '' })).body.data).toMatchObject({ carrier: 'twilio', carrier_sid: null });
    expect((await add(2, { carrier: 'sandbox', carrier_sid: '' })).body.data).toMatchObject({ carrier: 'sandbox', carrier_sid: null });
    expect((await add(3, { carrier_sid: null })).body.data).toMatchObject({ carrier: 'sandbox', carrier_sid: null });
    const upper = 'PN' + 'ABCDEF0123456789'.repeat(2);
    expect((await add(4, { carrier: 'twilio', carrier_sid: upper })).body.data).toMatchObject({ carrier: 'twilio', carrier_sid: upper });
    const stored = (await t.admin.get(`/api/admin/users/${bob.id}/phone-numbers`)).body.data;
    expect(stored.map((n: { carrier_sid: string | null }) => n.carrier_sid)).toEqual([null, null, null, upper]);
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

  it('refuses empty and over-long credentials, and keeps what was stored', async () => {
    const url = `/api/admin/users/${bob.id}/carriers/twilio`;
    const errorsOf = async (body: object) => {
      const res = await t.admin.put(url, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toEqual(expect.any(String));
      return res.body.errors;
    };
    // An empty auth token would make every callback of the account fail verification (403).
    expect(await errorsOf({ account_sid: AC, auth_token: '' })).toEqual({ auth_token: ['The auth token field is required.'] });
    expect(await errorsOf({ account_sid: '', auth_token: 'x' })).toEqual({ account_sid: ['The account sid field is required.'] });
    expect(await errorsOf({ account_sid: AC, auth_token: null })).toEqual({ auth_token: ['The auth token field is required.'] });
    // account_sid: AC and 32 hex digits, 34 characters.
    for (const sid of ['AC' + '1'.repeat(31), 'AC' + '1'.repeat(33), 'SK' + '1'.repeat(32), 'AC' + 'z'.repeat(32), ' ' + AC]) {
      expect(await errorsOf({ account_sid: sid, auth_token: 'x' })).toEqual({ account_sid: ['The account sid field format is invalid.'] });
    }
    // The secrets: 128 characters fit, 129 do not.
    expect(await errorsOf({ account_sid: AC, auth_token: 'x'.repeat(129) })).toEqual({ auth_token: ['The auth token field must not be greater than 128 characters.'] });
    expect(await errorsOf({ account_sid: AC, auth_token: 'x', api_key_sid: SK, api_key_secret: 'y'.repeat(129) })).toEqual({
      api_key_secret: ['The api key secret field must not be greater than 128 characters.'],
    });
    // An empty key secret is no secret: the key then lacks one.
    expect(await errorsOf({ account_sid: AC, auth_token: 'x', api_key_sid: SK, api_key_secret: '' })).toEqual({
      api_key_secret: ['The api key secret field is required when api key sid is present.'],
    });
    expect(await errorsOf({ account_sid: AC, auth_token: 'x', api_key_sid: 'SK123', api_key_secret: 'y' })).toEqual({ api_key_sid: ['The api key sid field format is invalid.'] });
    expect((await t.admin.get(url)).status).toBe(404);

    const longest = { account_sid: AC_B, auth_token: 'x'.repeat(127) + 'Z', api_key_sid: SK_B, api_key_secret: 'y'.repeat(128) };
    const put = await t.admin.put(url, longest);
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ account_sid: longest.account_sid, api_key_sid: SK_B, auth_token_hint: '••••xxxZ' });
    const key = purposeKey(t.config, 'credentials');
    expect(await openTwilioAccount(t.service.ctx.database.db, key, bob.id)).toEqual({
      accountSid: longest.account_sid, authToken: longest.auth_token, apiKeySid: SK_B, apiKeySecret: longest.api_key_secret,
    });
    // Empty optional fields count as not sent: the key goes, the auth token stays (Twilio's secondary token here).
    const withoutKey = await t.admin.put(url, { account_sid: AC_B, auth_token: 'x'.repeat(128), api_key_sid: '', api_key_secret: '' });
    expect(withoutKey.status).toBe(200);
    expect(withoutKey.body.data).toMatchObject({ account_sid: AC_B, api_key_sid: null });
    expect(await openTwilioAccount(t.service.ctx.database.db, key, bob.id)).toEqual({ accountSid: AC_B, authToken: 'x'.repeat(128) });
    // A refused replacement leaves the stored credentials alone.
    await errorsOf({ account_sid: AC_B, auth_token: '' });
    expect(await openTwilioAccount(t.service.ctx.database.db, key, bob.id)).toEqual({ accountSid: AC_B, authToken: 'x'.repeat(128) });
    expect((await t.admin.delete(url)).status).toBe(200);
  });

  it("is one user's: another user's credentials are separate, unknown users 404, user tokens 401", async () => {
    expect((await t.admin.get(`/api/admin/users/${bob.id}/carriers/twilio`)).status).toBe(404);
    expect((await t.admin.get(`/api/admin/users/${bob.id}/carriers/twilio`)).body).toEqual({ message: 'Twilio account not found.' });
    expect(await openTwilioAccount(t.service.ctx.database.db, purposeKey(t.config, 'credentials'), bob.id)).toBeNull();
    expect((await t.admin.put('/api/admin/users/999999/carriers/twilio', { account_sid: AC, auth_token: 'x'.repeat(32) })).status).toBe(404);
    for (const who of [alice, bob, t.anonymous]) {
      expect((await who.get(`/api/admin/users/${alice.id}/carriers/twilio`)).status).toBe(401);
      expect((await who.put(`/api/admin/users/${alice.id}/carriers/twilio`, { account_sid: AC, auth_token: 'x'.repeat(32) })).status).toBe(401);
      expect((await who.delete(`/api/admin/users/${alice.id}/carriers/twilio`)).status).toBe(401);
    }
    // Removing Bob's (he has none) and an unknown user's leaves Alice's in place.
    expect((await t.admin.delete(`/api/admin/users/${bob.id}/carriers/twilio`)).status).toBe(404);
    expect((await t.admin.delete('/api/admin/users/999999/carriers/twilio')).status).toBe(404);
    expect(await openTwilioAccount(t.service.ctx.database.db, purposeKey(t.config, 'credentials'), alice.id)).toMatchObject({ accountSid: AC });
    const removed = await t.admin.delete(`/api/admin/users/${alice.id}/carriers/twilio`);
    expect(removed.body).toEqual({ message: 'Twilio account removed' });
    expect((await t.admin.get(`/api/admin/users/${alice.id}/carriers/twilio`)).status).toBe(404);
  });
});
