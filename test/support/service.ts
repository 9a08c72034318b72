/**
 * A Switchboard instance for one test file, on its own fresh database cloned from the
 * run's template (embedded or external PostgreSQL, see vitest.config.ts).
 *
 *   const t = await startTestService();
 *   const alice = await t.createUser();
 *   const res = await alice.get('/api/user/me');
 *   await t.close();
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { Logger } from 'pino';
import type { PartFactory } from '../../src/parts.js';
import type { ProviderRegistry } from '../../src/providers/registry.js';
import { startService, type RunningService } from '../../src/service.js';
import type { CarrierRegistry } from '../../src/telephony/registry.js';
import { adminQuery, withDatabase } from './template.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface Client {
  token: string;
  request<T = any>(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Response<T>>;
  get<T = any>(url: string): Promise<Response<T>>;
  post<T = any>(url: string, body?: unknown): Promise<Response<T>>;
  put<T = any>(url: string, body?: unknown): Promise<Response<T>>;
  delete<T = any>(url: string, body?: unknown): Promise<Response<T>>;
}

export interface TestUser extends Client {
  id: number;
}

export interface TestService {
  service: RunningService;
  config: Config;
  databaseUrl: string;
  admin: Client;
  anonymous: Client;
  client(token: string): Client;
  createUser(input?: { name?: string; email?: string; max_tools?: number; max_calls_in_parallel?: number }): Promise<TestUser>;
  /** A phone number of the user, added through the admin API. */
  addPhoneNumber(userId: number, phone?: string, typeLabel?: 'Normal' | 'SIP' | 'Caller ID'): Promise<{ id: number; phone_number: string }>;
  close(): Promise<void>;
}

let counter = 0;

export async function createTestDatabase(): Promise<string> {
  const serverUrl = inject('pgServerUrl');
  const name = `${inject('pgPrefix')}${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${inject('pgTemplate')}"`);
  return withDatabase(serverUrl, name);
}

export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await adminQuery(withDatabase(url, 'postgres'), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'silent',
    SANDBOX_TIME_SCALE: '0',
    // A test's close() ends calls still live soon (tests about the grace period set their own).
    SHUTDOWN_GRACE_SECONDS: '5',
    PUBLIC_BASE_URL: 'http://base.test',
    PUBLIC_APP_URL: 'http://app.test',
    ...env,
  });
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** The background parts to run (e.g. `[callEnginePart]`, or `fullProcess`); none by default. */
  parts?: readonly PartFactory[];
  /** Carriers and providers other than the configuration's (e.g. a test carrier). */
  carriers?: CarrierRegistry;
  providers?: ProviderRegistry;
  databaseUrl?: string;
  /** Bind a free port on 127.0.0.1 (browser tests); `service.url` is then set. */
  listen?: boolean;
  /** The service's logger instead of one at LOG_LEVEL (tests that read what was logged). */
  log?: Logger;
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const databaseUrl = opts.databaseUrl ?? (await createTestDatabase());
  const config = testConfig({ ...(opts.listen ? { PORT: '0', HOST: '127.0.0.1' } : {}), ...opts.env });
  const service = await startService({
    config,
    databaseUrl,
    listen: opts.listen ?? false,
    parts: opts.parts ?? [],
    carriers: opts.carriers,
    providers: opts.providers,
    log: opts.log ?? createLogger(config.LOG_LEVEL),
    poolSize: 5,
  });

  const client = (token: string): Client => {
    const request = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await service.app.inject({
        method: method as 'GET',
        url,
        headers: {
          accept: 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        /* not JSON */
      }
      return { status: res.statusCode, body: parsed as any, headers: res.headers };
    };
    return {
      token,
      request,
      get: (url) => request('GET', url),
      post: (url, body) => request('POST', url, body ?? {}),
      put: (url, body) => request('PUT', url, body ?? {}),
      delete: (url, body) => request('DELETE', url, body),
    };
  };

  const admin = client(ADMIN_TOKEN);
  const t: TestService = {
    service,
    config,
    databaseUrl,
    admin,
    anonymous: client(''),
    client,
    async createUser(input = {}) {
      counter++;
      const res = await admin.post('/api/admin/users', {
        name: input.name ?? `User ${counter}`,
        email: input.email ?? `user${counter}-${randomBytes(3).toString('hex')}@example.test`,
        ...(input.max_tools !== undefined ? { max_tools: input.max_tools } : {}),
        ...(input.max_calls_in_parallel !== undefined ? { max_calls_in_parallel: input.max_calls_in_parallel } : {}),
      });
      if (res.status !== 201) throw new Error(`createUser failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { ...client(res.body.token), id: res.body.data.id };
    },
    async addPhoneNumber(userId, phone, typeLabel = 'Normal') {
      counter++;
      const number = phone ?? `+4930${String(1000000 + counter * 7919).slice(0, 7)}`;
      const res = await admin.post(`/api/admin/users/${userId}/phone-numbers`, { phone_number: number, type_label: typeLabel });
      if (res.status !== 201) throw new Error(`addPhoneNumber failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    },
    async close() {
      await service.close();
      if (!opts.databaseUrl) await dropTestDatabase(databaseUrl);
    },
  };
  return t;
}
