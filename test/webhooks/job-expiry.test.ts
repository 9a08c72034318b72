/**
 * JOB_EXPIRE_SECONDS: a webhook job taken by a process that died is handed out again after this
 * long. The queues are created with it, and pg-boss's maintenance pass — which finds expired
 * jobs — runs every half of it (at most every 120 s), so the jobs return within 1.5 × it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { jobQueueOptions } from '../../src/service.js';
import { CALL_FINISHED_QUEUE } from '../../src/webhooks/delivery.js';
import { DELIVER_QUEUE } from '../../src/webhooks/messages.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { startTestService, type TestService } from '../support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ parts: [webhookDeliveryPart], env: { JOB_EXPIRE_SECONDS: '45' } });
});
afterAll(() => t?.close());

describe('JOB_EXPIRE_SECONDS', () => {
  it('creates the webhook queues with it', async () => {
    const { rows } = await t.service.ctx.database.pool.query<{ name: string; expire_seconds: number }>(
      `select name, expire_seconds from pgboss.queue where name = any($1) order by name`,
      [[CALL_FINISHED_QUEUE, DELIVER_QUEUE]],
    );
    expect(rows).toEqual([
      { name: CALL_FINISHED_QUEUE, expire_seconds: 45 },
      { name: DELIVER_QUEUE, expire_seconds: 45 },
    ]);
  });

  it('sets the maintenance pass to half of it, at most 120 s; refuses less than 30 s', () => {
    const options = (expire: string) => jobQueueOptions(loadConfig({ JOB_EXPIRE_SECONDS: expire }));
    expect(options('45').maintenanceIntervalSeconds).toBe(22);
    expect(options('120').maintenanceIntervalSeconds).toBe(60);
    expect(options('3600').maintenanceIntervalSeconds).toBe(120);
    expect(() => loadConfig({ JOB_EXPIRE_SECONDS: '10' })).toThrow(/JOB_EXPIRE_SECONDS/);
  });
});
