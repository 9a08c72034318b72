/**
 * Logs without secrets (issue 15): one redaction list (src/lib/redact.ts) covers every log
 * line. Two real services (listening on 127.0.0.1, real HTTP) log into one capture at trace
 * level while every error path is driven with planted secrets — an API token, a `whsec_`
 * secret, an e-mail address, a phone number, a URL with `user:password@` and `?secret=` — and
 * then ALL captured output is searched for them:
 *   the database down (connections refused under running services), a webhook receiver
 *   failing, a tool target blocked by the outbound guard and one failing, forged Twilio
 *   callbacks, bad and missing tokens, query strings on request lines.
 * API responses still carry e-mail addresses and phone numbers: redaction is for logs only.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { callEnginePart } from '../../src/calls/index.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { startReceiver, waitUntil, type Receiver } from '../support/receiver.js';
import { ADMIN_TOKEN, createTestDatabase, dropTestDatabase, testConfig, type TestService } from '../support/service.js';
import { adminQuery, withDatabase } from '../support/template.js';
import { emitFinished, insertCall } from '../webhooks/support.js';

const PLANTED = {
  // Shaped as src/accounts/tokens.ts mints them: `sb_` and 43 base64url characters.
  token: 'sb_PLANTEDtok3nPLANTEDtok3nPLANTEDtok3nPLANTED',
  whsec: 'whsec_UExBTlRFRHNlY3JldFBMQU5URURzZWNyZXQ=',
  email: 'planted.person@secret-mail.test',
  phone: '+4915112345678',
  password: 'hunter2PLANTED',
  query: 'PLANTEDQUERYSECRET',
};
/** What must not appear anywhere in the logs (the phone also without its plus, e.g. URL-encoded). */
const FORBIDDEN = [PLANTED.token, PLANTED.whsec, PLANTED.whsec.slice(6), PLANTED.email, PLANTED.phone.slice(1), PLANTED.password, PLANTED.query];
const TWILIO_SID = `AC${'0123456789abcdef'.repeat(2)}`;

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk));
    done();
  },
});
const logs = () => lines.join('');

let databaseUrl: string;
let open: RunningService; // ALLOW_PRIVATE_TARGETS: webhooks and tools reach local servers
let guarded: RunningService; // the default guard, the call engine and Twilio
let receiver: Receiver;

async function start(env: Record<string, string>, parts: Parameters<typeof startService>[0]['parts']) {
  const config = testConfig({ LOG_LEVEL: 'trace', PORT: '0', HOST: '127.0.0.1', ...env });
  return startService({ config, databaseUrl, listen: true, parts, log: createLogger('trace', 'json', sink), poolSize: 3 });
}

async function request(service: RunningService, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers };
  let body: string | undefined;
  if (typeof opts.body === 'string') body = opts.body;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: json };
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  receiver = await startReceiver(() => ({ status: 500, body: `{"echo":"${PLANTED.email}"}` }));
  open = await start({ ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '1' }, [webhookDeliveryPart]);
  guarded = await start({ TWILIO_ACCOUNT_SID: TWILIO_SID, TWILIO_AUTH_TOKEN: 'f'.repeat(32) }, [callEnginePart]);
}, 60_000);

afterAll(async () => {
  await adminQuery(withDatabase(databaseUrl, 'postgres'), `ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" ALLOW_CONNECTIONS true`).catch(() => undefined);
  await open?.close();
  await guarded?.close();
  await receiver?.close();
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

describe('log redaction on every error path', () => {
  it('no planted secret reaches any log line, while the API still answers with e-mail addresses and phone numbers', async () => {
    // A user whose e-mail address is planted; the answer carries it (responses are not redacted).
    const created = await request(open, 'POST', '/api/admin/users', { token: ADMIN_TOKEN, body: { name: 'Planted', email: PLANTED.email } });
    expect(created.status).toBe(201);
    expect(created.body.data.email).toBe(PLANTED.email);
    const userToken: string = created.body.token;
    const userId: number = created.body.data.id;
    const secret = await request(open, 'GET', '/api/user/webhook-secret', { token: userToken });
    expect(secret.body.secret).toMatch(/^whsec_/);

    // Bad and missing tokens, a query string with secrets on the request line, secret headers.
    const query = `?phone_number=${encodeURIComponent(PLANTED.phone)}&email=${encodeURIComponent(PLANTED.email)}&secret=${PLANTED.query}`;
    expect((await request(open, 'GET', `/api/user/calls${query}`, { token: PLANTED.token })).status).toBe(401);
    expect((await request(open, 'GET', `/api/admin/users${query}`, { token: PLANTED.whsec })).status).toBe(401);
    expect((await request(open, 'GET', '/api/user/me', { headers: { cookie: `session=${PLANTED.token}`, 'x-api-key': PLANTED.whsec } })).status).toBe(401);
    expect((await request(open, 'GET', `/no/such/route${query}`, { token: userToken })).status).toBe(404);

    // A tool target that fails (500) and one the guard blocks; arguments go in the query (GET).
    const tool = {
      name: 'lookup_customer',
      description: 'Look up the customer by phone number and e-mail address.',
      method: 'GET',
      headers: [{ name: 'Authorization', value: `Bearer ${PLANTED.token}` }, { name: 'X-Webhook-Secret', value: PLANTED.whsec }],
    };
    const args = { arguments: { phone: PLANTED.phone, email: PLANTED.email } };
    const failing = await request(open, 'POST', '/api/user/tools', {
      token: userToken,
      body: { ...tool, endpoint: `${receiver.url.replace('//', `//admin:${PLANTED.password}@`)}/tool?secret=${PLANTED.query}` },
    });
    expect(failing.status).toBe(201);
    expect((await request(open, 'POST', `/api/user/tools/${failing.body.data.id}/test`, { token: userToken, body: args })).status).toBe(200);
    const blocked = await request(guarded, 'POST', '/api/user/tools', {
      token: userToken,
      body: { ...tool, name: 'lookup_blocked', endpoint: `http://admin:${PLANTED.password}@127.0.0.1:9/tool?secret=${PLANTED.query}` },
    });
    expect(blocked.status).toBe(201);
    const blockedRun = await request(guarded, 'POST', `/api/user/tools/${blocked.body.data.id}/test`, { token: userToken, body: args });
    expect(blockedRun.status).toBe(200);
    expect(JSON.stringify(blockedRun.body)).toContain('not allowed');

    // A webhook receiver that fails (500), at a URL with userinfo and a secret query; the call
    // carries the planted phone number.
    const t = { service: open } as TestService;
    const assistant = await insertAssistant(t, userId, {
      isWebhookActive: true,
      webhookUrl: `${receiver.url.replace('//', `//hook:${PLANTED.password}@`)}/hook?secret=${PLANTED.query}`,
    });
    const call = await insertCall(t, userId, assistant.id, { clientPhoneNumber: PLANTED.phone });
    await emitFinished(t, call.id, userId);
    await waitUntil(async () => receiver.received.some((r) => r.path.startsWith('/hook')), 20_000, 'the first webhook attempt');
    expect(receiver.received.some((r) => r.path.startsWith('/tool'))).toBe(true);

    // Forged Twilio callbacks (a bad X-Twilio-Signature), with phone numbers in the form.
    const form = new URLSearchParams({ AccountSid: TWILIO_SID, CallSid: 'CA1', From: PLANTED.phone, To: '+4930555000111', Caller: PLANTED.phone });
    const twilioHeaders = { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': PLANTED.whsec };
    expect((await request(guarded, 'POST', '/carriers/twilio/voice', { body: form.toString(), headers: twilioHeaders })).status).toBe(403);
    expect((await request(guarded, 'POST', `/carriers/twilio/status?call=${call.id}&secret=${PLANTED.query}`, { body: form.toString(), headers: twilioHeaders })).status).toBe(403);

    // The database goes down under both running services: new connections refused, the open ones ended.
    const dbName = new URL(databaseUrl).pathname.slice(1);
    const server = withDatabase(databaseUrl, 'postgres');
    await adminQuery(server, `ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS false`);
    await adminQuery(server, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}' AND pid <> pg_backend_pid()`);
    try {
      const down = [
        await request(open, 'POST', '/api/admin/users', { token: ADMIN_TOKEN, body: { name: 'Down', email: `down.${PLANTED.email}` } }),
        await request(open, 'GET', `/api/user/calls${query}`, { token: userToken }),
        await request(open, 'POST', '/api/user/webhook-secret/rotate', { token: userToken }),
        await request(guarded, 'GET', '/api/user/me', { token: PLANTED.token }),
        await request(guarded, 'POST', '/api/user/tools', { token: userToken, body: { ...tool, endpoint: `https://admin:${PLANTED.password}@tools.example.test/x?secret=${PLANTED.query}` } }),
        await request(guarded, 'POST', '/carriers/twilio/voice', { body: form.toString(), headers: twilioHeaders }),
      ];
      for (const res of down) expect(res.status).toBeGreaterThanOrEqual(400);
      expect(down.some((res) => res.status >= 500)).toBe(true);
      // A failed query with the planted values as its parameters, logged as the services log errors.
      const err = await open.ctx.database.db
        .execute(sql`SELECT ${PLANTED.email}, ${PLANTED.whsec}, ${PLANTED.phone}`)
        .then(() => null, (e: unknown) => e);
      expect(err).not.toBeNull();
      open.ctx.log.error({ err, target: `https://u:${PLANTED.password}@x.test/?secret=${PLANTED.query}` }, 'query failed');
      // The background parts meet the outage too (webhook pump, job queue, heartbeats).
      await new Promise((r) => setTimeout(r, 2500));
    } finally {
      await adminQuery(server, `ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`);
    }
    // Both services serve again without a restart.
    await waitUntil(async () => (await request(open, 'GET', '/api/user/me', { token: userToken })).status === 200, 20_000, 'the open service back');
    await waitUntil(async () => (await request(guarded, 'GET', '/api/user/me', { token: userToken })).status === 200, 20_000, 'the guarded service back');

    const text = logs();
    // The paths were really driven and logged.
    expect(text).toContain('mid-call tool failed');
    expect(text).toContain('mid-call tool answered');
    expect(text).toMatch(/"statusCode":401/);
    expect(text).toMatch(/"statusCode":403/);
    expect(text).toMatch(/"level":50/); // errors while the database was down
    expect(text).toContain('query failed');
    expect(text).toContain('/api/user/calls');
    // And nothing planted or generated is in them.
    for (const planted of FORBIDDEN) expect(text, planted).not.toContain(planted);
    expect(text).not.toContain(userToken);
    expect(text).not.toContain(secret.body.secret.slice(6));
    expect(text).not.toMatch(/whsec_[A-Za-z0-9+/]{8,}/);
    expect(text).not.toMatch(/\bsb_[A-Za-z0-9_-]{43}/);
    // Internal names shaped like a token's start are not taken for one (the LISTEN of the call engine).
    expect(text).toContain('"channel":"sb_call_answered_by"');
    expect(text).not.toMatch(/\?(?:phone_number|email|secret)=/);
    expect(text).not.toMatch(/\/\/[^/\s"]*:[^/\s"]*@/); // no userinfo in any URL
    // Every line is still one JSON object.
    for (const line of text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  }, 120_000);
});

describe('the redaction list in the logger', () => {
  function capture() {
    let text = '';
    const stream = new Writable({ write(chunk, _enc, cb) { text += chunk; cb(); } });
    return { log: createLogger('info', 'json', stream as never), text: () => text };
  }

  it('covers messages, nested fields, child bindings and header values', () => {
    const { log, text } = capture();
    const child = log.child({ target: `https://u:${PLANTED.password}@x.test/a?k=${PLANTED.query}` });
    child.info({ deep: { deeper: { note: `mail ${PLANTED.email} or call ${PLANTED.phone}` } }, headers: { 'x-twilio-signature': 'sig', cookie: 'c=1' } }, `token ${PLANTED.token} secret ${PLANTED.whsec}`);
    child.warn({ req: { headers: { authorization: `Bearer ${PLANTED.token}` } }, list: [PLANTED.email] }, 'second');
    // National formats in phone fields, a status transition's from/to, what a caller said.
    child.info({ phone_number: `0${PLANTED.phone.slice(3)}`, To: PLANTED.phone.slice(1), from: 'ringing', to: 'in_progress', text: `my number is ${PLANTED.password}` }, 'third');
    for (const planted of FORBIDDEN) expect(text()).not.toContain(planted);
    const [first, second, third] = text().trim().split('\n').map((l) => JSON.parse(l));
    expect(first.target).toBe('https://x.test/a');
    expect(first.deep.deeper.note).toBe('mail [email] or call [phone]');
    expect(first.headers).toEqual({ 'x-twilio-signature': '[redacted]', cookie: '[redacted]' });
    expect(first.msg).toBe('token sb_[redacted] secret whsec_[redacted]');
    expect(second.list).toEqual(['[email]']);
    expect(third).toMatchObject({ phone_number: '[phone]', To: '[phone]', from: 'ringing', to: 'in_progress', text: '[redacted]' });
  });

  it('URLs lose userinfo and query strings in logged errors', () => {
    const { log, text } = capture();
    log.warn({ err: new Error('Target https://admin:hunter2@hooks.example.com/x?token=PLANTED is not allowed') }, 'blocked');
    expect(text()).toContain('https://hooks.example.com/x');
    expect(text()).not.toContain('hunter2');
    expect(text()).not.toContain('PLANTED');
  });
});
