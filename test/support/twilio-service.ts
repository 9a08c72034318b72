/**
 * A service under test whose Twilio is the Twilio double (test/support/doubles/twilio.ts): the
 * double calls the service's public URLs (PUBLIC, https) and is routed to the service's local
 * address; the service's Twilio settings point at the double. Shared by the tests that run
 * phone calls through the whole service.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TwilioDouble, type TwilioDoubleOptions } from './doubles/twilio.js';
import type { TestService } from './service.js';

export const PUBLIC = 'https://sb.example';

/** The double, once the service's local URL is known (read at every request it makes). */
export function startRoutedTwilioDouble(localUrl: () => string, options: Omit<TwilioDoubleOptions, 'route'> = {}): Promise<TwilioDouble> {
  return TwilioDouble.start({
    ...options,
    route: (url) => url.replace(PUBLIC.replace('https', 'wss'), localUrl().replace('http', 'ws')).replace(PUBLIC, localUrl()),
  });
}

/** The settings that point a service at the double (and sign its links). */
export function twilioEnv(double: TwilioDouble): Record<string, string> {
  return {
    PUBLIC_BASE_URL: PUBLIC,
    TWILIO_ACCOUNT_SID: double.accountSid,
    TWILIO_AUTH_TOKEN: double.authToken,
    TWILIO_API_URL: double.url,
    SECRET_KEY: 'k'.repeat(40),
  };
}

/** A Twilio number of the user (its `PN…` sid made of `sidChar`); returns the number's record. */
export async function addTwilioNumber(t: TestService, userId: number, phoneNumber: string, sidChar: string): Promise<{ status: number; id: number }> {
  const res = await t.admin.post(`/api/admin/users/${userId}/phone-numbers`, {
    phone_number: phoneNumber,
    type_label: 'Normal',
    carrier: 'twilio',
    carrier_sid: 'PN' + sidChar.repeat(32),
  });
  return { status: res.status, id: res.body?.data?.id };
}

export interface ToolHit {
  url: string;
  body: unknown;
}

/** A local endpoint standing in for a mid-call tool: records each request and answers `answer`. */
export async function startToolEndpoint(answer: unknown): Promise<{ url: string; hits: ToolHit[]; close(): Promise<void> }> {
  const hits: ToolHit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push({ url: req.url ?? '', body: body === '' ? null : JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
