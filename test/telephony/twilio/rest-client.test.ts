/**
 * The REST client against the Twilio double: what goes on the wire, Basic auth, errors, and
 * the signed status callbacks the double sends back for each scripted outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidTwilioSignature } from '../../../src/telephony/twilio/signature.js';
import { TwilioApiError, TwilioRestClient } from '../../../src/telephony/twilio/rest-client.js';
import { hangUpTwiml } from '../../../src/telephony/twilio/twiml.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import { until } from './stream-server.js';

const PUBLIC = 'https://sb.example';

describe('Twilio REST client and status callbacks', () => {
  let double: TwilioDouble;
  let receiver: Receiver;
  let client: TwilioRestClient;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 204 }));
    double = await TwilioDouble.start({
      speed: 10,
      apiKeys: { SK0123456789abcdef0123456789abcdef: 'key-secret' },
      route: (url) => url.replace(PUBLIC, receiver.url),
    });
    client = new TwilioRestClient({ apiUrl: double.url + '/', credentials: { accountSid: double.accountSid, authToken: double.authToken } });
  });

  afterAll(async () => {
    await double.close();
    await receiver.close();
  });

  function callbacksFor(callSid: string) {
    return receiver.received
      .map((r) => ({ path: r.path, signature: String(r.headers['x-twilio-signature']), form: new URLSearchParams(r.body) }))
      .filter((r) => r.form.get('CallSid') === callSid);
  }

  it('creates a call with every parameter on the wire, and reports progress through signed callbacks', async () => {
    double.script('+4915100000010', { ringMs: 300 });
    const call = await client.createCall({
      to: '+4915100000010',
      from: '+4930123456',
      twiml: hangUpTwiml(),
      statusCallback: `${PUBLIC}/carriers/twilio/status?call=1`,
      statusCallbackEvents: ['initiated', 'ringing', 'answered', 'completed'],
      timeout: 25,
      timeLimit: 600,
      machineDetection: 'Enable',
      asyncAmdStatusCallback: `${PUBLIC}/carriers/twilio/status?call=1&amd=1`,
    });
    expect(call.sid).toMatch(/^CA[0-9a-f]{32}$/);
    expect(call.status).toBe('queued');

    const request = double.requests.at(-1)!;
    expect(request.user).toBe(double.accountSid);
    expect(request.path).toBe(`/2010-04-01/Accounts/${double.accountSid}/Calls.json`);
    expect(Object.fromEntries(request.form)).toMatchObject({
      To: '+4915100000010',
      From: '+4930123456',
      Twiml: hangUpTwiml(),
      StatusCallback: `${PUBLIC}/carriers/twilio/status?call=1`,
      StatusCallbackMethod: 'POST',
      Timeout: '25',
      TimeLimit: '600',
      MachineDetection: 'Enable',
      AsyncAmd: 'true',
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    expect(request.form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);

    const done = await double.calls.get(call.sid)!.done;
    expect(done.status).toBe('completed');
    const callbacks = callbacksFor(call.sid).filter((c) => c.path === '/carriers/twilio/status?call=1');
    expect(callbacks.map((c) => c.form.get('CallStatus'))).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(callbacks.map((c) => c.form.get('SequenceNumber'))).toEqual(['0', '1', '2', '3']);
    for (const c of callbacks) {
      // Signed over the public URL Twilio was given, not the address it reached.
      expect(isValidTwilioSignature(double.authToken, c.signature, `${PUBLIC}${c.path}`, c.form)).toBe(true);
      expect(isValidTwilioSignature(double.authToken, c.signature, `${receiver.url}${c.path}`, c.form)).toBe(false);
      expect(c.form.get('Direction')).toBe('outbound-api');
    }
    expect(callbacks.at(-1)!.form.get('CallDuration')).toMatch(/^\d+$/);

    const fetched = await client.fetchCall(call.sid);
    expect(fetched.status).toBe('completed');
    expect(fetched.price).toMatch(/^-\d+\.\d+$/);
  });

  it.each([
    ['busy', ['initiated', 'busy']],
    ['no-answer', ['initiated', 'ringing', 'no-answer']],
    ['failed', ['initiated', 'failed']],
  ] as const)('reports a %s callee', async (outcome, statuses) => {
    const to = `+49151000002${statuses.length}${outcome.length}`;
    double.script(to, { outcome, ringMs: 500 });
    const call = await client.createCall({
      to,
      from: '+4930123456',
      twiml: hangUpTwiml(),
      statusCallback: `${PUBLIC}/carriers/twilio/status`,
      statusCallbackEvents: ['initiated', 'ringing', 'answered', 'completed'],
    });
    await double.calls.get(call.sid)!.done;
    expect(callbacksFor(call.sid).map((c) => c.form.get('CallStatus'))).toEqual(statuses);
  });

  it('gives up ringing after Timeout seconds as no-answer', async () => {
    double.script('+4915100000030', { ringMs: 30_000 });
    const call = await client.createCall({ to: '+4915100000030', from: '+4930123456', twiml: hangUpTwiml(), statusCallback: `${PUBLIC}/carriers/twilio/status`, timeout: 2 });
    await double.calls.get(call.sid)!.done;
    // No events asked for: Twilio posts only the final one.
    expect(callbacksFor(call.sid).map((c) => c.form.get('CallStatus'))).toEqual(['no-answer']);
  });

  it('posts the asynchronous AMD verdict to its own callback', async () => {
    double.script('+4915100000040', { ringMs: 100, answeredBy: 'machine_start', amdMs: 500 });
    const call = await client.createCall({
      to: '+4915100000040',
      from: '+4930123456',
      twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="20"/></Response>',
      machineDetection: 'Enable',
      asyncAmdStatusCallback: `${PUBLIC}/carriers/twilio/status?amd=1`,
    });
    await until(() => callbacksFor(call.sid).some((c) => c.form.get('AnsweredBy')));
    const amd = callbacksFor(call.sid).find((c) => c.form.get('AnsweredBy'))!;
    expect(amd.path).toBe('/carriers/twilio/status?amd=1');
    expect(amd.form.get('AnsweredBy')).toBe('machine_start');
    expect(amd.form.get('MachineDetectionDuration')).toBe('500');
    expect(isValidTwilioSignature(double.authToken, amd.signature, `${PUBLIC}${amd.path}`, amd.form)).toBe(true);
    await client.hangUp(call.sid);
  });

  it('hangs up a ringing call (canceled); a call Twilio does not know is already ended (20404)', async () => {
    double.script('+4915100000050', { ringMs: 20_000 });
    const call = await client.createCall({ to: '+4915100000050', from: '+4930123456', twiml: hangUpTwiml(), statusCallback: `${PUBLIC}/carriers/twilio/status` });
    await until(() => double.calls.get(call.sid)!.status === 'ringing');
    expect(await client.hangUp(call.sid)).toBe('ended');
    const done = await double.calls.get(call.sid)!.done;
    expect(done.status).toBe('canceled');
    expect(done.endedBy).toBe('rest');
    expect(double.requests.at(-1)!.form.get('Status')).toBe('completed');
    expect(await client.hangUp('CA' + '0'.repeat(32))).toBe('already-ended');
  });

  it('refuses to redirect a call that is not in progress (21220)', async () => {
    double.script('+4915100000060', { outcome: 'busy' });
    const call = await client.createCall({ to: '+4915100000060', from: '+4930123456', twiml: hangUpTwiml() });
    await double.calls.get(call.sid)!.done;
    const err = await client.redirect(call.sid, hangUpTwiml()).catch((e) => e);
    expect(err).toBeInstanceOf(TwilioApiError);
    expect(err.code).toBe(21220);
  });

  it('authenticates with an API key, and reports wrong credentials as 401 (20003)', async () => {
    const withKey = new TwilioRestClient({
      apiUrl: double.url,
      credentials: { accountSid: double.accountSid, authToken: double.authToken, apiKeySid: 'SK0123456789abcdef0123456789abcdef', apiKeySecret: 'key-secret' },
    });
    double.script('+4915100000070', { outcome: 'failed' });
    await withKey.createCall({ to: '+4915100000070', from: '+4930123456', twiml: hangUpTwiml() });
    expect(double.requests.at(-1)!.user).toBe('SK0123456789abcdef0123456789abcdef');

    const wrong = new TwilioRestClient({ apiUrl: double.url, credentials: { accountSid: double.accountSid, authToken: 'wrong' } });
    const err = await wrong.createCall({ to: '+4915100000071', from: '+4930123456', twiml: hangUpTwiml() }).catch((e) => e);
    expect(err).toBeInstanceOf(TwilioApiError);
    expect([err.status, err.code]).toEqual([401, 20003]);
    expect(double.requests.at(-1)!.user).toBeNull();
  });
});

