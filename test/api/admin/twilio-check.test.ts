/**
 * An account's Twilio credentials are checked against Twilio's REST API before they are saved
 * (`GET /2010-04-01/Accounts/{sid}.json`, Basic auth with the API key when given): refused ones
 * get 422 with a field error, and when Twilio fails or cannot be reached nothing is saved.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';

const SK = 'SK' + '4'.repeat(32);
const SUSPENDED = 'AC' + '5'.repeat(32);

let twilio: TwilioDouble;
let t: TestService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  twilio = await TwilioDouble.start({ apiKeys: { [SK]: 'key-secret' }, accounts: { [SUSPENDED]: { authTokens: ['s'.repeat(32)], status: 'suspended' } } });
  t = await startTestService({ env: { SECRET_KEY: 's'.repeat(40), TWILIO_API_URL: twilio.url } });
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
});
afterAll(async () => {
  await t?.close();
  await twilio?.close();
});

const url = (id: number) => `/api/admin/users/${id}/carriers/twilio`;
const accountChecks = () => twilio.requests.filter((r) => r.method === 'GET' && r.path.endsWith('.json') && r.path.split('/').length === 4);

describe('checking Twilio credentials before saving them', () => {
  it('saves credentials Twilio accepts, asking with the SID and token, or with the API key when given', async () => {
    const before = accountChecks().length;
    const put = await t.admin.put(url(alice.id), { account_sid: twilio.accountSid, auth_token: twilio.authToken });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ account_sid: twilio.accountSid, api_key_sid: null });
    const withKey = await t.admin.put(url(alice.id), { account_sid: twilio.accountSid, auth_token: twilio.authToken, api_key_sid: SK, api_key_secret: 'key-secret' });
    expect(withKey.status).toBe(200);
    expect(accountChecks().slice(before).map((r) => [r.path, r.user, r.status])).toEqual([
      [`/2010-04-01/Accounts/${twilio.accountSid}.json`, twilio.accountSid, 200],
      [`/2010-04-01/Accounts/${twilio.accountSid}.json`, SK, 200],
    ]);
  });

  it('refuses a wrong auth token with 422 on auth_token and keeps what was stored', async () => {
    const res = await t.admin.put(url(alice.id), { account_sid: twilio.accountSid, auth_token: 'wrong'.repeat(6) });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Twilio refused these credentials (401).');
    expect(Object.keys(res.body.errors)).toEqual(['auth_token']);
    expect(res.body.errors.auth_token[0]).toMatch(/Twilio refused this account SID and auth token/);
    // Still the key saved before.
    expect((await t.admin.get(url(alice.id))).body.data).toMatchObject({ api_key_sid: SK });
  });

  it('refuses a wrong key secret on api_key_secret, an account the key does not reach on account_sid, a suspended account', async () => {
    const key = await t.admin.put(url(bob.id), { account_sid: twilio.accountSid, auth_token: twilio.authToken, api_key_sid: SK, api_key_secret: 'not-it' });
    expect(key.status).toBe(422);
    expect(Object.keys(key.body.errors)).toEqual(['api_key_secret']);
    const other = await t.admin.put(url(bob.id), { account_sid: 'AC' + '6'.repeat(32), auth_token: 'x'.repeat(32), api_key_sid: SK, api_key_secret: 'key-secret' });
    expect(other.status).toBe(422);
    expect(other.body.message).toBe('Twilio refused these credentials (404).');
    expect(Object.keys(other.body.errors)).toEqual(['account_sid']);
    const suspended = await t.admin.put(url(bob.id), { account_sid: SUSPENDED, auth_token: 's'.repeat(32) });
    expect(suspended.status).toBe(422);
    expect(suspended.body.errors.account_sid[0]).toMatch(/suspended/);
    expect((await t.admin.get(url(bob.id))).status).toBe(404);
  });

  it('asks Twilio nothing for invalid input, unknown users or user tokens', async () => {
    const before = twilio.requests.length;
    expect((await t.admin.put(url(bob.id), { account_sid: 'nope', auth_token: 'x' })).status).toBe(422);
    expect((await t.admin.put(url(999999), { account_sid: twilio.accountSid, auth_token: twilio.authToken })).status).toBe(404);
    for (const who of [alice, bob, t.anonymous]) {
      expect((await who.put(url(alice.id), { account_sid: twilio.accountSid, auth_token: twilio.authToken })).status).toBe(401);
    }
    expect(twilio.requests.length).toBe(before);
  });
});

describe('when Twilio cannot answer', () => {
  let failing: http.Server;
  let down: TestService;
  let carol: TestUser;

  beforeAll(async () => {
    // Twilio's answer to an outage: 500 with its JSON error body.
    failing = http.createServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 20500, message: 'Internal Server Error', status: 500 })));
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    down = await startTestService({ env: { SECRET_KEY: 's'.repeat(40), TWILIO_API_URL: `http://127.0.0.1:${(failing.address() as AddressInfo).port}` } });
    carol = await down.createUser({ name: 'Carol' });
  });
  afterAll(async () => {
    await down?.close();
    failing?.closeAllConnections();
    await new Promise<void>((resolve) => failing?.close(() => resolve()));
  });

  it('answers 502 when Twilio fails and 503 when it cannot be reached, and saves nothing', async () => {
    const body = { account_sid: 'AC' + '7'.repeat(32), auth_token: 'x'.repeat(32) };
    const failed = await down.admin.put(url(carol.id), body);
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe('Twilio answered 500 when the credentials were checked; nothing was saved. Try again in a moment.');
    failing.closeAllConnections();
    await new Promise<void>((resolve) => failing.close(() => resolve()));
    const unreachable = await down.admin.put(url(carol.id), body);
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.message).toMatch(/^Twilio could not be reached to check the credentials \(ECONNREFUSED\); nothing was saved\./);
    expect((await down.admin.get(url(carol.id))).status).toBe(404);
  });
});
