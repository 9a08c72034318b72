/**
 * Known vectors from twilio-node's own test suite (spec/validation.spec.js), which pin the
 * algorithm Twilio's servers use: these signatures were made by Twilio's code, not ours.
 */
import { describe, expect, it } from 'vitest';
import {
  bodySha256,
  isValidTwilioJsonSignature,
  isValidTwilioSignature,
  twilioSignature,
} from '../../../src/telephony/twilio/signature.js';

const token = '12345';
const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const params = {
  CallSid: 'CA1234567890ABCDE',
  Caller: '+14158675309',
  Digits: '1234',
  From: '+14158675309',
  To: '+18005551212',
};
const signature = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

describe('X-Twilio-Signature', () => {
  it('computes the documented signature of a form request', () => {
    expect(twilioSignature(token, url, params)).toBe(signature);
    expect(isValidTwilioSignature(token, signature, url, params)).toBe(true);
  });

  it('reads the fields from a parsed form body (URLSearchParams) the same way', () => {
    const form = new URLSearchParams(Object.entries(params).reverse());
    expect(twilioSignature(token, url, form)).toBe(signature);
  });

  it('refuses a wrong signature, a missing one, a changed field, an added field, another URL, another token', () => {
    expect(isValidTwilioSignature(token, 'WRONG_SIGNATURE', url, params)).toBe(false);
    expect(isValidTwilioSignature(token, undefined, url, params)).toBe(false);
    expect(isValidTwilioSignature(token, '', url, params)).toBe(false);
    expect(isValidTwilioSignature(token, signature, url, { ...params, Digits: '1235' })).toBe(false);
    expect(isValidTwilioSignature(token, signature, url, { ...params, AnsweredBy: 'human' })).toBe(false);
    expect(isValidTwilioSignature(token, signature, url + '&somethingUnexpected=true', params)).toBe(false);
    expect(isValidTwilioSignature(token, signature, url.replace('mycompany', 'othercompany'), params)).toBe(false);
    expect(isValidTwilioSignature('54321', signature, url, params)).toBe(false);
  });

  it('accepts a signature made over the URL without its port when the request URL has one', () => {
    expect(isValidTwilioSignature(token, signature, url.replace('.com', '.com:1234'), params)).toBe(true);
  });

  it('accepts an http URL signed with its explicit port', () => {
    const httpWithPort = url.replace('.com', '.com:1234').replace('https', 'http');
    expect(isValidTwilioSignature(token, 'Zmvh+3yNM1Phv2jhDCwEM3q5ebU=', httpWithPort, params)).toBe(true);
  });

  it('accepts a signature made over the URL with the default port written out (443, 80)', () => {
    expect(isValidTwilioSignature(token, 'kvajT1Ptam85bY51eRf/AJRuM3w=', url, params)).toBe(true);
    expect(isValidTwilioSignature(token, '0ZXoZLH/DfblKGATFgpif+LLRf4=', url.replace('https', 'http'), params)).toBe(true);
  });

  it('accepts URLs with credentials, with and without the port', () => {
    const withCredentials = 'https://user:pass@mycompany.com/myapp.php?foo=1&bar=2';
    expect(isValidTwilioSignature(token, 'CukzLTc1tT5dXEDIHm/tKBanW10=', withCredentials, params)).toBe(true);
    expect(isValidTwilioSignature(token, 'ZQFR1PTIZXF2MXB8ZnKCvnnA+rI=', withCredentials, params)).toBe(true);
    expect(isValidTwilioSignature(token, '2YRLlVAflCqxaNicjMpJcSTgzSs=', 'https://user@mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(true);
  });

  it('accepts a URL with special characters as it was called', () => {
    expect(isValidTwilioSignature(token, 'TfZzewPq8wqrGlMfyAud8+/IvJ0=', url + "&Body=It's+amazing", params)).toBe(true);
  });

  it('signs repeated names by their distinct values in sorted order, whatever order they came in', () => {
    const sig = '83O6e2vORAoJHUNzJjDWN1jz+BA=';
    expect(isValidTwilioSignature(token, sig, url, { 'MessagingBinding.Address': ['+1325xxxxxxx', '+1415xxxxxxx'] })).toBe(true);
    expect(isValidTwilioSignature(token, sig, url, { 'MessagingBinding.Address': ['+1415xxxxxxx', '+1325xxxxxxx'] })).toBe(true);
    const repeated = new URLSearchParams([
      ['Sid', 'CA123'],
      ['Digits', '5678'],
      ['SidAccount', 'AC123'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ]);
    expect(isValidTwilioSignature(token, 'IK+Dwps556ElfBT0I3Rgjkr1wJU=', url, repeated)).toBe(true);
    repeated.set('Digits', '5678');
    expect(isValidTwilioSignature(token, 'IK+Dwps556ElfBT0I3Rgjkr1wJU=', url, repeated)).toBe(false);
  });

  describe('JSON bodies (bodySHA256)', () => {
    const body = '{"property": "value", "boolean": true}';
    const hash = '0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620';

    it('hashes the raw body as Twilio does', () => {
      expect(bodySha256(body)).toBe(hash);
    });

    it('checks the URL signature and the body hash', () => {
      expect(isValidTwilioJsonSignature(token, 'a9nBmqA0ju/hNViExpshrM61xv4=', `${url}&bodySHA256=${hash}`, body)).toBe(true);
      const emptyHash = '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a';
      expect(isValidTwilioJsonSignature(token, 'Ldidvp12m26NI7eqEvxnEpkd9Hc=', `${url}&bodySHA256=${emptyHash}`, '{}')).toBe(true);
      expect(isValidTwilioJsonSignature(token, 'y77kIzt2vzLz71DgmJGsen2scGs=', `https://mycompany.com/myapp.php?bodySHA256=${hash}`, body)).toBe(true);
    });

    it('refuses an altered body, a missing bodySHA256 and a wrong signature', () => {
      expect(isValidTwilioJsonSignature(token, 'a9nBmqA0ju/hNViExpshrM61xv4=', `${url}&bodySHA256=${hash}`, body.replace('value', 'other'))).toBe(false);
      expect(isValidTwilioJsonSignature(token, signature, url, body)).toBe(false);
      expect(isValidTwilioJsonSignature(token, 'WRONG', `${url}&bodySHA256=${hash}`, body)).toBe(false);
    });
  });
});
