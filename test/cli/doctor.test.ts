/**
 * `switchboard doctor` against real parts: a test database, a local HTTP server standing in
 * for the public address (/health) and one speaking the OpenAI models endpoint with a key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/cli/doctor.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, dropTestDatabase } from '../support/service.js';
import { runInProcess } from './support.js';

let databaseUrl: string;
let server: http.Server;
let base: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = http.createServer((req, res) => {
    if (req.url === '/health') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (req.url === '/v1/models') {
      const ok = req.headers.authorization === 'Bearer good-key';
      return res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? '{"data":[]}' : '{"error":{}}');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await dropTestDatabase(databaseUrl);
});

const log = createLogger('silent');
const byName = (results: Awaited<ReturnType<typeof runChecks>>) => Object.fromEntries(results.map((r) => [r.name, r.result]));

describe('switchboard doctor', () => {
  it('says what works and what does not, each problem with its fix', async () => {
    const results = byName(await runChecks(loadConfig({ DATABASE_URL: databaseUrl, PUBLIC_BASE_URL: base, LLM_BASE_URL: `${base}/v1`, LLM_API_KEY: 'bad-key' }), log));
    expect(results.database).toMatchObject({ status: 'ok', detail: expect.stringContaining('schema up to date') });
    expect(results['admin token']).toMatchObject({ status: 'fail', fix: expect.stringContaining('admin-token rotate') });
    expect(results['secret key']).toMatchObject({ status: 'warn', fix: expect.stringContaining('SECRET_KEY') });
    expect(results.accounts).toMatchObject({ status: 'warn', fix: expect.stringContaining('users create') });
    // Reachable, but a local address that carriers cannot call.
    expect(results['public URL']).toMatchObject({ status: 'warn', fix: expect.stringContaining('PUBLIC_BASE_URL') });
    expect(results.LLM).toMatchObject({ status: 'fail', fix: expect.stringContaining('LLM_API_KEY') });
    expect(results['carrier: sandbox'].status).toBe('ok');
  });

  it('passes what is set up right', async () => {
    const results = byName(await runChecks(loadConfig({
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: 'an-admin-token-from-the-env',
      SECRET_KEY: 'x'.repeat(40),
      PUBLIC_BASE_URL: base,
      LLM_BASE_URL: `${base}/v1`,
      LLM_API_KEY: 'good-key',
    }), log));
    expect(results['admin token'].status).toBe('ok');
    expect(results['secret key'].status).toBe('ok');
    expect(results.LLM).toMatchObject({ status: 'ok' });
  });

  it('reports an unreachable database once and skips what needs it; exit code 1', async () => {
    const closed = `postgres://nobody:wrong@127.0.0.1:1/none`;
    const results = byName(await runChecks(loadConfig({ DATABASE_URL: closed, PUBLIC_BASE_URL: 'http://127.0.0.1:1' }), log, undefined, 2_000));
    expect(results.database).toMatchObject({ status: 'fail', fix: expect.stringContaining('DATABASE_URL') });
    expect(results.accounts.status).toBe('skip');
    expect(results['public URL']).toMatchObject({ status: 'fail', detail: expect.stringContaining('did not answer') });

    const res = await runInProcess(['doctor'], { DATABASE_URL: closed, PUBLIC_BASE_URL: 'http://127.0.0.1:1' });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^FAIL\s+database\s+cannot connect/m);
    expect(res.stdout).toMatch(/fix: check DATABASE_URL/);
  });
});
