/**
 * The media-stream leg (TwilioMediaStream) against the Twilio double's caller side, over a
 * real WebSocket: audio both ways at pace, marks, clear, DTMF, hang-ups. The "service" here
 * is a bare `ws` server that wraps each socket in TwilioMediaStream, as the carrier does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, rms } from '../../../src/audio/pcm.js';
import { MediaProtocolError, parseMediaMessage } from '../../../src/telephony/twilio/media-protocol.js';
import { dtmfTones } from '../../../src/audio/dtmf.js';
import { isValidTwilioSignature } from '../../../src/telephony/twilio/signature.js';
import { connectStreamTwiml } from '../../../src/telephony/twilio/twiml.js';
import { TwilioRestClient } from '../../../src/telephony/twilio/rest-client.js';
import { TwilioDouble } from '../../support/doubles/twilio.js';
import type { PersonStep } from '../../support/doubles/twilio-media.js';
import { chirp, correlation, startStreamServer, until, type StreamServer } from './stream-server.js';

describe('Twilio media stream with the double', () => {
  let streams: StreamServer;
  let sides: StreamServer['sides'];
  let route: StreamServer['route'];

  beforeAll(async () => {
    streams = await startStreamServer();
    sides = streams.sides;
    route = streams.route;
  });

  afterAll(async () => {
    await streams.close();
  });

  async function placeCall(double: TwilioDouble, steps: PersonStep[], to = '+4915112345678') {
    double.script(to, { steps, ringMs: 200 });
    const client = new TwilioRestClient({ apiUrl: double.url, credentials: { accountSid: double.accountSid, authToken: double.authToken } });
    const before = sides.length;
    const created = await client.createCall({
      to,
      from: '+4930123456',
      twiml: connectStreamTwiml({ url: 'wss://sb.example/carriers/twilio/media', parameters: { token: 'one-time', call_id: '7' } }),
    });
    const call = double.calls.get(created.sid)!;
    await until(() => sides.length > before && call.person !== null);
    return { call, side: sides[sides.length - 1], client };
  }

  it('carries the caller audio at pace, with the TwiML parameters in start', async () => {
    const double = await TwilioDouble.start({ speed: 4, route });
    try {
      const said = chirp(600);
      const { call, side } = await placeCall(double, [{ pause: 200 }, { say: said }, { pause: 300 }, { hangUp: true }]);
      expect(side.stream.start.customParameters).toEqual({ token: 'one-time', call_id: '7' });
      expect(side.stream.start.callSid).toBe(call.sid);
      expect(side.stream.start.mediaFormat).toEqual({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 });
      await call.done;
      expect(call.status).toBe('completed');
      expect(call.endedBy).toBe('person');
      await until(() => side.stopped);
      const heard = concat(side.heard);
      // 200 ms silence, 600 ms chirp, 300 ms silence, all in 20 ms frames; μ-law keeps the signal.
      expect(side.heard.every((f) => f.length === 160)).toBe(true);
      expect(heard.length).toBeGreaterThanOrEqual(8000 * 1.1 - 160);
      const signal = heard.subarray(1600, 1600 + said.length);
      expect(correlation(signal, said)).toBeGreaterThan(0.99);
      expect(rms(heard.subarray(0, 1500))).toBe(0);
    } finally {
      await double.close();
    }
  });

  it('plays what the service sends at pace, echoes marks after it played, and clear drops the rest', async () => {
    const double = await TwilioDouble.start({ speed: 4, route });
    try {
      const { call, side } = await placeCall(double, [{ waitUntilHearing: { afterMs: 900 } }, { say: chirp(300) }, { pause: 2000 }, { hangUp: true }]);
      const first = chirp(500, 300, 900);
      side.stream.play(first);
      side.stream.mark('first');
      const second = chirp(3000, 500, 2000);
      side.stream.play(second);
      side.stream.mark('second');
      // The caller talks over the assistant 400 ms into the second utterance: barge in.
      await until(() => side.heard.length > 0 && rms(concat(side.heard).subarray(-160)) > 1000);
      side.stream.clear();
      await call.done;
      const person = call.person!;
      expect(side.marks).toEqual([
        ['first', false],
        ['second', true],
      ]);
      expect(person.clears).toHaveLength(1);
      expect(person.marks.map((m) => [m.name, m.cleared])).toEqual([
        ['m1', false],
        ['m2', true],
      ]);
      // The first utterance was heard whole, then part of the second until the clear, then nothing.
      const heard = person.heardTimeline();
      const start = person.heard[0].atMs;
      expect(correlation(heard.subarray((start / 1000) * 8000, (start / 1000) * 8000 + first.length), first)).toBeGreaterThan(0.99);
      const lastPlayed = Math.max(...person.heard.map((s) => s.atMs + (s.samples.length / 8000) * 1000));
      expect(lastPlayed).toBeLessThanOrEqual(person.clears[0] + 20);
      expect(lastPlayed - start).toBeLessThan(500 + 3000);
      expect(person.playedFrames * 160).toBeLessThan(first.length + second.length);
    } finally {
      await double.close();
    }
  });

  it('sends DTMF as events, and hears DTMF tones the service plays', async () => {
    const double = await TwilioDouble.start({ speed: 4, route });
    try {
      const { call, side } = await placeCall(double, [{ pause: 100 }, { dtmf: '4#' }, { pause: 1500 }, { hangUp: true }]);
      await side.stream.sendDigits('12');
      await call.done;
      expect(side.digits).toEqual(['4', '#']);
      const heard = call.person!.heardTimeline();
      const tones = dtmfTones('12', 8000);
      const at = (call.person!.heard[0].atMs / 1000) * 8000;
      expect(correlation(heard.subarray(at, at + tones.length), tones)).toBeGreaterThan(0.99);
    } finally {
      await double.close();
    }
  });

  it('ends the call when the service closes the stream, and stops the stream on a REST hang-up', async () => {
    const double = await TwilioDouble.start({ speed: 4, route });
    try {
      const a = await placeCall(double, [], '+4915100000001');
      a.side.stream.close();
      await a.call.done;
      expect(a.call.status).toBe('completed');
      expect(a.call.endedBy).toBe('service');

      const b = await placeCall(double, [], '+4915100000002');
      expect(await b.client.hangUp(b.call.sid)).toBe('ended');
      await b.call.done;
      expect(b.call.endedBy).toBe('rest');
      await until(() => b.side.stopped);
      expect(b.call.person!.events.some((e) => e.type === 'out:stop')).toBe(true);
      expect(await b.client.hangUp(b.call.sid)).toBe('ended'); // already over: Twilio answers 200 with the call
    } finally {
      await double.close();
    }
  });

  it('inbound: posts the signed voice webhook and follows its TwiML (a stream, or a spoken refusal)', async () => {
    const voice: Array<{ signature: string; form: URLSearchParams; path: string }> = [];
    let answer = connectStreamTwiml({ url: 'wss://sb.example/carriers/twilio/media', parameters: { token: 'in-1' } });
    const webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        voice.push({ signature: String(req.headers['x-twilio-signature']), form: new URLSearchParams(body), path: req.url ?? '' });
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(answer);
      });
    });
    await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
    const webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    const double = await TwilioDouble.start({
      speed: 4,
      route: (url, kind) => (kind === 'media' ? route(url) : url.replace('https://sb.example', webhookUrl)),
    });
    try {
      const before = sides.length;
      const call = double.inboundCall({ from: '+4917600000001', to: '+4930123456', voiceUrl: 'https://sb.example/carriers/twilio/voice', steps: [{ say: chirp(200) }, { hangUp: true }] });
      await call.done;
      expect(call.endedBy).toBe('person');
      expect(sides.length).toBe(before + 1);
      expect(sides.at(-1)!.stream.start.customParameters).toEqual({ token: 'in-1' });
      const hook = voice[0];
      expect(Object.fromEntries(hook.form)).toMatchObject({ From: '+4917600000001', To: '+4930123456', Direction: 'inbound', CallStatus: 'ringing', CallSid: call.sid });
      expect(isValidTwilioSignature(double.authToken, hook.signature, 'https://sb.example/carriers/twilio/voice', hook.form)).toBe(true);

      answer = '<?xml version="1.0" encoding="UTF-8"?><Response><Say language="en-US">Sorry &amp; goodbye.</Say><Hangup/></Response>';
      const refused = double.inboundCall({ from: '+4917600000002', to: '+4930999999', voiceUrl: 'https://sb.example/carriers/twilio/voice' });
      await refused.done;
      expect(refused.said).toEqual(['Sorry & goodbye.']);
      expect(refused.person).toBeNull();
      expect(refused.endedBy).toBe('service');
    } finally {
      await double.close();
      webhook.closeAllConnections();
      await new Promise((r) => webhook.close(r));
    }
  });

  it('reads Twilio messages and refuses what is not one', () => {
    expect(parseMediaMessage('{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"2","timestamp":"20","payload":"//8="},"streamSid":"MZ1"}')).toEqual({
      event: 'media',
      sequenceNumber: 3,
      track: 'inbound',
      chunk: 2,
      timestamp: 20,
      payload: '//8=',
    });
    expect(parseMediaMessage('{"event":"something-new"}')).toBeNull();
    expect(() => parseMediaMessage('not json')).toThrow(MediaProtocolError);
    expect(() => parseMediaMessage('{"event":"media","sequenceNumber":"1"}')).toThrow(MediaProtocolError);
    expect(() => parseMediaMessage('[1]')).toThrow(MediaProtocolError);
  });
});

