/**
 * Instances started together on one fresh database all come up (compose starts three at
 * once): their background parts start one after another, so pg-boss's queue creation never
 * deadlocks between them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fullProcess } from '../../src/compose.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';

let url: string;
const services: TestService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
  if (url) await dropTestDatabase(url);
});

describe('instances starting at once', () => {
  it('all start on a fresh database, with their parts', async () => {
    url = await createTestDatabase();
    const started = await Promise.allSettled([0, 1, 2, 3].map(() => startTestService({ databaseUrl: url, parts: fullProcess })));
    for (const s of started) if (s.status === 'fulfilled') services.push(s.value);
    expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
    for (const s of services) {
      expect(s.service.ctx.services.dialer).toBeDefined();
      expect(s.service.ctx.services.webhooks).toBeDefined();
    }
  }, 120_000);
});
