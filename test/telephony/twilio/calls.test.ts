/**
 * Twilio end to end through the service and the Twilio double (REST with Basic auth, signed
 * callbacks, the person's side of a media stream at real pace): make_call places the call over
 * REST, callbacks move it, the media stream claims it and the session runs on its leg; the
 * unanswered outcomes, answering-machine verdicts, inbound calls and refusals; forged callbacks
 * and media sockets with a wrong or reused token are refused and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { callEnginePart } from '../../../src/calls/index.js';
import { twilioSignature } from '../../../src/telephony/twilio/signature.js';
import { TwilioDouble, type DoubleCall } from '../../support/doubles/twilio.js';
import { insertAssistant } from '../../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../../support/service.js';
import { PUBLIC, twilioEnv } from '../../support/twilio-service.js';

let double: TwilioDouble;
let t: TestService;
let alice: TestUser;
let bob: TestUser;
let outboundAssistant: number;
let local = '';

/** Twilio reaches our public URL; here that is the test service's port. */
const route = (url: string) => url.replace(PUBLIC, local).replace(PUBLIC.replace('https', 'wss'), local.replace('http', 'ws'));

beforeAll(async () => {
  double = await TwilioDouble.start({ route: (url) => route(url) });
  t = await startTestService({
    listen: true,
    parts: [callEnginePart],
    env: {
      ...twilioEnv(double),
    },
  });
  local = t.service.url!;
  alice = await t.createUser({ name: 'Alice' });
  bob = await t.createUser({ name: 'Bob' });
  const number = await t.admin.post(`/api/admin/users/${alice.id}/phone-numbers`, {
    phone_number: '+14155550100',
    type_label: 'Normal',
    carrier: 'twilio',
    carrier_sid: 'PN' + 'b'.repeat(32),
  });
  outboundAssistant = (await insertAssistant(t, alice.id, { phoneNumberId: number.body.data.id, maxDuration: 30, initialMessage: 'Hello, this is Switchboard.' })).id;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function callRow(id: number) {
  const { rows } = await t.service.ctx.database.pool.query('SELECT * FROM calls WHERE id = $1', [id]);
  return rows[0];
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function finalStatus(callId: number): Promise<Record<string, any>> {
  return until(`call ${callId} to end`, async () => {
    const row = await callRow(callId);
    return ['initiated', 'ringing', 'in-progress'].includes(row.status) ? null : row;
  });
}

async function makeCall(to: string): Promise<{ callId: number; call: DoubleCall }> {
  const res = await alice.post('/api/user/make_call', { phone_number: to, assistant_id: outboundAssistant });
  expect(res.status).toBe(200);
  const callId = Number(res.body.call_id ?? res.body.data?.call_id ?? res.body.id);
  return { callId, call: await double.callTo(to) };
}

describe('Twilio outbound', () => {
  it('places the call over REST with stream TwiML, a one-time token, callbacks, AMD and a time limit; the stream runs it; the caller hangs up', async () => {
    double.script('+14155550111', { ringMs: 300, steps: [{ pause: 1200 }, { dtmf: '5' }, { pause: 300 }, { hangUp: true }] });
    const { callId, call } = await makeCall('+14155550111');
    const create = double.requests.find((r) => r.path.endsWith('/Calls.json'))!;
    expect(create.user).toBe(double.accountSid);
    expect(create.form.get('From')).toBe('+14155550100');
    expect(create.form.get('StatusCallback')).toBe(`${PUBLIC}/carriers/twilio/status?call=${callId}`);
    expect(create.form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(create.form.get('MachineDetection')).toBe('Enable');
    expect(create.form.get('AsyncAmd')).toBe('true');
    expect(Number(create.form.get('TimeLimit'))).toBeGreaterThanOrEqual(30);
    const twiml = create.form.get('Twiml')!;
    expect(twiml).toContain('<Connect><Stream url="wss://sb.example/carriers/twilio/media"');
    expect(twiml).toContain(`<Parameter name="call" value="${callId}"/>`);
    expect(twiml).toMatch(/<Parameter name="token" value="[A-Za-z0-9_-]{20,}"\/>/);

    await call.done;
    const row = await finalStatus(callId);
    expect(row.status).toBe('ended_by_customer');
    expect(row.carrier).toBe('twilio');
    expect(row.carrier_call_sid).toBe(call.sid);
    expect(row.media_token_hash).toBeNull();
    expect(row.answered_at).not.toBeNull();
    expect(call.endedBy).toBe('person');
    // Every status callback verified (2xx), in order.
    expect(call.callbacks.filter((c) => c.kind === 'status').map((c) => [c.params.CallStatus, c.status])).toEqual([
      ['initiated', 204],
      ['ringing', 204],
      ['in-progress', 204],
      ['completed', 204],
    ]);
    // Carrier cost: Twilio's price for the call (one started minute at the double's rate).
    expect(Number(row.carrier_cost)).toBeCloseTo(0.014, 6);
  }, 30_000);

  it.each([
    ['busy', '+14155550191'],
    ['no-answer', '+14155550192'],
    ['failed', '+14155550193'],
  ] as const)('maps %s from the status callback onto the call', async (outcome, to) => {
    double.script(to, { outcome, ringMs: 200, connectMs: 50 });
    const { callId, call } = await makeCall(to);
    await call.done;
    const row = await finalStatus(callId);
    expect(row.status).toBe(outcome);
    expect(row.answered_at).toBeNull();
    expect(Number(row.duration)).toBe(0);
  }, 20_000);

  it('records a machine verdict of asynchronous AMD on the call', async () => {
    double.script('+14155550194', { ringMs: 100, answeredBy: 'machine_end_beep', amdMs: 300, steps: [{ pause: 1500 }, { hangUp: true }] });
    const { callId, call } = await makeCall('+14155550194');
    await call.done;
    const row = await finalStatus(callId);
    expect(call.callbacks.find((c) => c.kind === 'amd')).toMatchObject({ status: 204, params: { AnsweredBy: 'machine_end_beep' } });
    expect(row.answered_by).toBe('machine');
  }, 20_000);

  it('ends the call on a machine verdict when the assistant has end_call_on_voicemail', async () => {
    const hangsUpOnMachines = await insertAssistant(t, alice.id, { phoneNumberId: (await callRowNumber()).id, endCallOnVoicemail: true, maxDuration: 30 });
    double.script('+14155550196', { ringMs: 100, answeredBy: 'machine_start', amdMs: 400, steps: [] });
    const res = await alice.post('/api/user/make_call', { phone_number: '+14155550196', assistant_id: hangsUpOnMachines.id });
    const call = await double.callTo('+14155550196');
    await call.done;
    const row = await finalStatus(Number(res.body.call_id));
    expect(row).toMatchObject({ status: 'ended_by_assistant', answered_by: 'machine' });
    expect(call.endedBy === 'service' || call.endedBy === 'rest').toBe(true);
  }, 20_000);

  it('ends the call at Twilio over REST when the assistant ends it (max_duration)', async () => {
    const shortOne = await insertAssistant(t, alice.id, {
      phoneNumberId: (await callRowNumber()).id,
      maxDuration: 2,
      type: 'outbound',
    });
    double.script('+14155550195', { ringMs: 100, steps: [] });
    const res = await alice.post('/api/user/make_call', { phone_number: '+14155550195', assistant_id: shortOne.id });
    const callId = Number(res.body.call_id);
    const call = await double.callTo('+14155550195');
    await call.done;
    const row = await finalStatus(callId);
    expect(['completed', 'ended_by_assistant', 'ended']).toContain(row.status);
    expect(call.endedBy === 'service' || call.endedBy === 'rest').toBe(true);
    expect(Number(row.duration)).toBeGreaterThanOrEqual(1);
  }, 20_000);
});

async function callRowNumber(): Promise<{ id: number }> {
  const { rows } = await t.service.ctx.database.pool.query(`SELECT id FROM phone_numbers WHERE phone_number = '+14155550100'`);
  return rows[0];
}

describe('Twilio callbacks and media sockets are checked', () => {
  async function placedCall(): Promise<{ callId: number; call: DoubleCall }> {
    double.script('+14155550181', { ringMs: 60_000 });
    const placed = await makeCall('+14155550181');
    await until('ringing', async () => (await callRow(placed.callId)).status === 'ringing');
    return placed;
  }

  it('refuses forged status callbacks with 403 and changes nothing', async () => {
    const { callId, call } = await placedCall();
    const url = `${PUBLIC}/carriers/twilio/status?call=${callId}`;
    const params = { AccountSid: double.accountSid, CallSid: call.sid, CallStatus: 'busy' };
    const post = (path: string, body: Record<string, string>, signature: string) =>
      fetch(`${local}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(body).toString() });
    const path = `/carriers/twilio/status?call=${callId}`;
    // wrong signature (another auth token), wrong URL (signed for another call), an altered field, none at all
    expect((await post(path, params, twilioSignature('x'.repeat(32), url, params))).status).toBe(403);
    expect((await post(path, params, twilioSignature(double.authToken, `${PUBLIC}/carriers/twilio/status?call=${callId + 1}`, params))).status).toBe(403);
    expect((await post(path, { ...params, CallStatus: 'failed' }, twilioSignature(double.authToken, url, params))).status).toBe(403);
    expect((await post(path, params, '')).status).toBe(403);
    // a well-signed callback naming an unknown call, or another call's sid
    expect((await post(`/carriers/twilio/status?call=999999`, params, twilioSignature(double.authToken, `${PUBLIC}/carriers/twilio/status?call=999999`, params))).status).toBe(403);
    const otherSid = { ...params, CallSid: 'CA' + '0'.repeat(32) };
    expect((await post(path, otherSid, twilioSignature(double.authToken, url, otherSid))).status).toBe(403);
    expect((await callRow(callId)).status).toBe('ringing');
    // the genuine one works
    expect((await post(path, params, twilioSignature(double.authToken, url, params))).status).toBe(204);
    expect((await finalStatus(callId)).status).toBe('busy');
    await fetch(`${double.url}/2010-04-01/Accounts/${double.accountSid}/Calls/${call.sid}.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${double.accountSid}:${double.authToken}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Status=canceled',
    });
  }, 20_000);

  it('closes a media socket with a wrong token, and one reusing a spent token', async () => {
    double.script('+14155550182', { ringMs: 100, steps: [{ pause: 2000 }, { hangUp: true }] });
    const { callId, call } = await makeCall('+14155550182');
    const token = /<Parameter name="token" value="([^"]+)"/.exec(call.twiml!)![1];
    const open = async (parameters: Record<string, string>) => {
      const ws = new WebSocket(`${local.replace('http', 'ws')}/carriers/twilio/media`);
      await new Promise((r, j) => ws.once('open', r).once('error', j));
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      ws.send(
        JSON.stringify({
          event: 'start',
          sequenceNumber: '1',
          start: { streamSid: 'MZ' + '1'.repeat(32), accountSid: double.accountSid, callSid: call.sid, tracks: ['inbound'], customParameters: parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
          streamSid: 'MZ' + '1'.repeat(32),
        }),
      );
      return new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    };
    expect(await open({ call: String(callId), token: 'not-the-token' })).toBe(1008);
    await call.done;
    expect((await finalStatus(callId)).status).toBe('ended_by_customer');
    // The double's stream spent the token: the same token again is refused.
    expect(await open({ call: String(callId), token })).toBe(1008);
  }, 20_000);
});

describe('Twilio inbound', () => {
  it("answers a call to an inbound assistant's number with a stream; the call runs and ends", async () => {
    const number = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550300', type_label: 'Normal', carrier: 'twilio' });
    await insertAssistant(t, bob.id, { type: 'inbound', phoneNumberId: number.body.data.id, name: 'Reception' });
    const call = double.inboundCall({ from: '+14155550999', to: '+14155550300', voiceUrl: `${PUBLIC}/carriers/twilio/voice`, steps: [{ pause: 1000 }, { hangUp: true }] });
    await call.done;
    expect(call.callbacks[0]).toMatchObject({ kind: 'voice', status: 200 });
    expect(call.twiml).toContain('<Connect><Stream');
    const { rows } = await t.service.ctx.database.pool.query(`SELECT * FROM calls WHERE user_id = $1 AND type = 'inbound'`, [bob.id]);
    expect(rows).toHaveLength(1);
    const row = await finalStatus(rows[0].id);
    expect(row).toMatchObject({ status: 'ended_by_customer', assistant_name: 'Reception', client_phone_number: '+14155550999', carrier_call_sid: call.sid });
    // Bob's call is Bob's: Alice does not see it.
    expect((await alice.get(`/api/user/calls/${row.id}`)).status).toBe(404);
    expect((await bob.get(`/api/user/calls/${row.id}`)).status).toBe(200);
  }, 20_000);

  it('turns a call away politely, with a call record saying why, when the assistant is inactive or there is none', async () => {
    const number = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550301', type_label: 'Normal', carrier: 'twilio' });
    const idle = await insertAssistant(t, bob.id, { type: 'inbound', phoneNumberId: number.body.data.id, status: 'inactive' });
    const call = double.inboundCall({ from: '+14155550998', to: '+14155550301', voiceUrl: `${PUBLIC}/carriers/twilio/voice` });
    await call.done;
    expect(call.said[0]).toMatch(/cannot take your call/);
    expect(call.twiml).toContain('<Hangup/>');
    const { rows } = await t.service.ctx.database.pool.query(`SELECT status, evaluation FROM calls WHERE assistant_id = $1`, [idle.id]);
    expect(rows).toEqual([{ status: 'failed', evaluation: { refused: 'the inbound assistant is not active' } }]);

    await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550302', type_label: 'Normal', carrier: 'twilio' });
    const none = double.inboundCall({ from: '+14155550997', to: '+14155550302', voiceUrl: `${PUBLIC}/carriers/twilio/voice` });
    await none.done;
    expect(none.said[0]).toMatch(/cannot take your call/);
    const refused = await t.service.ctx.database.pool.query(`SELECT evaluation FROM calls WHERE assistant_phone_number = '+14155550302'`);
    expect(refused.rows).toEqual([{ evaluation: { refused: 'no inbound assistant holds this number' } }]);
  }, 20_000);

  it('refuses a forged voice webhook with 403 and creates no call', async () => {
    const before = (await t.service.ctx.database.pool.query('SELECT count(*)::int AS n FROM calls')).rows[0].n;
    const params = { AccountSid: double.accountSid, CallSid: 'CA' + '9'.repeat(32), From: '+14155550990', To: '+14155550300', CallStatus: 'ringing' };
    const res = await fetch(`${local}/carriers/twilio/voice`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature('y'.repeat(32), `${PUBLIC}/carriers/twilio/voice`, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status).toBe(403);
    expect((await t.service.ctx.database.pool.query('SELECT count(*)::int AS n FROM calls')).rows[0].n).toBe(before);
  });
});

// Last in this file: it puts the engine into its shutdown state for good.
describe('Twilio while the instance shuts down (SIGTERM)', () => {
  it('turns an inbound call away politely, with a call record saying why; make_call answers 503', async () => {
    const number = await t.admin.post(`/api/admin/users/${bob.id}/phone-numbers`, { phone_number: '+14155550303', type_label: 'Normal', carrier: 'twilio' });
    const late = await insertAssistant(t, bob.id, { type: 'inbound', phoneNumberId: number.body.data.id, name: 'Late' });
    // What src/service.ts does first on SIGTERM (the drain itself: test/reliability/shutdown-live-calls.test.ts).
    t.service.ctx.services.callEngine!.beginShutdown();
    const call = double.inboundCall({ from: '+14155550996', to: '+14155550303', voiceUrl: `${PUBLIC}/carriers/twilio/voice` });
    await call.done;
    expect(call.callbacks[0]).toMatchObject({ kind: 'voice', status: 200 });
    expect(call.said[0]).toMatch(/cannot take your call/);
    expect(call.twiml).toContain('<Hangup/>');
    const { rows } = await t.service.ctx.database.pool.query(`SELECT status, evaluation FROM calls WHERE assistant_id = $1`, [late.id]);
    expect(rows).toEqual([{ status: 'failed', evaluation: { refused: 'the instance it reached was shutting down' } }]);
    const res = await alice.post('/api/user/make_call', { phone_number: '+14155550199', assistant_id: outboundAssistant });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ message: 'The service is shutting down and takes no new calls; please try again in a moment.' });
  }, 20_000);
});
