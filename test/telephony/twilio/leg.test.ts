/**
 * TwilioLeg over a live stream from the double: the events the voice core gets (answered,
 * the later AMD verdict, DTMF, the caller hanging up) and our hang-up (stream closed and the
 * call ended over REST, with no `hung-up` event after it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredByOf, TwilioLeg } from '../../../src/telephony/twilio/leg.js';
import { TwilioRestClient } from '../../../src/telephony/twilio/rest-client.js';
import { connectStreamTwiml } from '../../../src/telephony/twilio/twiml.js';
import type { LegEvent } from '../../../src/telephony/types.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import type { PersonStep } from '../../support/doubles/twilio-media.js';
import { startStreamServer, until, type StreamServer } from './stream-server.js';

describe('TwilioLeg', () => {
  let double: TwilioDouble;
  let client: TwilioRestClient;
  let streams: StreamServer;
  const legs: Array<{ leg: TwilioLeg; events: LegEvent[] }> = [];

  beforeAll(async () => {
    streams = await startStreamServer((stream) => {
      const leg = new TwilioLeg(stream, { hangUpCall: async () => void (await client.hangUp(stream.callSid)) });
      const events: LegEvent[] = [];
      leg.onEvent((e) => events.push(e));
      legs.push({ leg, events });
      return stream;
    });
    double = await TwilioDouble.start({ speed: 4, route: streams.route });
    client = new TwilioRestClient({ apiUrl: double.url, credentials: { accountSid: double.accountSid, authToken: double.authToken } });
  });

  afterAll(async () => {
    await double.close();
    await streams.close();
  });

  async function place(to: string, steps: PersonStep[]) {
    double.script(to, { ringMs: 100, steps });
    const before = legs.length;
    const created = await client.createCall({ to, from: '+4930123456', twiml: connectStreamTwiml({ url: 'wss://sb.example/m' }) });
    await until(() => legs.length > before);
    return { ...legs[legs.length - 1], call: double.calls.get(created.sid)! };
  }

  it('answers, passes DTMF and a late AMD verdict on, and reports the caller hanging up', async () => {
    const { leg, events, call } = await place('+4915100000001', [{ pause: 300 }, { dtmf: '7*' }, { pause: 300 }, { hangUp: true }]);
    leg.start();
    leg.answeredBy('machine');
    await call.done;
    await until(() => events.some((e) => e.type === 'hung-up'));
    expect(events).toEqual([
      { type: 'answered', answeredBy: 'unknown' },
      { type: 'answered-by', answeredBy: 'machine' },
      { type: 'dtmf', digit: '7' },
      { type: 'dtmf', digit: '*' },
      { type: 'hung-up' },
    ]);
  });

  it('hangs up: the stream closes, Twilio is told over REST, and no hung-up event follows', async () => {
    const { leg, events, call } = await place('+4915100000002', []);
    leg.start();
    leg.hangUp('goodbye');
    const done = await call.done;
    expect(done.status).toBe('completed');
    expect(['service', 'rest']).toContain(done.endedBy);
    await until(() => double.requests.some((r) => r.path.endsWith(`${call.sid}.json`) && r.form.get('Status') === 'completed'));
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([{ type: 'answered', answeredBy: 'unknown' }]);
  });

  it('maps Twilio AnsweredBy values', () => {
    expect(['human', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax', 'unknown', '', null].map(answeredByOf)).toEqual([
      'human',
      'machine',
      'machine',
      'machine',
      'machine',
      'machine',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });
});
