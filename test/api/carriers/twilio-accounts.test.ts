/**
 * The Twilio routes with accounts' own credentials (issue 16, review C16): a callback is checked
 * against the auth token of the account it concerns, and its AccountSid must be that account's,
 * so one account's token (or the deployment's) cannot move another account's call; a media
 * socket is taken only with the one-time token of the very call it names. Also the routes' own
 * 64 KiB body limit, named in its 413 (review A8).
 *
 * Bob's stored credentials are the Twilio double's, so his calls are placed and signed for real;
 * Alice's account is one the double knows only as an account (so her credentials pass the check
 * before they are saved); the deployment's is one it does not know.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callEnginePart } from '../../../src/calls/index.js';
import { twilioSignature } from '../../../src/telephony/twilio/signature.js';
import { TwilioDouble, type DoubleCall } from '../../support/doubles/twilio.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { PUBLIC, startRoutedTwilioDouble, twilioEnv } from '../../support/twilio-service.js';

const account = () => ({ sid: 'AC' + randomBytes(16).toString('hex'), token: randomBytes(16).toString('hex') });
const ALICE = account();
const DEPLOYMENT = account();

let double: TwilioDouble;
let t: TestService;
let local = '';
let alice: TestUser;
let bob: TestUser;
let bobsAssistant: number;
let BOB: { sid: string; token: string };

beforeAll(async () => {
  // Alice's account is one Twilio knows (her credentials are checked before they are saved), but its calls are not the double's.
  double = await startRoutedTwilioDouble(() => local, { accounts: { [ALICE.sid]: { authTokens: [ALICE.token] } } });
  BOB = { sid: double.accountSid, token: double.authToken };
  t = await startTestService({
    listen: true,
    parts: [callEnginePart],
    env: { ...twilioEnv(double), TWILIO_ACCOUNT_SID: DEPLOYMENT.sid, TWILIO_AUTH_TOKEN: DEPLOYMENT.token },
  });
  local = t.service.url!;
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  for (const [user, creds] of [[alice, ALICE], [bob, BOB]] as const) {
    const put = await t.admin.put(`/api/admin/users/${user.id}/carriers/twilio`, { account_sid: creds.sid, auth_token: creds.token });
    expect(put.status).toBe(200);
  }
  const number = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550800', type_label: 'Normal', carrier: 'twilio' });
  bobsAssistant = (await insertAssistant(t, bob.id, { phoneNumberId: number.body.data.id, maxDuration: 30 })).id;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function callRow(id: number) {
  const { rows } = await t.service.ctx.database.pool.query('SELECT * FROM calls WHERE id = $1', [id]);
  return rows[0];
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One of Bob's calls, placed through the double with his credentials and left ringing. */
async function bobsRingingCall(to: string): Promise<{ callId: number; call: DoubleCall }> {
  double.script(to, { ringMs: 60_000 });
  const res = await bob.post('/api/user/make_call', { phone_number: to, assistant_id: bobsAssistant });
  expect(res.status).toBe(200);
  const callId = Number(res.body.call_id);
  const call = await double.callTo(to);
  expect(double.requests.find((r) => r.path.endsWith('/Calls.json') && r.form.get('To') === to)?.user).toBe(BOB.sid);
  await until('ringing', async () => (await callRow(callId)).status === 'ringing');
  return { callId, call };
}

/** Ends a call the tests left ringing, as its person would (Twilio then reports it). */
async function cancelAtTwilio(call: DoubleCall): Promise<void> {
  await fetch(`${double.url}/2010-04-01/Accounts/${BOB.sid}/Calls/${call.sid}.json`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${BOB.sid}:${BOB.token}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'Status=canceled',
  });
  await call.done;
}

const postForm = (path: string, params: Record<string, string>, signature: string, body = new URLSearchParams(params).toString()) =>
  fetch(`${local}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body });

describe("status callbacks are checked against the call's own account", () => {
  it("refuses a callback for Bob's call signed with Alice's token, the deployment's, or naming another AccountSid, and changes nothing", async () => {
    const { callId, call } = await bobsRingingCall('+14155550811');
    const path = `/carriers/twilio/status?call=${callId}`;
    const url = `${PUBLIC}${path}`;
    const before = await callRow(callId);
    const attempts: [string, string, Record<string, string>][] = [
      ["Alice's token, Alice's account", ALICE.token, { AccountSid: ALICE.sid }],
      ["Alice's token, Bob's account", ALICE.token, { AccountSid: BOB.sid }],
      ["the deployment's token (Bob has his own)", DEPLOYMENT.token, { AccountSid: DEPLOYMENT.sid }],
      ["Bob's token, Alice's AccountSid", BOB.token, { AccountSid: ALICE.sid }],
      ["Bob's token, the deployment's AccountSid", BOB.token, { AccountSid: DEPLOYMENT.sid }],
    ];
    for (const [what, token, account] of attempts) {
      const reports: Record<string, string>[] = [{ CallStatus: 'busy' }, { CallStatus: 'in-progress', AnsweredBy: 'machine_start' }];
      for (const report of reports) {
        const params = { ...account, CallSid: call.sid, ...report };
        expect((await postForm(path, params, twilioSignature(token, url, params))).status, what).toBe(403);
      }
    }
    // Bob's token, but no account named at all: Twilio always names it.
    const unnamed = { CallSid: call.sid, CallStatus: 'busy' };
    expect((await postForm(path, unnamed, twilioSignature(BOB.token, url, unnamed))).status).toBe(403);
    const after = await callRow(callId);
    expect(after).toEqual(before);
    expect(after).toMatchObject({ status: 'ringing', answered_by: 'unknown' });

    // Bob's own, for his account, moves it.
    const genuine = { AccountSid: BOB.sid, CallSid: call.sid, CallStatus: 'busy' };
    expect((await postForm(path, genuine, twilioSignature(BOB.token, url, genuine))).status).toBe(204);
    await until('busy', async () => (await callRow(callId)).status === 'busy');
    await cancelAtTwilio(call);
  }, 30_000);
});

describe("the voice webhook is checked against the number's account", () => {
  it("refuses a call to Alice's number signed with Bob's or the deployment's token, or naming Bob's account, and creates no call", async () => {
    const number = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, { phone_number: '+14155550820', type_label: 'Normal', carrier: 'twilio' });
    await insertAssistant(t, alice.id, { type: 'inbound', phoneNumberId: number.body.data.id });
    const url = `${PUBLIC}/carriers/twilio/voice`;
    const count = async () => (await t.service.ctx.database.pool.query('SELECT count(*)::int AS n FROM calls WHERE user_id = $1', [alice.id])).rows[0].n;
    const form = (accountSid: string) => ({ AccountSid: accountSid, CallSid: 'CA' + randomBytes(16).toString('hex'), From: '+14155550999', To: '+14155550820', CallStatus: 'ringing' });
    for (const [token, accountSid] of [[BOB.token, BOB.sid], [DEPLOYMENT.token, DEPLOYMENT.sid], [ALICE.token, BOB.sid], [BOB.token, ALICE.sid]]) {
      const params = form(accountSid);
      expect((await postForm('/carriers/twilio/voice', params, twilioSignature(token, url, params))).status).toBe(403);
    }
    expect(await count()).toBe(0);
    // Signed by Alice's account, it answers the call with a stream.
    const params = form(ALICE.sid);
    const res = await postForm('/carriers/twilio/voice', params, twilioSignature(ALICE.token, url, params));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Connect><Stream');
    expect(await count()).toBe(1);
  });
});

describe('media sockets', () => {
  async function openStream(callId: number, token: string, callSid: string): Promise<number> {
    const ws = new WebSocket(`${local.replace('http', 'ws')}/carriers/twilio/media`);
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const streamSid = 'MZ' + '1'.repeat(32);
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(
      JSON.stringify({
        event: 'start',
        sequenceNumber: '1',
        start: { streamSid, accountSid: BOB.sid, callSid, tracks: ['inbound'], customParameters: { call: String(callId), token }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
        streamSid,
      }),
    );
    return new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  }
  const tokenOf = (call: DoubleCall) => /<Parameter name="token" value="([^"]+)"/.exec(call.twiml!)![1];

  it("refuses call A's one-time token with call B's id (either way round), or with B's stream, and spends neither", async () => {
    const a = await bobsRingingCall('+14155550831');
    const b = await bobsRingingCall('+14155550832');
    const before = [await callRow(a.callId), await callRow(b.callId)];
    expect(before.map((r) => r.media_token_hash)).toEqual([expect.any(String), expect.any(String)]);
    expect(await openStream(b.callId, tokenOf(a.call), b.call.sid)).toBe(1008);
    expect(await openStream(a.callId, tokenOf(b.call), a.call.sid)).toBe(1008);
    expect(await openStream(b.callId, tokenOf(a.call), a.call.sid)).toBe(1008);
    // The right call and its own token, but another Twilio call's stream: refused, and the token stays for the real one.
    expect(await openStream(a.callId, tokenOf(a.call), b.call.sid)).toBe(1008);
    // Nothing claimed: both still ring with their tokens unspent and no instance running them.
    expect([await callRow(a.callId), await callRow(b.callId)]).toEqual(before);
    await cancelAtTwilio(a.call);
    await cancelAtTwilio(b.call);
  }, 30_000);
});

describe('body limit', () => {
  it('answers 413 naming the Twilio routes\' 64 KiB limit, and takes a form just under it', async () => {
    const url = `${PUBLIC}/carriers/twilio/voice`;
    const big = { AccountSid: ALICE.sid, To: '+14155550820', Padding: 'x'.repeat(70 * 1024) };
    const res = await postForm('/carriers/twilio/voice', big, twilioSignature(ALICE.token, url, big));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: 'Payload Too Large: the body may be at most 64 KiB.' });
    const status = await postForm('/carriers/twilio/status?call=1', big, 'x');
    expect(status.status).toBe(413);
    expect(await status.json()).toEqual({ message: 'Payload Too Large: the body may be at most 64 KiB.' });
    // Just under the limit it is read (and then refused for its signature, not its size).
    const under = { AccountSid: ALICE.sid, To: '+14155550820', Padding: 'x'.repeat(63 * 1024) };
    expect((await postForm('/carriers/twilio/voice', under, 'not-a-signature')).status).toBe(403);
  });
});
