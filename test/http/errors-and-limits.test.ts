import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

describe('rate limit per token', () => {
  let t: TestService;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    t = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    alice = await t.createUser();
    bob = await t.createUser();
  });
  afterAll(() => t.close());

  it('answers 429 Too Many Attempts. with Retry-After and X-RateLimit headers after the limit', async () => {
    const first = await alice.get('/api/user/me');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    await alice.get('/api/user/me');
    await alice.get('/api/user/me');
    const limited = await alice.get('/api/user/me');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('counts each token separately', async () => {
    expect((await bob.get('/api/user/me')).status).toBe(200);
  });
});

describe('unexpected failures', () => {
  it('answer 500 {message: "Server Error"} without internals', async () => {
    const t = await startTestService();
    const alice = await t.createUser();
    const pool = t.service.ctx.database.pool;
    try {
      // A fresh token is not cached, so the lookup needs the users table, which is not where the
      // code expects it: an error of ours, not an outage.
      await pool.query('ALTER TABLE users RENAME TO users_moved_by_test');
      const res = await t.client(alice.token).get('/api/user/me');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Server Error' });
      expect(JSON.stringify(res.body)).not.toContain('users_moved_by_test');
    } finally {
      await pool.query('ALTER TABLE users_moved_by_test RENAME TO users').catch(() => undefined);
      await t.close().catch(() => undefined);
    }
  });

  it('a database that is gone: 503 with Retry-After (not 500), and /ready 503', async () => {
    const t = await startTestService();
    const alice = await t.createUser();
    try {
      await t.service.ctx.database.pool.end();
      const res = await t.client(alice.token).get('/api/user/me');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: 'The database is unavailable; please try again in a moment.' });
      expect(res.headers['retry-after']).toBe('5');
      const ready = await t.anonymous.get('/ready');
      expect(ready.status).toBe(503);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
