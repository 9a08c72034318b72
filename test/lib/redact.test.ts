/** The redaction list of the logs (src/lib/redact.ts), rule by rule. */
import { describe, expect, it } from 'vitest';
import { isSecretField, redactLogLine, redactPaths, redactText, redactValue } from '../../src/lib/redact.js';

describe('redactText', () => {
  it.each([
    ['https://admin:hunter2@hooks.example.com/x?token=abc#frag', 'https://hooks.example.com/x'],
    ['postgres://sb:pw@db.internal:5432/switchboard?sslmode=require', 'postgres://db.internal:5432/switchboard'],
    ['wss://api.example.com/v1/realtime?model=x&key=abc', 'wss://api.example.com/v1/realtime'],
    ['GET /api/user/calls?phone_number=%2B4915112345678 failed', 'GET /api/user/calls failed'],
    ['Route GET:/api/x?secret=1 not found', 'Route GET:/api/x not found'],
    ['/api/user/calls?status=completed', '/api/user/calls'],
    ['mail ada.lovelace+x@example.co.uk now', 'mail [email] now'],
    ['call +4915112345678 or +14155550123.', 'call [phone] or [phone].'],
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw signs', 'whsec_[redacted] signs'],
    ['token sb_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd', 'token sb_[redacted]'],
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
    ['key sk-proj-abcdefghijklmnop1234', 'key sk-[redacted]'],
    [`hash ${'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'}`, 'hash [redacted]'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('leaves ordinary text alone: paths, ids, uuids, times, short numbers, versions', () => {
    for (const text of [
      'call 42 finished after 12 s',
      '/api/user/calls/42',
      'job 3f2ecd60-9cb2-491c-96c4-a95a9f48cb09 done',
      '2026-11-24T21:05:40.123Z',
      'pg-boss@10.4.2 at node_modules/.pnpm/pino@10.4.0/x.js:1:2',
      'a retry in +300 s',
      'is this right?',
      'http://127.0.0.1:8080/health',
    ]) {
      expect(redactText(text)).toBe(text);
    }
  });
});

describe('redactValue and field names', () => {
  it('redacts secret fields at any depth, by name, and every string', () => {
    const out = redactValue({
      headers: { Authorization: 'Bearer x', 'X-Twilio-Signature': 'sig', 'content-type': 'application/json' },
      nested: { deeper: { auth_token: 'tok', webhookSecret: 'whsec_x', s3_secret_access_key: 'k', max_tokens: 5 } },
      note: 'ada@example.com',
    });
    expect(out).toEqual({
      headers: { Authorization: '[redacted]', 'X-Twilio-Signature': '[redacted]', 'content-type': 'application/json' },
      nested: { deeper: { auth_token: '[redacted]', webhookSecret: '[redacted]', s3_secret_access_key: '[redacted]', max_tokens: 5 } },
      note: '[email]',
    });
  });

  it('knows secret field names', () => {
    for (const name of ['authorization', 'cookie', 'x-twilio-signature', 'webhook-signature', 'token', 'api_key', 'apiKey', 'TWILIO_AUTH_TOKEN', 'password'])
      expect(isSecretField(name), name).toBe(true);
    for (const name of ['callId', 'status', 'url', 'tool', 'tokens_used', 'reqId']) expect(isSecretField(name), name).toBe(false);
  });

  it('gives pino redact paths for headers and nested fields', () => {
    const paths = redactPaths();
    expect(paths).toEqual(expect.arrayContaining(['req.headers.authorization', '*.headers["x-twilio-signature"]', 'token', '*.token']));
  });
});

describe('redactLogLine', () => {
  it('keeps a line one valid JSON object, escapes and newlines included', () => {
    const line = `${JSON.stringify({
      msg: 'failed "quoted" https://u:p@x.test/a?b=c\\d',
      stack: 'Error: to ada@example.com\n    at f (file:///app/x.js:1:2)\n\tcall +4915112345678',
    })}\n`;
    const out = redactLogLine(line);
    expect(out.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(out);
    expect(parsed.msg).toBe('failed "quoted" https://x.test/a');
    expect(parsed.stack).toBe('Error: to [email]\n    at f (file:///app/x.js:1:2)\n\tcall [phone]');
  });

  it('redacts a line that is not JSON as text', () => {
    expect(redactLogLine('plain ada@example.com\n')).toBe('plain [email]\n');
  });
});
