/** Tool headers may carry the customer's API keys: they are returned to their owner but never logged. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { startService, type RunningService } from '../../../src/service.js';
import { ADMIN_TOKEN, createTestDatabase, dropTestDatabase, testConfig } from '../../support/service.js';
import { validTool } from './helpers.js';

const SECRET = 'sk-live-7f3a9c0e1d2b4a68-do-not-log';
const lines: string[] = [];
let service: RunningService;
let databaseUrl: string;
let token: string;

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, auth = token) {
  const res = await service.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${auth}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  const config = testConfig({ LOG_LEVEL: 'trace' });
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  service = await startService({ config, databaseUrl, listen: false, log: createLogger('trace', 'json', sink), poolSize: 3 });
  const created = await call('POST', '/api/admin/users', { name: 'Logged', email: 'logged@example.test', max_tools: 1 }, ADMIN_TOKEN);
  token = created.body.token;
});
afterAll(async () => {
  await service.close();
  await dropTestDatabase(databaseUrl);
});

describe('tool header values and logs', () => {
  it('never appear in a log line, on success, validation failure, plan limit, malformed JSON or an update', async () => {
    const headers = [{ name: 'Authorization', value: `Bearer ${SECRET}` }, { name: 'X-Api-Key', value: SECRET }];
    const created = await call('POST', '/api/user/tools', validTool({ headers }));
    expect(created.status).toBe(201);
    expect(created.body.data.headers).toEqual(headers); // returned to the owner as stored
    expect((await call('POST', '/api/user/tools', validTool({ headers, timeout: 99 }))).status).toBe(422);
    expect((await call('POST', '/api/user/tools', validTool({ headers: [{ name: 'Bad Name', value: SECRET }] }))).status).toBe(422);
    expect((await call('POST', '/api/user/tools', validTool({ headers })))).toMatchObject({ status: 422 }); // plan limit
    expect((await call('POST', '/api/user/tools', `{"headers":[{"name":"X","value":"${SECRET}"`)).status).toBe(400);
    const id = created.body.data.id;
    expect((await call('PUT', `/api/user/tools/${id}`, { headers: [{ name: 'X-Api-Key', value: SECRET }] })).status).toBe(200);
    expect((await call('PUT', `/api/user/tools/${id}`, { headers: [{ name: 'X-Api-Key', value: `${SECRET}\n` }] })).status).toBe(422);
    expect((await call('GET', `/api/user/tools/${id}`)).body.headers).toEqual([{ name: 'X-Api-Key', value: SECRET }]);
    expect((await call('GET', '/api/user/tools')).status).toBe(200);

    // The logger did run: a line for each of the 10 requests (counted as lines, not writes: the
    // destination may be handed several lines in one write).
    expect(lines.join('').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(10);
    expect(lines.join('')).not.toContain('sk-live-7f3a9c0e1d2b4a68');
  });
});
