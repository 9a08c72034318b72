import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { conferenceTwiml, connectStreamTwiml, dialTwiml, escapeXml, hangUpTwiml, sayAndHangUpTwiml, sayAndWaitTwiml, waitTwiml } from '../../../src/telephony/twilio/twiml.js';

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', preserveOrder: false });

describe('TwiML', () => {
  it('opens a bidirectional stream with its parameters', () => {
    const xml = connectStreamTwiml({
      url: 'wss://sb.example.com/carriers/twilio/media',
      parameters: { call_id: '17', token: 'tok' },
      name: 'call-17',
    });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://sb.example.com/carriers/twilio/media" name="call-17">' +
        '<Parameter name="call_id" value="17"/><Parameter name="token" value="tok"/></Stream></Connect></Response>',
    );
  });

  it('escapes every attribute and text, so a hostile string stays one value', () => {
    const hostile = `"/><Hangup/><Say a='1'>&amp;`;
    const xml = connectStreamTwiml({ url: 'wss://x/m', parameters: { v: hostile } });
    const doc = parser.parse(xml);
    expect(doc.Response.Connect.Stream.Parameter['@value']).toBe(hostile);
    expect(doc.Response.Hangup).toBeUndefined();

    const said = sayAndHangUpTwiml(`Tom & Jerry <b>'s</b> "line"`, { language: 'en-US' });
    const parsed = parser.parse(said);
    expect(parsed.Response.Say['#text']).toBe(`Tom & Jerry <b>'s</b> "line"`);
    expect(parsed.Response.Say['@language']).toBe('en-US');
    expect(parsed.Response.Hangup).toBe('');
  });

  it('drops characters XML cannot carry', () => {
    expect(escapeXml('a\u0000b\u0007c\ud800d\tx')).toBe('abcd\tx');
    expect(escapeXml('emoji 😀')).toBe('emoji 😀');
  });

  it('dials a number (a cold transfer), escaped', () => {
    expect(dialTwiml('+4930123456')).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Number>+4930123456</Number></Dial></Response>');
    expect(dialTwiml('+49</Number><Hangup/>')).toContain('<Number>+49&lt;/Number&gt;&lt;Hangup/&gt;</Number>');
  });

  it('hangs up', () => {
    expect(hangUpTwiml()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
  });

  it('warm transfer: waits, says and waits, and joins a conference room (escaped, without a beep)', () => {
    expect(waitTwiml(120)).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="120"/></Response>');
    const said = parser.parse(sayAndWaitTwiml('Hi <there> & you', 60, { language: 'de-DE' }));
    expect(said.Response.Say).toEqual({ '#text': 'Hi <there> & you', '@language': 'de-DE' });
    expect(said.Response.Pause['@length']).toBe('60');
    const room = parser.parse(conferenceTwiml('switchboard-CA1"/><Hangup/>', { startConferenceOnEnter: false, endConferenceOnExit: true, waitUrl: '' }));
    expect(room.Response.Dial.Conference).toEqual({
      '#text': 'switchboard-CA1"/><Hangup/>',
      '@beep': 'false',
      '@startConferenceOnEnter': 'false',
      '@endConferenceOnExit': 'true',
      '@waitUrl': '',
    });
    expect(room.Response.Hangup).toBeUndefined();
    // No waitUrl: Twilio's own hold music while waiting.
    expect(conferenceTwiml('r', { startConferenceOnEnter: true, endConferenceOnExit: true })).not.toContain('waitUrl');
  });
});
