/**
 * Hostile input (issue 15): nesting and size limits on free-form JSON answered 422 before any
 * recursive code runs, and a slow body (slowloris) closed within HTTP_REQUEST_TIMEOUT.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-limits.js';
import { insertAssistant, insertCampaign } from '../support/fixtures.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let t: TestService;
let alice: TestUser;
let campaignId: number;
beforeAll(async () => {
  t = await startTestService({ listen: true, env: { HTTP_REQUEST_TIMEOUT: '1', HTTP_HEADERS_TIMEOUT: '1' } });
  alice = await t.createUser();
  const assistant = await insertAssistant(t, alice.id);
  campaignId = (await insertCampaign(t, alice.id, assistant.id)).id;
});
afterAll(async () => {
  await t.close();
});

function nested(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 1; i < levels; i++) v = { a: v };
  return { a: v };
}

async function raw(method: string, url: string, payload: string) {
  const res = await t.service.app.inject({ method: method as 'POST', url, payload, headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' } });
  return { status: res.statusCode, body: res.json() };
}

describe('free-form JSON limits', () => {
  it.each([
    ['POST', '/api/user/assistants', 'variables'],
    ['POST', '/api/user/leads/bulk', 'leads'],
    ['POST', '/api/user/calls/make', 'variables'],
  ])('%s %s: 5,000 levels in %s is a 422 naming the field, not a 500', async (method, url, field) => {
    const res = await raw(method, url, `{"${field}":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: { [field]: [`The ${field} field may be nested at most ${MAX_JSON_DEPTH} levels deep.`] },
    });
  });

  it('a body that is itself nested too deeply is a 422', async () => {
    const res = await raw('POST', '/api/user/assistants', '['.repeat(100_000) + ']'.repeat(100_000));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ body: [`The JSON body may be nested at most ${MAX_JSON_DEPTH} levels deep.`] });
  });

  it(`${MAX_JSON_DEPTH} levels are stored and read back; one more is refused`, async () => {
    const lead = { campaign_id: campaignId, phone_number: '+4930123450', variables: nested(MAX_JSON_DEPTH) };
    const ok = await alice.post('/api/user/lead', lead);
    expect(ok.status).toBe(200);
    expect(ok.body.data.variables).toEqual(nested(MAX_JSON_DEPTH));
    const deeper = await alice.post('/api/user/lead', { ...lead, phone_number: '+4930123452', variables: nested(MAX_JSON_DEPTH + 1) });
    expect(deeper.status).toBe(422);
    expect(deeper.body.errors).toEqual({ variables: [`The variables field may be nested at most ${MAX_JSON_DEPTH} levels deep.`] });
  });

  it('a free-form object larger than 64 KiB of JSON is a 422', async () => {
    const res = await alice.post('/api/user/lead', { campaign_id: campaignId, phone_number: '+4930123451', variables: { big: 'x'.repeat(70_000) } });
    expect(res.status).toBe(422);
    expect(res.body.errors.variables).toEqual(['The variables field must not be greater than 65536 characters.']);
  });
});

describe('HTTP timeouts', () => {
  it('closes a connection that declares Content-Length: 100 and sends one byte, within the request timeout', async () => {
    const { port } = new URL(t.service.url!);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const started = Date.now();
    socket.write(`POST /api/user/leads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    let answer = '';
    socket.on('data', (c) => (answer += c));
    const closedAfter = await new Promise<number>((resolve) => {
      socket.once('close', () => resolve(Date.now() - started));
      setTimeout(() => resolve(-1), 10_000);
    });
    socket.destroy();
    expect(closedAfter).toBeGreaterThan(0);
    expect(closedAfter).toBeLessThan(3_000); // 1 s timeout + Node's 1 s check interval
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a client that never finishes its headers is closed too', async () => {
    const { port } = new URL(t.service.url!);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const started = Date.now();
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    socket.resume(); // read the 408, so the end of the connection is seen
    const closedAfter = await new Promise<number>((resolve) => {
      socket.once('close', () => resolve(Date.now() - started));
      setTimeout(() => resolve(-1), 10_000);
    });
    socket.destroy();
    expect(closedAfter).toBeGreaterThan(0);
    expect(closedAfter).toBeLessThan(3_000);
  });
});
