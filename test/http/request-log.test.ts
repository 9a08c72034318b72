/**
 * One log line per request (issue 31): method, route pattern, status, time, user and call; no
 * path, query string or header; probes (/health, /ready, /metrics) only at `debug`.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { insertCall } from '../webhooks/support.js';
import { ADMIN_TOKEN, startTestService, type TestService, type TestUser } from '../support/service.js';

let lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const log = createLogger('info', 'json', sink);
let t: TestService;
let user: TestUser;

beforeAll(async () => {
  t = await startTestService({ log });
  user = await t.createUser();
});
afterAll(async () => {
  await t?.close();
});

/** The request lines written while `run` ran, parsed. */
async function requestLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  lines = [];
  await run();
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
}

const probe = (url: string) => t.service.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

describe('request log lines', () => {
  it('writes one line per request with method, route pattern, status, time and user; no path or query', async () => {
    const logged = await requestLines(() => user.get('/api/user/calls?phone_number=%2B4915112345678'));
    expect(logged).toHaveLength(1);
    const [line] = logged;
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/api/user/calls', statusCode: 200, userId: user.id });
    expect(typeof line!.ms).toBe('number');
    expect(typeof line!.reqId).toBe('string');
    expect(JSON.stringify(line)).not.toContain('4915112345678');
    expect(JSON.stringify(line)).not.toContain(user.token);
  });

  it('names the call of a /api/user/calls/:id request, and no route for an unknown path', async () => {
    const call = await insertCall(t, user.id, null);
    const [byId] = await requestLines(() => user.get(`/api/user/calls/${call.id}`));
    expect(byId).toMatchObject({ route: '/api/user/calls/:id', statusCode: 200, userId: user.id, callId: call.id });
    const [unknown] = await requestLines(() => user.get('/no/such/route/+4915112345678'));
    expect(unknown).toMatchObject({ route: null, statusCode: 404 });
    expect(JSON.stringify(unknown)).not.toContain('4915112345678');
  });

  it('does not log probes at info', async () => {
    const logged = await requestLines(async () => {
      for (const url of ['/health', '/ready', '/metrics']) expect((await probe(url)).statusCode).toBe(200);
    });
    expect(logged).toEqual([]);
  });

  it('logs probes at debug (so the test above would see them if they were logged at info)', async () => {
    log.level = 'debug';
    try {
      const logged = await requestLines(async () => {
        for (const url of ['/health', '/ready', '/metrics']) await probe(url);
      });
      expect(logged.map((l) => [l.route, l.level])).toEqual([
        ['/health', 20],
        ['/ready', 20],
        ['/metrics', 20],
      ]);
    } finally {
      log.level = 'info';
    }
  });
});
