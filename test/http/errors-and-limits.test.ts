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
    try {
      // A fresh token is not cached, so the lookup needs the database, which is gone.
      await t.service.ctx.database.pool.end();
      const res = await t.client(alice.token).get('/api/user/me');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Server Error' });
      const ready = await t.anonymous.get('/ready');
      expect(ready.status).toBe(503);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
