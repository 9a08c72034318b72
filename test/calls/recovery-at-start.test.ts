/**
 * Crash recovery while a process starts: a call left live by a dead process is ended by the
 * next instance's sweep, and its call-finished event must reach every consumer of that process
 * — the webhook delivery included — however long the parts after the call engine take to start.
 * The event goes only to the queues subscribed when it is emitted, so a sweep that ran before
 * the webhook part had subscribed (a fixed 2 s after the engine started) ended the call with
 * no webhook, for good.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { callEnginePart } from '../../src/calls/index.js';
import { calls } from '../../src/db/schema.js';
import type { PartFactory } from '../../src/parts.js';
import { webhookDeliveryPart } from '../../src/webhooks/background.js';
import { insertAssistant } from '../support/fixtures.js';
import { sleep, startReceiver, type Receiver } from '../support/receiver.js';
import { createTestDatabase, dropTestDatabase, startTestService, type TestService } from '../support/service.js';

/**
 * A part that takes a while to start, as one does on a loaded database (pg-boss's createQueue
 * waiting on its lock): longer than the 2 s the call engine used to wait before its first sweep.
 */
const slowToStart: PartFactory = () => ({ name: 'slow-to-start', start: async () => {
    await sleep(3_000);
  }, stop: async () => undefined });

let databaseUrl: string;
let receiver: Receiver;
const services: TestService[] = [];

afterAll(async () => {
  await receiver?.close();
  for (const s of services) await s.close().catch(() => undefined);
  if (databaseUrl) await dropTestDatabase(databaseUrl);
});

describe('recovery at start-up', () => {
  it("sends the webhook of a dead process's call exactly once, even when the webhook part starts late", async () => {
    databaseUrl = await createTestDatabase();
    receiver = await startReceiver();
    // The state a SIGKILL leaves: a live call owned by a process whose heartbeat has stopped.
    const setup = await startTestService({ databaseUrl });
    services.push(setup);
    const user = await setup.createUser();
    const assistant = await insertAssistant(setup, user.id, { isWebhookActive: true, webhookUrl: `${receiver.url}/hook`, sendWebhookOnlyOnCompleted: false });
    await setup.service.ctx.database.pool.query(`INSERT INTO instances (id, heartbeat_at) VALUES ('killed', now() - interval '1 minute')`);
    const [call] = await setup.service.ctx.database.db
      .insert(calls)
      .values({ userId: user.id, assistantId: assistant.id, assistantName: 'A', type: 'outbound', status: 'in-progress', clientPhoneNumber: '+4915123456700', ownerInstance: 'killed' })
      .returning();

    const next = await startTestService({ databaseUrl, parts: [callEnginePart, slowToStart, webhookDeliveryPart], env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    services.push(next);
    // Not before the new instance has seen the database for a whole stale window (15 s): until then
    // a stale heartbeat may only mean the database was away (src/calls/recovery.ts).
    const got = await receiver.waitFor(1, 25_000);
    expect(JSON.parse(got[0].body)).toMatchObject({ id: call.id, status: 'ended' });
    // Once: one message, one attempt (no second sweep or copy of the event sends another).
    await sleep(1_500);
    expect(receiver.received).toHaveLength(1);
    const { rows } = await next.service.ctx.database.pool.query('SELECT message_id, status_code FROM webhook_deliveries WHERE call_id = $1', [call.id]);
    expect(rows).toEqual([{ message_id: got[0].headers['webhook-id'], status_code: 200 }]);
  }, 45_000);
});
